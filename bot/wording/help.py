"""Help (every command, or one in full with an example) and the list of packs.

The usage lines and summaries of the `/quiz` grammar live here (bot/commands.py takes them for its table and
Discord takes the summaries for its descriptions); they are translated when a reply is built.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.domain import Pack
from bot.ports import Message
from bot.wording.commands import did_you_mean
from bot.wording.i18n import echo, plural
from bot.wording.i18n import translate as _


class Packs(Protocol):
    """What the pack list needs of a catalog (bot/content `Catalog` has it; wording imports no content)."""

    @property
    def packs(self) -> Sequence[Pack]: ...


@dataclass(frozen=True, slots=True)
class CommandWords:
    """One command's help: its usage line, a one-line summary, and the lines `/quiz help COMMAND` adds."""

    usage: str
    summary: str
    details: tuple[str, ...]


COMMANDS: dict[str, CommandWords] = {
    "now": CommandWords(
        "/quiz now [pack]",
        "post a question here now (from one pack, or any)",
        (
            "A pack can be named in any case, or by the start of its id when only one pack starts that way.",
            "`/quiz packs` lists the packs.",
            "A channel may have a cooldown between questions and a limit of open ones, and may keep `/quiz now` for "
            "leads (`/quiz settings`); leads and admins are exempt.",
            "Example: `/quiz now data-parallelism`",
        ),
    ),
    "reveal": CommandWords(
        "/quiz reveal",
        "close the current question and show the answer",
        (
            "Shows the right answer, how people answered and who got it right.",
            "Who: whoever posted it with `/quiz now`, or a lead or admin; a scheduled or cohort question is revealed "
            "by its schedule, or early by a lead or admin.",
            "Example: `/quiz reveal`",
        ),
    ),
    "leaderboard": CommandWords(
        "/quiz leaderboard [week|month|all] [channel|workspace|cohort NAME|cohorts] (or `season [NAME]` as the window)",
        "who leads, by points (with streaks); `cohorts` ranks cohorts by points per active member",
        (
            "Windows: `week` (this week), `month` (this month), `all` (all time, the default), `season` (the "
            "running season) or `season NAME` (a past one).",
            "Scopes: `channel` (this channel, the default), `workspace` (everyone here), `cohort NAME` (one "
            "cohort's members), `cohorts` (cohorts ranked by points per active member).",
            "Give at most one window and one scope, in either order.",
            "Examples: `/quiz leaderboard week`, `/quiz leaderboard workspace month`, "
            "`/quiz leaderboard cohort spring-26 week`",
        ),
    ),
    "me": CommandWords(
        "/quiz me",
        "your points, rank, accuracy, streaks, review and most-missed topics",
        ("Only you see it.", "Example: `/quiz me`"),
    ),
    "cohort": CommandWords(
        "/quiz cohort create NAME [start:YYYY-MM-DD] [packs:a,b] [deliver:dm] | join NAME | leave NAME | "
        "add NAME @user... | remove NAME @user... | list | show NAME | next NAME | remind NAME | "
        "set NAME deliver:dm|channel | delete NAME",
        "onboarding cohorts: members, a curriculum of packs, their own leaderboard",
        (
            "`create NAME [start:YYYY-MM-DD] [packs:a,b]`: a cohort on a curriculum of packs, in that order "
            "(default: every pack, starting today).",
            "`join NAME`, `leave NAME`: join or leave one yourself.",
            "`add NAME @user...`, `remove NAME @user...`: add or remove members (leads, admins and the cohort's "
            "creator).",
            "`list` (or `/quiz cohorts`): the cohorts here; `show NAME`: its members and their progress.",
            "`next NAME`: post the cohort's next curriculum question here (leads, admins and the creator).",
            "`remind NAME`: privately nudge each member who is behind, with their open questions (leads, admins and "
            "the creator).",
            "`deliver:dm` (at create, or `set NAME deliver:dm|channel`): its schedules send each member the next "
            "question privately, at the schedule's time in their own timezone (leads, admins and the creator).",
            "`delete NAME`: delete the cohort and its board; answers stay (leads, admins and the creator).",
            "Names: 1 to 40 letters a-z or A-Z, digits, `-`, `_` or `.`.",
            "Example: `/quiz cohort create spring-26 start:2026-03-02 packs:data-parallelism`",
        ),
    ),
    "review": CommandWords(
        "/quiz review [N]",
        "privately review a question you missed; `/quiz review N` answers it",
        (
            "`/quiz review` gives you, privately, the missed question that has been due longest.",
            "`/quiz review N` answers it with choice number N; a right answer waits longer before it comes back.",
            "Example: `/quiz review 2`",
        ),
    ),
    "report": CommandWords(
        "/quiz report [cohort NAME]",
        "a short summary: participation, accuracy, leaders",
        (
            "`/quiz report`: this workspace; `/quiz report cohort NAME`: one cohort.",
            "Example: `/quiz report cohort spring-26`",
        ),
    ),
    "packs": CommandWords(
        "/quiz packs",
        "the quiz packs you can pick from",
        ("Each with its id (for `/quiz now` and schedules) and how many questions it has.", "Example: `/quiz packs`"),
    ),
    "schedule": CommandWords(
        "/quiz schedule add <when> [pack...|cohort:NAME] [tz:Area/City] [close:2h] | list [all] | remove ID | "
        "pause ID | resume ID | next",
        "post questions on a schedule, e.g. `add weekdays 09:30` (leads and admins add, remove, pause and resume)",
        (
            "When: `daily 09:00`, `weekdays 09:30`, `weekends 10:00`, days such as `mon,wed,fri 14:00` or "
            "`mon-thu 9am`, or five cron fields such as `30 9 * * 1-5`.",
            "Packs: pack ids after the rule (default: every pack).",
            "`cohort:NAME` instead of packs: each fire posts the cohort's next curriculum question (leads, admins "
            "and the cohort's creator).",
            "`tz:Area/City`: the timezone the rule is read in, e.g. `tz:Europe/Helsinki` or `tz:UTC` "
            "(default: the channel's).",
            "`close:DURATION`: close each question after e.g. `30m`, `2h`, `1d` (default: when the next one is "
            "due, at most 24 h).",
            "`list [all]`: this channel's schedules (or the workspace's); `next`: what is posted next here.",
            "`pause ID`, `resume ID`, `remove ID`: by the id `list` shows (leads and admins).",
            "Example: `/quiz schedule add mon,wed,fri 14:00 data-parallelism tz:Europe/Helsinki close:2h`",
        ),
    ),
    "flag": CommandWords(
        "/quiz flag [reason]",
        "report a problem with the question you last answered here (or the newest one)",
        (
            "One flag per person and question; a question enough people flag leaves rotation until an admin clears it.",
            "Example: `/quiz flag two choices are right`",
        ),
    ),
    "flags": CommandWords(
        "/quiz flags | flags clear PACK/QUESTION",
        "flagged questions: counts, reasons, accuracy; `clear` puts one back in rotation (leads and admins)",
        (
            "`/quiz flags`: the flagged questions; `/quiz flags clear PACK/QUESTION`: clear one question's flags.",
            "Example: `/quiz flags clear data-parallelism/dp-gpu-holds`",
        ),
    ),
    "season": CommandWords(
        "/quiz season start NAME [until:YYYY-MM-DD] | end | list",
        "seasons: a leaderboard that starts afresh (leads and admins start and end them; `leaderboard season` "
        "shows it)",
        (
            "`start NAME [until:YYYY-MM-DD]`: start a season (one at a time); it ends after its `until:` day, or "
            "with `end`.",
            "`end`: end the running season (asks to confirm); each channel gets its final top three.",
            "`list`: the seasons here. All-time totals are never affected.",
            "Example: `/quiz season start winter until:2027-03-31`",
        ),
    ),
    "role": CommandWords(
        "/quiz role grant @user lead|admin | revoke @user lead|admin | list",
        "who may do what: admins grant and revoke the lead and admin roles",
        (
            "`grant @user lead`: a lead adds, pauses and removes schedules, starts and ends seasons, runs any "
            "cohort's commands, clears flags, and may reveal any question early.",
            "`grant @user admin`: an admin may do all that, and grant and revoke roles.",
            "`revoke @user lead|admin`: take a role back; `list`: who has a role here (admins).",
            "Workspace admins, and the admins the operator configured, are always admins. On Discord a server role "
            "may be granted too (`@role`).",
            "Example: `/quiz role grant @ann lead`",
        ),
    ),
    "settings": CommandWords(
        "/quiz settings [channel|workspace] [KEY VALUE|KEY default|edit] | settings history",
        "this channel's settings: see them, and change them (leads: the channel's; admins: the workspace's)",
        (
            "`/quiz settings` shows each setting here and where it comes from: set for this channel, set for the "
            "workspace, or the default. `/quiz settings channel` or `workspace` shows what one of them sets.",
            "`/quiz settings channel KEY VALUE` changes a setting for this channel (leads), `/quiz settings workspace "
            "KEY VALUE` for every channel that does not set it (admins); `KEY default` inherits it again; `edit` "
            "opens a form.",
            "The settings: `timezone`, `now-posters` (anyone, leads), `now-cooldown`, `now-limit`, `close-after`, "
            "`reveal` (leads, schedule, anyone), `speed-points`, `cohort-private` (on, off), `language`.",
            "`/quiz settings history` shows the latest changes, with who and when.",
            "Example: `/quiz settings channel now-cooldown 2m`",
        ),
    ),
    "write": CommandWords(
        "/quiz write [pack]",
        "write a question for your team's own pack; a lead reviews it before it is asked",
        (
            "Opens a form: the prompt; the choices, one a line, the correct one marked with a leading `*`; the "
            "explanation; references (links, one a line); and `tags: a, b; difficulty: medium`.",
            "The pack rules of `quizbot content check` run when you submit; what they find comes back in the form.",
            "The pack is your team's (default `team`, created when the first question is approved); a shipped "
            "pack's id cannot be used.",
            "Example: `/quiz write runbooks`",
        ),
    ),
    "drafts": CommandWords(
        "/quiz drafts | drafts approve N | drafts edit N | drafts reject N [reason]",
        "review the questions your team wrote: approve, edit or reject each (leads and admins)",
        (
            "`/quiz drafts`: the drafts waiting, with Approve, Edit and Reject buttons.",
            "An approved question joins its team pack at once (`/quiz now PACK` can ask it); the author hears "
            "the outcome privately.",
            "Example: `/quiz drafts approve 3`",
        ),
    ),
    "import": CommandWords(
        "/quiz import",
        "import a pack file (YAML, GIFT, Aiken, CSV, Kahoot .xlsx...) as a workspace pack",
        (
            "Slack: share the file with the bot in a direct message; Discord: attach it to `/quiz import`.",
            "Complete questions join the workspace pack named after the file; questions without an explanation wait "
            "in /quiz drafts. A file with any problem is refused whole, with the problems listed.",
            "Example: `/quiz import` (with the file attached)",
        ),
    ),
    "help": CommandWords(
        "/quiz help [command]",
        "this help",
        ("`/quiz help COMMAND` shows one command in full, with an example.", "Example: `/quiz help schedule`"),
    ),
}


