"""What the schedule-rule grammar (bot/schedule_rules.py) says when a rule, timezone or duration cannot be used.

Every rule, option or command suggested here is one the grammar accepts as written (tests/unit/test_schedule_rules.py
parses each); typed text is quoted through `echo` (capped).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from bot.wording.commands import did_you_mean
from bot.wording.i18n import echo
from bot.wording.i18n import translate as _
from bot.wording.times import duration

EXAMPLES = "`daily 09:00`, `weekdays 09:30`, `mon,wed,fri 14:00` or a cron rule such as `30 9 * * 1-5`"


def examples() -> str:
    """The rule forms, as examples."""
    return _(EXAMPLES)


def never_fires(cron: str) -> str:
    """A rule with no date it can fire on (`0 9 30 2 *`)."""
    return _("The rule `{cron}` never fires. Try {examples}.", cron=cron, examples=examples())


def left_over(rest: str) -> str:
    """Words after a whole rule that were not understood."""
    return _("Did not understand `{rest}` after the rule. Try {examples}.", rest=echo(rest), examples=examples())


def left_over_in_quotes(rest: str, quoted: str) -> str:
    """Words in a quoted rule after the rule itself."""
    return _(
        "Did not understand `{rest}` in `{quoted}`. Try {examples}.",
        rest=echo(rest),
        quoted=echo(quoted),
        examples=examples(),
    )


def say_when() -> str:
    """No rule at all."""
    return _("Say when, e.g. {examples}.", examples=examples())


def too_often(cron: str, minutes: int, limit: int) -> str:
    """A rule that would post more often than schedules may."""
    return _(
        "`{cron}` would post every {minutes} min; schedules post at most every {limit} minutes.",
        cron=cron,
        minutes=minutes,
        limit=limit,
    )


def every_what() -> str:
    """`every` alone."""
    return _("Every what? Try {examples}.", examples=examples())


def interval(typed: str, cron: str) -> str:
    """`every 2 hours`: schedules post at times of day, and this cron rule is the nearest one that does."""
    return _(
        "Schedules post at times of day, not every so often: for `{typed}` use the cron rule `{cron}`, "
        "e.g. `/quiz schedule add {cron}`.",
        typed=echo(typed),
        cron=cron,
    )


def add_a_time(days: str) -> str:
    """Days without a time."""
    return _("Add a time after `{days}`, e.g. `{days} 09:30`.", days=echo(days))


def days_first(time_text: str) -> str:
    """A time where the days should be (`9:30 weekdays`); `time_text` is a time the grammar accepts."""
    return _("Start with the days, then the time: e.g. `daily {time}` or `weekdays {time}`.", time=echo(time_text))


def not_a_day_rule(text: str) -> str:
    """Days that are not days."""
    return _(
        "`{text}` is not a day rule. Use `daily`, `weekdays`, `weekends`, days such as `mon,wed,fri` "
        "or `mon-thu`, or a five-field cron rule such as `30 9 * * 1-5`.",
        text=echo(text),
    )


def day_range_backwards(part: str) -> str:
    """`fri-mon`."""
    return _("The day range `{part}` goes backwards; write it from Monday towards Sunday.", part=echo(part))


def not_a_time(text: str) -> str:
    """A time that is not HH:MM."""
    return _("`{text}` is not a time: write 24-hour HH:MM such as `09:30` (or `9:30am`).", text=echo(text))


def cron_field_count(count: int, fields: str) -> str:
    """A cron rule without five fields."""
    return _(
        "A cron rule has five fields (minute hour day-of-month month day-of-week); got {count}: "
        "`{fields}`. Example: `30 9 * * 1-5` is 09:30 Monday to Friday.",
        count=count,
        fields=echo(fields),
    )


def bad_step(label: str, text: str, step: str) -> str:
    """`*/0`."""
    return _(
        "The cron {label} field `{text}` has a bad step `/{step}`.", label=_(label), text=echo(text), step=echo(step)
    )


def field_not_understood(label: str, text: str) -> str:
    """A cron field that is not numbers, ranges and steps."""
    return _("The cron {label} field `{text}` is not understood.", label=_(label), text=echo(text))


def range_backwards(label: str, base: str) -> str:
    """`5-1` in a cron field."""
    return _("The cron {label} range `{base}` goes backwards.", label=_(label), base=echo(base))


def unsupported_mark(label: str, text: str, mark: str) -> str:
    """`L`, `W`, `#`, `?` in a cron field."""
    return _(
        "The cron {label} field `{text}` uses `{mark}`, which is not supported.",
        label=_(label),
        text=echo(text),
        mark=mark,
    )


def value_not_understood(label: str, text: str, word: str) -> str:
    """A word in a cron field that is no number or name."""
    return _(
        "The cron {label} field `{text}` is not understood (`{word}`).",
        label=_(label),
        text=echo(text),
        word=echo(word),
    )


def out_of_range(label: str, value: int, lo: int, hi: int) -> str:
    """`61` as a minute."""
    return _("The cron {label} value `{value}` is out of range {lo}-{hi}.", label=_(label), value=value, lo=lo, hi=hi)


def unknown_timezone(text: str, nearest: Sequence[str]) -> str:
    """A timezone that is not an IANA name, with the closest names."""
    return _(
        "Unknown timezone `{text}`.{hint} Use an IANA name such as `Europe/Helsinki` or `America/New_York`.",
        text=echo(text),
        hint=did_you_mean(nearest),
    )


def not_a_duration(text: str, *, digits: bool) -> str:
    """A duration that is not `30m`, `2h`, ...; a bare number gets told to add a unit."""
    word = echo(text.strip().casefold())
    hint = " " + _("Add a unit: `{word}m` for minutes or `{word}h` for hours.", word=word) if digits else ""
    return _("`{text}` is not a duration.{hint} Examples: `30m`, `2h`, `1h30m`, `1d`.", text=echo(text), hint=hint)


def far_too_long(text: str) -> str:
    """A duration past what a timedelta holds."""
    return _("`{text}` is far too long.", text=echo(text))


def too_short(text: str, least: timedelta) -> str:
    """A duration under the minimum."""
    return _("`{text}` is too short; the least is {least}.", text=echo(text), least=duration(least))


def too_long(text: str, most: timedelta) -> str:
    """A duration over the maximum."""
    return _("`{text}` is too long; the most is {most}.", text=echo(text), most=duration(most))
