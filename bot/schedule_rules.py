"""The schedule-rule grammar: what people type (`daily 09:00`, `weekdays 09:30`, `mon,wed,fri 14:00`, or a five-field
cron), timezones and durations, read into the domain's values (bot/domain/schedules.py `Rule`, timedelta); a rule,
timezone or duration that cannot be used is refused with a `CommandError` that carries
the key of its words in bot/wording/rules.py and their values, worded at the edge.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import NamedTuple
from zoneinfo import ZoneInfo

from bot.domain.names import nearest
from bot.domain.schedules import MIN_INTERVAL, NeverFires, Rule, timezone_names
from bot.domain.text import whole_number
from bot.errors import CommandError
from bot.wording import rules as rule_words

WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_DAY_WORDS: dict[str, int] = {}
for _index, _name in enumerate(WEEKDAY_NAMES):
    for _alias in (_name.casefold(), _name[:3].casefold()):
        _DAY_WORDS[_alias] = _index
_DAY_WORDS.update({"tues": 1, "thur": 3, "thurs": 3})

_CRON_DOW = {"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}
_CRON_MONTHS = {
    name: number
    for number, name in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1
    )
}
_EVERY_DAY = ("daily", "day", "everyday", "days")
_WEEKDAYS = ("weekdays", "weekday", "workdays", "workday")
_WEEKENDS = ("weekends", "weekend")
_TIME = re.compile(r"^([0-9]{1,2})(?::([0-9]{2}))?(am|pm)?$")
_CRONISH = re.compile(r"^[0-9*]")
_TIMEISH = re.compile(r"^[0-9]{1,2}(:[0-9]{2})?(am|pm)?$")
_DURATION = re.compile(r"^(?:([0-9]+)d)?(?:([0-9]+)h)?(?:([0-9]+)m(?:in)?)?(?:([0-9]+)s)?$")


# --- parsing ---------------------------------------------------------------------------------------


def parse_rule(text: str) -> Rule:
    """Parse a whole rule (`weekdays 09:30`, or five cron fields) and check it fires, not too often."""
    words = text.split()
    rule, rest = split_rule(words)
    if rest:
        raise CommandError(rule_words.left_over, rest=" ".join(rest))
    return rule


class RuleAndRest(NamedTuple):
    """A rule read from the start of some words, and the words after it."""

    rule: Rule
    rest: list[str]


def split_rule(words: Sequence[str]) -> RuleAndRest:
    """Read a rule from the start of `words`; returns it and the words after it (packs, options)."""
    words = list(words)
    if not words:
        raise CommandError(rule_words.say_when)
    first = words[0]
    if len(first.split()) > 1:  # a quoted rule: "30 9 * * 1-5"
        rule, rest = split_rule(first.split())
        if rest:
            raise CommandError(rule_words.left_over_in_quotes, rest=" ".join(rest), quoted=first)
        return RuleAndRest(rule, list(words[1:]))
    if _CRONISH.match(first) and not (_TIMEISH.match(first.casefold()) and not first.isdigit()):
        rule, rest = _parse_cron(words[:5]), words[5:]
    else:
        rule, rest = _parse_friendly(words)
    _check_interval(rule)
    return RuleAndRest(rule, rest)


def _check_interval(rule: Rule) -> None:
    """Refuse rules that never fire, or fire more often than MIN_INTERVAL (without enumerating a busy rule)."""
    limit = int(MIN_INTERVAL.total_seconds() // 60)
    times = sorted({h * 60 + m for h in rule.hours for m in rule.minutes})
    within_day = min((b - a for a, b in itertools.pairwise(times)), default=24 * 60)
    if within_day < limit:
        raise CommandError(rule_words.too_often, cron=rule.cron, minutes=within_day, limit=limit)
    reference = datetime(2001, 1, 1, tzinfo=UTC)
    try:
        first = rule.next_slot(reference, ZoneInfo("UTC"))
    except NeverFires:
        raise CommandError(rule_words.never_fires, cron=rule.cron) from None
    if times[0] + 24 * 60 - times[-1] < limit:  # late one day and early the next: look at real fires
        fires = rule.upcoming(first.due - timedelta(microseconds=1), ZoneInfo("UTC"), 48)
        smallest = min(later.due - earlier.due for earlier, later in itertools.pairwise(fires))
        if smallest < MIN_INTERVAL:
            raise CommandError(
                rule_words.too_often, cron=rule.cron, minutes=int(smallest.total_seconds() // 60), limit=limit
            )


@lru_cache(maxsize=1024)
def load_rule(cron: str) -> Rule:
    """A stored rule (five cron fields), parsed without the checks made when it was added."""
    return _parse_cron(cron.split())


def _parse_friendly(words: list[str]) -> tuple[Rule, list[str]]:
    i = 0
    if words[i].casefold() == "every":
        i += 1
        if i == len(words):
            raise CommandError(rule_words.every_what)
        _refuse_an_interval(words[i:])
    # A day list may have been typed with spaces after its commas: `mon, wed, fri`.
    days_text = words[i]
    i += 1
    while i < len(words) and (days_text.endswith((",", "-")) or words[i].startswith((",", "-"))):
        days_text += words[i]
        i += 1
    weekdays = _parse_days(days_text)
    if i < len(words) and words[i].casefold() == "at":
        i += 1
    if i == len(words):
        raise CommandError(rule_words.add_a_time, days=days_text)
    time_text = words[i]
    i += 1
    if i < len(words) and words[i].casefold() in {"am", "pm"}:
        time_text += words[i]
        i += 1
    hour, minute = _parse_time(time_text)
    if weekdays == frozenset(range(7)):
        dow = "*"
    elif weekdays == frozenset(range(5)):
        dow = "1-5"
    else:
        dow = ",".join(str(n) for n in sorted((d + 1) % 7 for d in weekdays))
    return _parse_cron([str(minute), str(hour), "*", "*", dow]), words[i:]


_UNITS = {
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), 1),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), 60),
    **dict.fromkeys(("d", "day", "days"), 24 * 60),
}
_EVERY_N = re.compile(r"^([0-9]{1,4})([a-z]*)$")


def _refuse_an_interval(after_every: list[str]) -> None:
    """`every 2 hours`, `every 30m`: refused with the cron rule that posts at those times of day (never a rule
    the grammar would refuse in turn)."""
    if not after_every:
        return
    match = _EVERY_N.match(after_every[0].casefold())
    if match is None:
        return
    unit = match.group(2) or (after_every[1].casefold() if len(after_every) > 1 else "")
    if unit not in _UNITS:
        return
    typed = " ".join(after_every[:1] if match.group(2) else after_every[:2])
    minutes = int(match.group(1)) * _UNITS[unit]
    limit = int(MIN_INTERVAL.total_seconds() // 60)
    if minutes < 60:
        cron = f"*/{max(minutes, limit)} * * * *"
    elif minutes < 24 * 60:
        hours = round(minutes / 60)
        cron = "0 * * * *" if hours == 1 else f"0 */{hours} * * *"
    else:
        cron = "0 9 * * *"
    raise CommandError(rule_words.interval, typed=f"every {typed}", cron=cron)


def _a_time_like(text: str) -> str:
    """A time the grammar accepts, as near as may be to `text` (`2` -> `02:00`), for a hint to suggest."""
    try:
        hour, minute = _parse_time(text)
    except CommandError:
        digits = text.split(":", maxsplit=1)[0]
        if digits.isdigit() and int(digits) <= 23:
            return f"{int(digits):02d}:00"
        return "09:30"
    return text if _TIME.match(text.casefold()) else f"{hour:02d}:{minute:02d}"


def _parse_days(text: str) -> frozenset[int]:
    word = text.casefold()
    if word in _EVERY_DAY:
        return frozenset(range(7))
    if word in _WEEKDAYS:
        return frozenset(range(5))
    if word in _WEEKENDS:
        return frozenset({5, 6})
    if _TIMEISH.match(word):
        raise CommandError(rule_words.days_first, time_text=_a_time_like(text))
    days: set[int] = set()
    for part in word.split(","):
        ends = part.split("-")
        if len(ends) > 2 or not all(_day(end) is not None for end in ends):
            raise CommandError(rule_words.not_a_day_rule, text=text)
        first, last = _day(ends[0]) or 0, _day(ends[-1]) or 0
        if last < first:
            raise CommandError(rule_words.day_range_backwards, part=part)
        days.update(range(first, last + 1))
    return frozenset(days)


def _day(word: str) -> int | None:
    if word in _DAY_WORDS:
        return _DAY_WORDS[word]
    if word.endswith("s") and word[:-1] in _DAY_WORDS:  # `mondays`
        return _DAY_WORDS[word[:-1]]
    return None


def _parse_time(text: str) -> tuple[int, int]:
    match = _TIME.match(text.casefold())
    problem = CommandError(rule_words.not_a_time, text=text)
    if match is None:
        raise problem
    hour, minute, meridiem = int(match.group(1)), int(match.group(2) or 0), match.group(3)
    if meridiem is None and match.group(2) is None:
        raise problem
    if meridiem is not None:
        if not 1 <= hour <= 12:
            raise problem
        hour = hour % 12 + (12 if meridiem == "pm" else 0)
    if hour > 23 or minute > 59:
        raise problem
    return hour, minute


_FIELDS = (
    ("minute", 0, 59, None),
    ("hour", 0, 23, None),
    ("day-of-month", 1, 31, None),
    ("month", 1, 12, _CRON_MONTHS),
    ("day-of-week", 0, 7, _CRON_DOW),
)


def _parse_cron(fields: list[str]) -> Rule:
    if len(fields) != 5:
        raise CommandError(rule_words.cron_field_count, count=len(fields), fields=" ".join(fields))
    fields = [field.casefold() for field in fields]
    values = [
        _parse_field(text, lo, hi, names, label) for text, (label, lo, hi, names) in zip(fields, _FIELDS, strict=True)
    ]
    minutes, hours, days, months, cron_dow = values
    return Rule(
        cron=" ".join(fields),
        minutes=tuple(sorted(minutes)),
        hours=tuple(sorted(hours)),
        days=frozenset(days),
        months=frozenset(months),
        weekdays=frozenset((d - 1) % 7 for d in cron_dow),  # cron 0/7 = Sunday -> 6, 1 = Monday -> 0
        day_star=fields[2].startswith("*"),
        weekday_star=fields[4].startswith("*"),
    )


def _parse_field(text: str, lo: int, hi: int, names: dict[str, int] | None, label: str) -> set[int]:
    result: set[int] = set()
    for part in text.split(","):
        base, _, step_text = part.partition("/")
        step = 1
        if step_text:
            parsed = whole_number(step_text)
            if not parsed:  # not a number, or 0
                raise CommandError(rule_words.bad_step, label=label, text=text, step=step_text)
            step = parsed
        if base == "*":
            first, last = lo, hi
        else:
            ends = base.split("-")
            if len(ends) > 2 or not all(ends):
                raise CommandError(rule_words.field_not_understood, label=label, text=text)
            first = _cron_value(ends[0], lo=lo, hi=hi, names=names, label=label, text=text)
            last = _cron_value(ends[-1], lo=lo, hi=hi, names=names, label=label, text=text) if len(ends) == 2 else first
            if step_text and len(ends) == 1:
                last = hi  # `5/15` means from 5 to the end, every 15
            if last < first:
                raise CommandError(rule_words.range_backwards, label=label, base=base)
        result.update(range(first, last + 1, step))
    if names is _CRON_DOW and 7 in result:
        result.discard(7)
        result.add(0)
    return result


def _cron_value(word: str, *, lo: int, hi: int, names: dict[str, int] | None, label: str, text: str) -> int:
    if names and word in names:
        return names[word]
    value = whole_number(word)
    if value is None:
        unsupported = [mark.upper() for mark in "lw#?" if mark in word]
        if unsupported:
            raise CommandError(rule_words.unsupported_mark, label=label, text=text, mark=unsupported[0])
        raise CommandError(rule_words.value_not_understood, label=label, text=text, word=word)
    if not lo <= value <= hi:
        raise CommandError(rule_words.out_of_range, label=label, value=value, lo=lo, hi=hi)
    return value


# --- timezones and durations -----------------------------------------------------------------------


def parse_timezone(text: str) -> str:
    """The canonical IANA name for `text` (case-insensitive), or a CommandError suggesting the closest names."""
    names = timezone_names()
    canonical = names.get(text.strip().casefold())
    if canonical is not None:
        try:
            ZoneInfo(canonical)
        except Exception:  # an entry the system cannot load
            canonical = None
    if canonical is None:
        raise CommandError(rule_words.unknown_timezone, text=text, nearest=nearest(text, names.values()))
    return canonical


def parse_duration(text: str, *, minimum: timedelta | None = None, maximum: timedelta | None = None) -> timedelta:
    """`90m`, `2h`, `1h30m`, `1d`, `45s` -> timedelta; a CommandError says what to write otherwise."""
    word = text.strip().casefold()
    match = _DURATION.match(word)
    if not word or match is None or not any(match.groups()):
        raise CommandError(rule_words.not_a_duration, text=text, digits=word.isdigit())
    if any(len(part or "") > 9 for part in match.groups()):  # more digits than int() converts, and no duration
        raise CommandError(rule_words.far_too_long, text=text)
    days, hours, minutes, seconds = (int(part or 0) for part in match.groups())
    try:
        value = timedelta(days=days, hours=hours, minutes=minutes, seconds=seconds)
    except OverflowError:
        raise CommandError(rule_words.far_too_long, text=text) from None
    if minimum is not None and value < minimum:
        raise CommandError(rule_words.too_short, text=text, least=minimum)
    if maximum is not None and value > maximum:
        raise CommandError(rule_words.too_long, text=text, most=maximum)
    return value