def usage(name: str) -> str:
    """A command's usage line, in English (the grammar's table keeps it; `usage_line` translates it)."""
    return COMMANDS[name].usage


def summary(name: str) -> str:
    """A command's one-line summary, in English (translated by `usage_line` and `description`)."""
    return COMMANDS[name].summary


def description(text: str) -> str:
    """A summary as a platform's command description: translated, starting with a capital."""
    words = _(text)
    return words[:1].upper() + words[1:]


def usage_line(usage_text: str, summary_text: str) -> str:
    """`/quiz now [pack] - post a question here now`."""
    return _("{usage} - {summary}", usage=_(usage_text), summary=_(summary_text))


def help_message(lines: Sequence[str]) -> Message:
    """The help text: every command's usage line, then how to see one in full."""
    more = _("`/quiz help COMMAND` shows one command in full, with an example, e.g. `/quiz help schedule`.")
    return Message(title=_("quizbot commands"), lines=(*lines, more))


def command_help(line: str, name: str) -> Message:
    """`/quiz help COMMAND`: its usage line, then its details and an example."""
    words = COMMANDS.get(name)
    return Message(title=line, lines=tuple(_(detail) for detail in words.details) if words else ())


def terminal_lines() -> tuple[str, ...]:
    """What the terminal adapter adds to `/quiz help`: its own commands."""
    return (
        _("/as NAME - be someone else from now on (the terminal's own command)"),
        _("/quit - leave the terminal (also `/exit`, `/q`)"),
        _("/press N - press the N-th button of the last reply (e.g. a draft's Approve in `/quiz drafts`)"),
    )


