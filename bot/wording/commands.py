"""The words of the `/quiz` grammar: what a refusal says was tried, and why typed text could not be used.

Every message that quotes what was typed quotes it through `echo` (capped), and every command a message suggests
is one the grammar accepts as written (tests/unit/test_commands.py parses each of them).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.wording.i18n import echo
from bot.wording.i18n import translate as _

LEADERBOARD_USAGE = (
    "/quiz leaderboard [week|month|all] [channel|workspace|cohort NAME|cohorts] (or `season [NAME]` as the window)"
)
COHORT_USAGE = "/quiz cohort create|join|leave|add|remove|list|show|next|delete NAME ..."
CREATE_USAGE = "/quiz cohort create NAME [start:YYYY-MM-DD] [packs:a,b] [deliver:dm|channel]"
SCHEDULE_USAGE = (
    "`/quiz schedule add <when> [pack...] [tz:Area/City] [close:DURATION]`, `/quiz schedule list [all]`, "
    "`/quiz schedule remove|pause|resume ID`, `/quiz schedule next`"
)


def action_words(action: str) -> str:
    """What a refused command tried (`add schedules`), in the reader's language (the English is the route's)."""
    return _(action)


def did_you_mean(names: Sequence[str]) -> str:
    """` Did you mean `leaderboard`?` (with a leading space), or nothing when there is no near name."""
    if not names:
        return ""
    return " " + _("Did you mean {names}?", names=", ".join(f"`{name}`" for name in names))


# --- the command as a whole ---------------------------------------------------------------------------------


def unknown_command(word: str, known: Sequence[str], nearest: Sequence[str]) -> str:
    """A first word that is no command: the nearest one if there is one, else every command."""
    if nearest:
        return _(
            "Unknown command `{word}`.{hint} `/quiz help` lists the commands.",
            word=echo(word),
            hint=did_you_mean(nearest),
        )
    return _(
        "Unknown command `{word}`. Commands: {known}. Type `/quiz help` for more.",
        word=echo(word),
        known=", ".join(f"`{name}`" for name in known),
    )


def repeated_delivery() -> str:
    """A command that arrived twice (the platform's same request id): it ran once (rarely shown: the reply is quiet)."""
    return _("That command arrived twice; it ran once.")


def command_too_long(limit: int) -> str:
    """A command text too long to read at all (not quoted back: it is the problem)."""
    return _(
        "That command is too long to read (more than {limit} characters). `/quiz help` lists the commands.",
        limit=f"{limit:,}",
    )


def unknown_help_topic(word: str, nearest: Sequence[str]) -> str:
    """`/quiz help WORD` for a word that is no command."""
    return _(
        "There is no command `{word}`.{hint} `/quiz help` lists the commands.",
        word=echo(word),
        hint=did_you_mean(nearest),
    )


def help_takes_one() -> str:
    """`/quiz help a b`."""
    return _("`/quiz help` explains one command at a time, e.g. `/quiz help schedule`.")


def unreadable(problem: str) -> str:
    """Text shlex cannot split (an unclosed quote)."""
    return _("Could not read that command: {problem}. Check your quotes.", problem=problem)


def takes_no_arguments(name: str, got: Sequence[str]) -> str:
    """`/quiz reveal now`."""
    return _("`/quiz {name}` takes no arguments (got `{got}`).", name=name, got=echo(" ".join(got)))


def now_takes_one_pack() -> str:
    """`/quiz now a b`."""
    return _("`/quiz now` takes at most one pack id, e.g. `/quiz now data-parallelism`.")


# --- names and users ----------------------------------------------------------------------------------------


def not_a_cohort_name(text: str) -> str:
    """A cohort name that breaks the naming rule."""
    return _(
        "`{text}` is not a cohort name: use 1 to 40 letters, digits, `-`, `_` or `.`, starting with a letter "
        "or digit (e.g. `2026-spring`).",
        text=echo(text),
    )


def not_a_user(part: str) -> str:
    """A member that is no mention and no user id."""
    return _("`{part}` is not a user: mention them (`@name`) or give their user id.", part=echo(part))


# --- leaderboard --------------------------------------------------------------------------------------------


def not_a_leaderboard_option(word: str, nearest: Sequence[str] = ()) -> str:
    """`/quiz leaderboard WORD` for a word that is neither a window nor a scope."""
    return _(
        "`{word}` is not a leaderboard option.{hint} Try `{usage}`.",
        word=echo(word),
        hint=did_you_mean(nearest),
        usage=LEADERBOARD_USAGE,
    )


def which_cohort() -> str:
    """`/quiz leaderboard cohort` without a name."""
    return _("Which cohort? Try `/quiz leaderboard cohort NAME` (`{usage}`).", usage=LEADERBOARD_USAGE)


def two_of(kind: str, first: str, second: str, example: str) -> str:
    """Two values where one is meant (`week month`, two `tz:`): refused, never silently resolved.

    `kind` is `window`, `scope`, `timezone`, `close`, `start`, `packs`; `example` a command that gives one.
    """
    kinds = {
        "window": _("window"),
        "scope": _("scope"),
        "timezone": _("timezone"),
        "close": _("closing time"),
        "start": _("start date"),
        "packs": _("`packs:` list"),
    }
    if first.casefold() == second.casefold():
        return _(
            "`{word}` is given twice; give it once, e.g. `{example}`.", word=echo(first), example=echo(example, 80)
        )
    return _(
        "Give one {kind}, not both `{first}` and `{second}`: e.g. `{example}`.",
        kind=kinds.get(kind, kind),
        first=echo(first),
        second=echo(second),
        example=echo(example, 80),
    )


# --- cohorts ------------------------------------------------------------------------------------------------


def takes_one_cohort_name(action: str) -> str:
    """`/quiz cohort join` with no name, or several."""
    return _("`/quiz cohort {action}` takes one cohort name, e.g. `/quiz cohort {action} 2026-spring`.", action=action)


def not_a_date(text: str) -> str:
    """A start date that is not YYYY-MM-DD."""
    return _("`{text}` is not a date: write it as YYYY-MM-DD, e.g. `start:2026-03-02`.", text=echo(text))


def name_the_cohort() -> str:
    """`/quiz cohort create` without a name."""
    return _("Name the cohort: `{usage}`.", usage=CREATE_USAGE)


def packs_needs_ids() -> str:
    """`packs:` with nothing (or only commas) after it."""
    return _("`packs:` needs pack ids, e.g. `packs:data-parallelism,model-pipeline-parallelism`.")


def start_needs_date() -> str:
    """`start:` with nothing after it."""
    return _("`start:` needs a date, e.g. `start:2026-03-02`.")


def not_a_cohort_option(arg: str) -> str:
    """A word after the cohort's name that is neither `start:` nor `packs:`."""
    return _("`{arg}` is not a cohort option. Try `{usage}`.", arg=echo(arg), usage=CREATE_USAGE)


def members_usage(action: str) -> str:
    """What `/quiz cohort add|remove` says when it is not given a cohort and members."""
    return _("Usage: `/quiz cohort {action} NAME @user...` (mentions or user ids).", action=action)


def cohort_list_takes_nothing() -> str:
    """`/quiz cohort list extra`."""
    return _("`/quiz cohort list` takes no arguments.")


def not_a_cohort_command(word: str, nearest: Sequence[str] = ()) -> str:
    """`/quiz cohort WORD` for a word that is no cohort action."""
    return _(
        "`{word}` is not a cohort command.{hint} Try `{usage}`.",
        word=echo(word),
        hint=did_you_mean(nearest),
        usage=COHORT_USAGE,
    )


# --- review and report --------------------------------------------------------------------------------------


def review_usage() -> str:
    """`/quiz review` with something that is not one number."""
    return _("`/quiz review` gives you a question to review; answer it with `/quiz review N` (a number).")


def report_usage() -> str:
    """`/quiz report` with something it does not take."""
    return _("Try `/quiz report` (this workspace) or `/quiz report cohort NAME`.")


# --- schedules ----------------------------------------------------------------------------------------------


def schedule_needs_action() -> str:
    """`/quiz schedule` alone."""
    return _("`/quiz schedule` needs an action: {usage}.", usage=SCHEDULE_USAGE)


def not_a_schedule_action(word: str, nearest: Sequence[str] = ()) -> str:
    """`/quiz schedule WORD` for a word that is no schedule action."""
    return _(
        "`{word}` is not a schedule action.{hint} Use {usage}.",
        word=echo(word),
        hint=did_you_mean(nearest),
        usage=SCHEDULE_USAGE,
    )


def schedule_list_usage() -> str:
    """`/quiz schedule list WORD` for a word other than `all`."""
    return _("`/quiz schedule list` takes nothing, or `all` for the whole workspace.")


def schedule_next_takes_nothing() -> str:
    """`/quiz schedule next 1`."""
    return _("`/quiz schedule next` takes no arguments.")


def takes_one_schedule_id(action: str) -> str:
    """`/quiz schedule pause` with no id, or several."""
    return _("`/quiz schedule {action}` takes one schedule id, e.g. `/quiz schedule {action} 3`.", action=action)


def not_a_schedule_id(word: str) -> str:
    """A schedule id that is not a number."""
    return _("`{word}` is not a schedule id; `/quiz schedule list` shows the ids.", word=echo(word))


def say_when() -> str:
    """`/quiz schedule add` without a rule."""
    return _(
        "Say when, e.g. `/quiz schedule add weekdays 09:30`, `/quiz schedule add mon,wed,fri 14:00 "
        "data-parallelism tz:Europe/Helsinki close:2h` or a cron rule such as `30 9 * * 1-5`."
    )


def timezone_needs_name() -> str:
    """`tz:` with nothing after it."""
    return _("Give the timezone after `tz:`, e.g. `tz:Europe/Helsinki`.")


def close_needs_duration() -> str:
    """`close:` with nothing after it."""
    return _("Give the duration after `close:`, e.g. `close:2h`.")


def unknown_schedule_option(key: str) -> str:
    """`/quiz schedule add ... KEY:VALUE` for a key that is neither `tz` nor `close`."""
    return _("Unknown option `{key}:`. Options are `tz:Area/City`, `close:DURATION` and `cohort:NAME`.", key=echo(key))


def schedule_packs_are_words() -> str:
    """`packs:` in `/quiz schedule add`, where packs are plain words after the rule."""
    return _(
        "Name the packs after the rule, without `packs:`, e.g. `/quiz schedule add weekdays 09:30 data-parallelism`."
    )


def looks_like_a_timezone(word: str) -> str:
    """A pack word that is a timezone (`Europe/Helsinki`, `UTC`) written without `tz:`."""
    return _("`{word}` looks like a timezone; write it as `tz:{word}`.", word=echo(word))
