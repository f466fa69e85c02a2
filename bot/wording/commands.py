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
        "`{text}` is not a cohort name: use 1 to 40 letters a-z or A-Z, digits, `-`, `_` or `.`, starting with a "
        "letter or digit (e.g. `2026-spring`).",
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


def not_a_cohort_command(word: str, nearest: Sequence[str], actions: Sequence[str]) -> str:
    """`/quiz cohort WORD` for a word that is no cohort action: the nearest, and every action (from the specs)."""
    return _(
        "`{word}` is not a cohort command.{hint} Try `{usage}`.",
        word=echo(word),
        hint=did_you_mean(nearest),
        usage=_("/quiz cohort {actions} NAME ...", actions="|".join(actions)),
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


# --- typed commands (Discord): descriptions of commands and options, labels of choices ------------------------
# Keys the command specs (bot/commands.py SPECS) name; a platform with typed commands words them at its edge with
# `described` and `option_words`. A command's permission is added to its description by `described`, never by hand.

QUIZ_GROUP = "Quiz questions, answers and leaderboards"

DESCRIBE_REVIEW = "Privately review a question you missed; give `answer` to answer it"
DESCRIBE_SCHEDULE_ADD = "Post questions in this channel on a rule"
DESCRIBE_SCHEDULE_LIST = "This channel's schedules, or the whole server's"
DESCRIBE_SCHEDULE_REMOVE = "Delete a schedule; posted questions stay"
DESCRIBE_SCHEDULE_PAUSE = "Stop a schedule until it is resumed"
DESCRIBE_SCHEDULE_RESUME = "Restart a paused schedule; missed questions are not caught up"
DESCRIBE_SCHEDULE_NEXT = "When the next scheduled question is due in this channel"
DESCRIBE_FLAGS_LIST = "Flagged questions: how many reported each, why, accuracy"
DESCRIBE_FLAGS_CLEAR = "Clear a question's flags, putting it back in rotation"
DESCRIBE_COHORT_CREATE = "Create a cohort with a start date and a curriculum of packs"
DESCRIBE_COHORT_JOIN = "Join a cohort"
DESCRIBE_COHORT_LEAVE = "Leave a cohort"
DESCRIBE_COHORT_ADD = "Add members to a cohort"
DESCRIBE_COHORT_REMOVE = "Remove members from a cohort"
DESCRIBE_COHORT_LIST = "The cohorts of this server"
DESCRIBE_COHORT_SHOW = "A cohort's members and their progress through its curriculum"
DESCRIBE_COHORT_NEXT = "Post the cohort's next curriculum question here"
DESCRIBE_COHORT_REMIND = "Privately nudge the members who are behind"
DESCRIBE_COHORT_SET = "How a cohort's schedules deliver its curriculum"
DESCRIBE_COHORT_DELETE = "Delete a cohort; answers and points stay"
DESCRIBE_SEASON_START = "Start a season: a leaderboard from zero, until it ends"
DESCRIBE_SEASON_END = "End the running season; each channel gets its final board"
DESCRIBE_SEASON_LIST = "This server's seasons, the running one first"

OPTION_PACK = "The pack to take the question from (default: any)"
OPTION_WINDOW = "Which answers count (default: all time)"
OPTION_SCOPE = "Whose answers (default: this channel)"
OPTION_BOARD_COHORT = "The cohort to rank (picks the one-cohort scope), e.g. spring-26"
OPTION_BOARD_SEASON = "A season's name, for its board (picks the season window; default: the season running now)"
OPTION_ANSWER = "The number of your choice for the question you are reviewing"
OPTION_REPORT_COHORT = "Report on one cohort (default: the whole server)"
OPTION_REASON = "What is wrong with it (up to {limit} characters)"
OPTION_HELP = "Explain one command"
OPTION_WHEN = "When, e.g. `weekdays 09:30`, `mon,wed,fri 2pm` or cron `30 9 * * 1-5`"
OPTION_PACKS = "Pack ids, separated by commas or spaces (default: every pack)"
OPTION_TZ = "IANA timezone, e.g. Europe/Helsinki or America/New_York (default: the channel's)"
OPTION_CLOSE = "Close each question after e.g. 30m, 2h, 1d (default: at the next one, at most 24 h)"
OPTION_SCHEDULE_COHORT = "Deliver this cohort's curriculum instead of packs"
OPTION_ALL = "List every channel's schedules in this server"
OPTION_SCHEDULE_ID = "The schedule's id (`/quiz schedule list` shows them)"
OPTION_QUESTION = "PACK/QUESTION, e.g. data-parallelism/dp-gpu-holds (`/quiz flags list` shows them)"
OPTION_COHORT = "The cohort's name, e.g. spring-26"
OPTION_START = "First day, as YYYY-MM-DD (default: today)"
OPTION_CURRICULUM = "Curriculum: pack ids in order, separated by commas (default: every pack)"
OPTION_DELIVER = "How its schedules deliver the curriculum: in the channel, or to each member by direct message"
OPTION_MEMBERS = "Members: mentions (@ann @ben) or user ids"
OPTION_SEASON = "The season's name, e.g. 2027-q1"
OPTION_UNTIL = "Its last day, as YYYY-MM-DD (default: until an admin ends it)"

_WHO_MAY = {
    "admin": " (admins)",
    "lead": " (leads and admins)",
    "creator-or-admin": " (admins and its creator)",
    "poster-or-lead": " (its poster, leads and admins)",
}
_SCOPE_CHOICES = {
    "channel": "this channel",
    "workspace": "this server",
    "cohort": "one cohort (name it in `cohort`)",
    "cohorts": "cohort vs cohort",
}
_DELIVERY_CHOICES = {"channel": "in the channel", "dm": "by direct message to each member"}


def described(key: str, permission: str = "anyone") -> str:
    """A typed command's description: its words, capitalised, then who may run it (`(admins)`) from its spec's
    permission (`anyone`, `admin`, `lead`, `creator-or-admin`, `poster-or-lead`)."""
    text = _(key)
    who = _WHO_MAY.get(permission)
    return text[:1].upper() + text[1:] + (_(who) if who else "")


def option_words(key: str, **values: object) -> str:
    """A typed option's description."""
    return _(key, **values)


def scope_choice(scope: str) -> str:
    """The label of a leaderboard scope among a typed option's choices."""
    return _(_SCOPE_CHOICES[scope])


def delivery_choice(delivery: str) -> str:
    """The label of a cohort's delivery among a typed option's choices."""
    return _(_DELIVERY_CHOICES[delivery])


def not_running() -> str:
    """A typed command sent to a command tree built only to register it (never running the bot)."""
    return _("quizbot is not running here.")
