"""Schedule rules, durations and local times in words (the schedule replies and the grammar's errors use them)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo

from bot.wording.i18n import translate as _


class RuleFields(Protocol):
    """What the words need of a schedule rule (bot/domain/schedules.py `Rule` has it; this module imports none)."""

    @property
    def cron(self) -> str: ...
    @property
    def minutes(self) -> tuple[int, ...]: ...
    @property
    def hours(self) -> tuple[int, ...]: ...
    @property
    def days(self) -> frozenset[int]: ...
    @property
    def months(self) -> frozenset[int]: ...
    @property
    def weekdays(self) -> frozenset[int]: ...
    @property
    def day_star(self) -> bool: ...
    @property
    def weekday_star(self) -> bool: ...


WEEKDAY_WORDS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_SHORT_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_SHORT_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _join(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) == 1:
        return items[0]
    return _("{items} and {last}", items=", ".join(items[:-1]), last=items[-1])


def _weekday_phrase(weekdays: frozenset[int]) -> str:
    if weekdays == frozenset(range(5)):
        return _("every weekday (Mon–Fri)")
    if weekdays == frozenset({5, 6}):
        return _("every Saturday and Sunday")
    return _("every {days}", days=_join([_(WEEKDAY_WORDS[d]) for d in sorted(weekdays)]))


def rule_words(rule: RuleFields) -> str:
    """The rule in words: `every weekday (Mon–Fri) at 09:30`."""
    times = [f"{h:02d}:{m:02d}" for h in rule.hours for m in rule.minutes]
    if len(times) > 4 or len(rule.months) != 12:
        return _("on the cron schedule `{cron}`", cron=rule.cron)
    at = _join(times)
    if rule.day_star and len(rule.days) == 31:  # only the day of the week decides
        if len(rule.weekdays) == 7:
            return _("every day at {times}", times=at)
        return _("{days} at {times}", days=_weekday_phrase(rule.weekdays), times=at)
    if rule.weekday_star and len(rule.weekdays) == 7:  # only the day of the month decides
        return _("on day {days} of every month at {times}", days=_join([str(d) for d in sorted(rule.days)]), times=at)
    return _("on the cron schedule `{cron}`", cron=rule.cron)


def duration(value: timedelta) -> str:
    """timedelta -> `1 h 30 min`, `24 h`, `2 d`, `45 s` (days from two days up)."""
    total = int(value.total_seconds())
    days, rest = divmod(total, 86400) if total >= 2 * 86400 else (0, total)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    parts = [
        _("{count} d", count=days) if days else "",
        _("{count} h", count=hours) if hours else "",
        _("{count} min", count=minutes) if minutes else "",
        _("{count} s", count=seconds) if seconds and not days and not hours else "",
    ]
    return " ".join(p for p in parts if p) or _("{count} min", count=0)


def local_time(when: datetime, tz: ZoneInfo) -> str:
    """An instant as the schedule's local time: `Mon 5 Jan 2026 09:30 EET`."""
    local = when.astimezone(tz)
    return _(
        "{weekday} {day} {month} {year} {time} {zone}",
        weekday=_(_SHORT_WEEKDAYS[local.weekday()]),
        day=local.day,
        month=_(_SHORT_MONTHS[local.month - 1]),
        year=local.year,
        time=f"{local:%H:%M}",
        zone=local.tzname(),
    )