def packs_message(catalog: Packs, *, left_out: Sequence[str] = (), team: Sequence[str] = ()) -> Message:
    """The loaded packs, the workspace's own (`team`: a line each, bot/wording/drafts.py) and, for admins
    (`left_out`), the pack files that did not load and why."""
    lines = [
        _(
            "{id} — {title} ({questions})",
            id=pack.id,
            title=pack.title,
            questions=plural(len(pack.questions), "question"),
        )
        for pack in catalog.packs
    ] + list(team) or [_("No packs are loaded.")]
    if left_out:
        lines.append(_("Not loaded (fix the file, check it with `quizbot content check`, then restart the bot):"))
        lines.extend(f"• {problem}" for problem in left_out)
    return Message(title=_("Quiz packs"), lines=tuple(lines))


def unknown_pack(pack_id: str, known: Sequence[str], nearest: Sequence[str] = ()) -> str:
    """A pack id that is not loaded: the nearest ones if any are near, and the ones that are."""
    return _(
        "There is no pack called `{pack}`.{hint} Packs: {known}.",
        pack=echo(pack_id),
        hint=did_you_mean(nearest),
        known=", ".join(known) or _("none"),
    )


def ambiguous_pack(word: str, candidates: Sequence[str]) -> str:
    """A pack prefix more than one pack starts with."""
    return _(
        "More than one pack starts with `{word}`: {candidates}. Say which.",
        word=echo(word),
        candidates=", ".join(f"`{name}`" for name in candidates),
    )
