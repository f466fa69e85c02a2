"""Schedule rules as values: a parsed rule (five cron fields), its slots, and when it fires in an IANA timezone,
daylight-saving changes included. Pure: no I/O and no words (the grammar that reads rules is bot/schedule_rules.py,
their words are bot/wording/times.py).

Rules are evaluated here rather than with APScheduler's CronTrigger, on purpose. CronTrigger 3.11.3 returns the
fall-back hour's second occurrence over and over (and a rule would post twice that day), and its
`from_crontab` reads day-of-week 1 as Tuesday where cron means Monday. The semantics here:

- Each fire has a *slot*: the rule's local calendar date and wall time (`2026-03-29T03:30`). Slots are what the
  database claims, so one slot posts once whatever the clocks do.
- On the day clocks go back, a wall time that happens twice fires at its first occurrence only.
- On the day clocks go forward, a wall time in the skipped hour fires once, shifted forward by the gap
  (03:30 in a 03:00->04:00 jump fires at 04:30). If that lands on the instant of another slot of the same rule,
  the two are one fire.
- Cron fields follow Vixie cron: day-of-week 0 or 7 is Sunday; when both day-of-month and day-of-week are
  restricted (neither starts with `*`) a day matches if either does.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo, available_timezones

MIN_INTERVAL = timedelta(minutes=10)
"""A rule may not fire more often than this (a question every minute is a typo, not a quiz)."""

MAX_SEARCH_DAYS = 366 * 8 + 2
"""How far ahead a next fire is looked for (covers 29 February across a non-leap century year)."""

SLOT_FORMAT = "%Y-%m-%dT%H:%M"

DEFAULT_CLOSE_CAP = timedelta(hours=24)
"""A scheduled question with no `close:` closes when the next one is due, but never later than this."""


class NeverFires(ValueError):
    """A rule with no date it can fire on (`0 9 30 2 *`): the grammar words it (bot/schedule_rules.py)."""

    def __init__(self, cron: str) -> None:
        super().__init__(cron)
        self.cron = cron


@dataclass(frozen=True, slots=True)
class Slot:
    """One fire of a rule: `key` is the local date and wall time the rule names, `due` the UTC instant it fires."""

    key: str
    due: datetime
    shifted: bool = False


@dataclass(frozen=True, slots=True)
class Rule:
    """A parsed rule. `cron` (five standard cron fields) is what is stored; everything else derives from it."""

    cron: str
    minutes: tuple[int, ...]
    hours: tuple[int, ...]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]  # Python numbering: 0 = Monday
    day_star: bool
    weekday_star: bool

    # --- evaluation ------------------------------------------------------------------------------

    def matches(self, day: date) -> bool:
        """Whether the rule fires at all on this local calendar date."""
        if day.month not in self.months:
            return False
        dom = day.day in self.days
        dow = day.weekday() in self.weekdays
        if self.day_star or self.weekday_star:
            return dom and dow
        return dom or dow

    def slots_on(self, day: date, tz: ZoneInfo) -> list[Slot]:
        """The rule's fires on one local date, earliest first (DST gaps shifted, duplicates merged)."""
        if not self.matches(day):
            return []
        by_instant: dict[datetime, Slot] = {}
        for hour in self.hours:
            for minute in self.minutes:
                wall = datetime.combine(day, time(hour, minute))
                # fold=0: an ambiguous time is its first occurrence; a skipped time keeps the offset from before
                # the jump, which lands it after the jump by the size of the gap.
                due = wall.replace(tzinfo=tz).astimezone(UTC)
                shifted = due.astimezone(tz).replace(tzinfo=None) != wall
                slot = Slot(key=wall.strftime(SLOT_FORMAT), due=due, shifted=shifted)
                existing = by_instant.get(due)
                if existing is None or (existing.shifted and not shifted):
                    by_instant[due] = slot
        return sorted(by_instant.values(), key=lambda s: s.due)

    def next_slot(self, after: datetime, tz: ZoneInfo) -> Slot:
        """The first fire strictly after the instant `after`."""
        start = after.astimezone(tz).date() - timedelta(days=1)
        best: Slot | None = None
        last_day: date | None = None
        for offset in range(MAX_SEARCH_DAYS):
            day = start + timedelta(days=offset)
            if last_day is not None and day > last_day:
                break
            for slot in self.slots_on(day, tz):
                if slot.due > after and (best is None or slot.due < best.due):
                    best = slot
                    # A DST shift moves a fire by hours, never past the next day: one more day settles it.
                    last_day = day + timedelta(days=1)
        if best is None:
            raise NeverFires(self.cron)
        return best

    def last_slot(self, at_or_before: datetime, tz: ZoneInfo) -> Slot | None:
        """The latest fire at or before the instant `at_or_before` (None if there is none within the search span)."""
        start = at_or_before.astimezone(tz).date() + timedelta(days=1)
        best: Slot | None = None
        first_day: date | None = None
        for offset in range(MAX_SEARCH_DAYS):
            day = start - timedelta(days=offset)
            if first_day is not None and day < first_day:
                break
            for slot in self.slots_on(day, tz):
                if slot.due <= at_or_before and (best is None or slot.due > best.due):
                    best = slot
                    first_day = day - timedelta(days=1)
        return best

    def upcoming(self, after: datetime, tz: ZoneInfo, count: int) -> list[Slot]:
        """The next `count` fires after `after`."""
        slots: list[Slot] = []
        for _ in range(count):
            slots.append(self.next_slot(slots[-1].due if slots else after, tz))
        return slots


@lru_cache(maxsize=1)
def timezone_names() -> dict[str, str]:
    """Every IANA timezone name, by its casefolded form."""
    return {name.casefold(): name for name in available_timezones()} | {"utc": "UTC"}


def is_timezone(text: str) -> bool:
    """Whether `text` is an IANA timezone name (any case)."""
    return text.strip().casefold() in timezone_names()


@dataclass(frozen=True, slots=True, order=True)
class FireKey:
    """Names one fire slot: a schedule and the local slot key its rule names (`2026-01-05T09:00`)."""

    schedule_id: int
    slot_key: str

    def __str__(self) -> str:
        """`12:2026-01-05T09:00`: the slot's post's `source_ref`, and how reports and logs name the slot."""
        return f"{self.schedule_id}:{self.slot_key}"

    @classmethod
    def parse(cls, text: str) -> FireKey:
        """The key written by `str(key)`; ValueError if `text` is not one."""
        schedule, separator, slot_key = text.partition(":")
        if not separator or not schedule.isdigit() or not slot_key:
            raise ValueError(f"not a fire key: {text!r}")
        return cls(schedule_id=int(schedule), slot_key=slot_key)
