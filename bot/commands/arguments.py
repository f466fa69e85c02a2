"""The `/quiz` commands' argument validators: a word (or a typed option) to its value, or the grammar's CommandError
saying what to type. The text grammar and the typed options (bot/commandspec.py `Option`) share them."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from datetime import date, timedelta

from bot.domain import Delivery, QuestionKey
from bot.domain.names import nearest
from bot.domain.schedules import is_timezone
from bot.domain.text import whole_number
from bot.domain.windows import Scope, Window
from bot.errors import CommandError
from bot.schedule_rules import parse_duration
from bot.wording import cohorts as cohort_words
from bot.wording import commands as words
from bot.wording import flags as flag_words
from bot.wording import seasons as season_words

_COHORT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
_MENTION = re.compile(r"<@!?([A-Za-z0-9_.-]+)(?:\|[^>]*)?>")


def cohort_name(text: str) -> str:
    """A valid cohort name, or CommandError saying what names look like."""
    if not _COHORT_NAME.fullmatch(text):
        raise CommandError(words.not_a_cohort_name, text=text)
    return text


def user_ids(parts: Sequence[str]) -> tuple[str, ...]:
    """Platform user ids from mentions (`<@U123>`, `<@U123|ann>` on Slack, `<@123>`, `<@!123>` on Discord),
    `@name`, or plain ids; commas separate too. Duplicates are dropped, order kept."""
    found: list[str] = []
    for word in parts:
        for raw in word.split(","):
            part = raw.strip()
            if not part:
                continue
            mention = _MENTION.fullmatch(part)
            user = mention.group(1) if mention else part.removeprefix("@")
            if not user or not re.fullmatch(r"[^\s<>@|\x00-\x1f\x7f]{1,64}", user):  # no control characters
                raise CommandError(words.not_a_user, part=part)
            found.append(user)
    return tuple(dict.fromkeys(found))


_WINDOWS = {w.value: w for w in Window} | {"all-time": Window.ALL, "alltime": Window.ALL}
_SCOPES = {scope.value: scope for scope in Scope}


def _not_a_leaderboard_option(word: str) -> CommandError:
    return CommandError(words.not_a_leaderboard_option, word=word, nearest=nearest(word, [*_WINDOWS, *_SCOPES]))


def leaderboard_window(word: str) -> Window:
    """The leaderboard window a word names (`week`, `month`, `all`, `all-time`), or the grammar's CommandError."""
    window = _WINDOWS.get(word.casefold())
    if window is None:
        raise _not_a_leaderboard_option(word)
    return window


def leaderboard_scope(word: str) -> Scope:
    """The leaderboard scope a word names (`channel`, `workspace`, `cohort`, `cohorts`), or the grammar's error."""
    scope = _SCOPES.get(word.casefold())
    if scope is None:
        raise _not_a_leaderboard_option(word)
    return scope


def leaderboard_cohort(name: str | None) -> str:
    """The cohort a one-cohort leaderboard ranks: a valid name, or CommandError asking which cohort."""
    if name is None:
        raise CommandError(words.which_cohort)
    return cohort_name(name)


def _once(kind: str, first: str | None, second: str, example: str) -> None:
    """Refuse a second value where one is meant (`week month`, two `tz:`), naming both and how to give one."""
    if first is not None:
        raise CommandError(words.two_of, kind=kind, first=first, second=second, example=example)


def start_date(text: str) -> date:
    """A cohort's start date written as YYYY-MM-DD, or CommandError saying how to write it."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CommandError(words.not_a_date, text=text) from None


def curriculum(pack_ids: Iterable[str]) -> tuple[str, ...]:
    """A cohort's curriculum: the pack ids in the order given, each once, blanks dropped."""
    return tuple(dict.fromkeys(p.strip() for p in pack_ids if p.strip()))


def delivery_mode(word: str) -> Delivery:
    """How a cohort is delivered, as typed after `deliver:` (`dm`, `channel`), or CommandError naming both."""
    aliases = {"dm": Delivery.DM, "dms": Delivery.DM, "private": Delivery.DM, "channel": Delivery.CHANNEL}
    found = aliases.get(word.strip().casefold())
    if found is None:
        raise CommandError(cohort_words.unknown_delivery, word=word)
    return found


members_usage = words.members_usage
"""What `/quiz cohort add|remove` says when it is not given a cohort and members (bot/wording/commands.py)."""


CLOSE_MIN = timedelta(minutes=1)
CLOSE_MAX = timedelta(days=7)


def schedule_id(word: str) -> int:
    """A schedule id as typed (`3` or `#3`), or CommandError pointing at `/quiz schedule list`."""
    number = whole_number(word.removeprefix("#"), digits=18)
    if number is None:
        raise CommandError(words.not_a_schedule_id, word=word)
    return number


def _looks_like_a_timezone(word: str) -> bool:
    """A pack word that is a timezone typed without `tz:`: it has a `/` (`Europe/Helsinki`), or it is a zone name
    written with a capital (`UTC`, `EST`; pack ids are lower case), or `utc`/`gmt` in any case."""
    if "/" in word:
        return True
    if word.casefold() in {"utc", "gmt"}:
        return True
    return word != word.casefold() and is_timezone(word)


def schedule_packs(names: Iterable[str]) -> tuple[str, ...]:
    """The packs a schedule draws from: case-folded, in order, each once; `all` and `any` mean every pack."""
    return tuple(dict.fromkeys(word.casefold() for word in names if word.casefold() not in {"all", "any"}))


def close_after(text: str) -> timedelta:
    """How long each scheduled question stays open (`30m`, `2h`, `1d`), within CLOSE_MIN and CLOSE_MAX."""
    return parse_duration(text, minimum=CLOSE_MIN, maximum=CLOSE_MAX)


_QUESTION_PART = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")  # pack and question ids (bot/content/schema.py SLUG)


def question_ref(text: str) -> QuestionKey:
    """(pack id, question id) from `PACK/QUESTION` (or `PACK QUESTION`), or CommandError saying how to write it."""
    parts = [part.casefold() for part in re.split(r"[\s/]+", text) if part]
    if len(parts) != 2 or not all(_QUESTION_PART.fullmatch(part) for part in parts):
        raise CommandError(flag_words.not_a_question, text=text)
    return QuestionKey(parts[0], parts[1])


def season_name(text: str) -> str:
    """A valid season name (the same shape as a cohort name), or CommandError saying what names look like."""
    if not _COHORT_NAME.fullmatch(text):
        raise CommandError(season_words.not_a_season_name, text=text)
    return text


def season_until(text: str) -> date:
    """A season's last day written as YYYY-MM-DD, or CommandError saying how to write it."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CommandError(season_words.not_a_date, text=text) from None


_ITEM_SEPARATORS = re.compile(r"[,\s]+")


def _items(text: str) -> list[str]:
    """A typed list option (`a, b c`) as its items: commas and spaces both separate."""
    return [item for item in _ITEM_SEPARATORS.split(text) if item]


def _members(action: str) -> Callable[[str], tuple[str, ...]]:
    """The validator of a typed `members` option of `cohort add|remove`: mentions or ids, at least one."""

    def members(text: str) -> tuple[str, ...]:
        users = user_ids(text.split())
        if not users:
            raise CommandError(members_usage, action=action)
        return users

    return members
