"""Schedule rules: parsing and its messages, words, and fire times across both DST changes in two timezones."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from apscheduler.triggers.cron import CronTrigger
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.errors import CommandError
from bot.schedule_rules import load_rule, parse_duration, parse_rule, parse_timezone, split_rule
from bot.wording.times import duration as format_duration
from bot.wording.times import local_time as format_local
from bot.wording.times import rule_words

HELSINKI = ZoneInfo("Europe/Helsinki")
NEW_YORK = ZoneInfo("America/New_York")


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "cron", "words"),
    [
        ("daily 09:00", "0 9 * * *", "every day at 09:00"),
        ("every day at 9:00", "0 9 * * *", "every day at 09:00"),
        ("weekdays 09:30", "30 9 * * 1-5", "every weekday (Mon–Fri) at 09:30"),
        ("weekdays 9:30am", "30 9 * * 1-5", "every weekday (Mon–Fri) at 09:30"),
        ("mon,wed,fri 14:00", "0 14 * * 1,3,5", "every Monday, Wednesday and Friday at 14:00"),
        ("mon, wed, fri at 2pm", "0 14 * * 1,3,5", "every Monday, Wednesday and Friday at 14:00"),
        ("Mondays 8:15 pm", "15 20 * * 1", "every Monday at 20:15"),
        ("tue-thu 12:00", "0 12 * * 2,3,4", "every Tuesday, Wednesday and Thursday at 12:00"),
        ("weekends 10:00", "0 10 * * 0,6", "every Saturday and Sunday at 10:00"),
        ("sun 12am", "0 0 * * 0", "every Sunday at 00:00"),
        ("30 9 * * 1-5", "30 9 * * 1-5", "every weekday (Mon–Fri) at 09:30"),
        ("0 9 * * MON-FRI", "0 9 * * mon-fri", "every weekday (Mon–Fri) at 09:00"),
        ("0 9 * * 7", "0 9 * * 7", "every Sunday at 09:00"),
        ("0 9,17 * * sat,sun", "0 9,17 * * sat,sun", "every Saturday and Sunday at 09:00 and 17:00"),
        ("0 9 1 * *", "0 9 1 * *", "on day 1 of every month at 09:00"),
        ("0 9 1,15 * mon", "0 9 1,15 * mon", "on the cron schedule `0 9 1,15 * mon`"),
        ("*/15 9-17 * * 1-5", "*/15 9-17 * * 1-5", "on the cron schedule `*/15 9-17 * * 1-5`"),
    ],
)
def test_rules_parse_to_cron_and_read_back_in_words(text: str, cron: str, words: str) -> None:
    rule = parse_rule(text)
    assert rule.cron == cron
    assert rule_words(rule) == words
    assert load_rule(rule.cron) == rule  # what is stored parses back to the same rule


def test_a_rule_is_read_from_the_front_of_the_words_and_the_rest_is_left() -> None:
    rule, rest = split_rule(["weekdays", "09:30", "data-parallelism", "tz:Europe/Helsinki"])
    assert rule.cron == "30 9 * * 1-5"
    assert rest == ["data-parallelism", "tz:Europe/Helsinki"]
    rule, rest = split_rule(["30", "9", "*", "*", "1-5", "pack"])
    assert (rule.cron, rest) == ("30 9 * * 1-5", ["pack"])
    rule, rest = split_rule(["30 9 * * 1-5", "pack"])  # quoted
    assert (rule.cron, rest) == ("30 9 * * 1-5", ["pack"])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Say when"),
        ("tomorrow 09:00", "`tomorrow` is not a day rule"),
        ("09:00", "Start with the days, then the time"),
        ("weekdays", "Add a time after `weekdays`"),
        ("daily 25:00", "`25:00` is not a time"),
        ("daily 9", "`9` is not a time"),
        ("daily 13pm", "`13pm` is not a time"),
        ("fri-mon 09:00", "`fri-mon` goes backwards"),
        ("0 9 * *", "A cron rule has five fields"),
        ("61 9 * * *", "minute value `61` is out of range 0-59"),
        ("0 24 * * *", "hour value `24` is out of range 0-23"),
        ("0 9 L * *", "uses `L`, which is not supported"),
        ("0 9 * * 1#2", "uses `#`, which is not supported"),
        ("0 9 * * 5-1", "range `5-1` goes backwards"),
        ("0 9 */0 * *", "bad step `/0`"),
        ("0 9 */" + "7" * 5000 + " * *", "bad step `/7777"),  # more digits than int() converts: refused, no crash
        ("0 9 */² * *", "bad step `/²`"),
        ("0 9 31 2 *", "never fires"),
        ("* * * * *", "would post every 1 min; schedules post at most every 10 minutes"),
        ("*/5 9 * * *", "would post every 5 min"),
        ("daily 09:00 extra", "Did not understand `extra`"),
    ],
)
def test_bad_rules_say_what_to_write(text: str, message: str) -> None:
    with pytest.raises(CommandError, match=message):
        parse_rule(text)


@given(st.lists(st.text(max_size=12), max_size=7))
@settings(max_examples=150, deadline=None)
def test_any_words_give_a_rule_or_a_command_error(words: list[str]) -> None:
    try:
        split_rule(words)
    except CommandError:
        pass


@given(st.lists(st.text(max_size=12), max_size=7))
@settings(max_examples=100, deadline=None)
def test_every_rule_refusal_carries_a_key_of_the_rule_words(words: list[str]) -> None:
    key = "rules."
    try:
        split_rule(words)
    except CommandError as refused:
        key = refused.key
    assert key.startswith("rules."), key


def test_a_rule_refusal_carries_its_key_and_values_and_is_worded_at_the_edge() -> None:
    with pytest.raises(CommandError) as refused:
        parse_rule("9:30 weekdays")
    assert (refused.value.key, refused.value.values) == ("rules.days_first", {"time_text": "9:30"})
    assert refused.value.worded() == "Start with the days, then the time: e.g. `daily 9:30` or `weekdays 9:30`."
    with pytest.raises(CommandError) as too_long:
        parse_duration("8d", maximum=timedelta(days=7))
    assert (too_long.value.key, too_long.value.values) == ("rules.too_long", {"text": "8d", "most": timedelta(days=7)})


# --- next fires ---------------------------------------------------------------------------------------


def test_next_three_fires_of_a_weekday_rule_skip_the_weekend() -> None:
    rule = parse_rule("weekdays 09:30")
    friday_noon = utc(2026, 1, 9, 12)
    fires = rule.upcoming(friday_noon, HELSINKI, 3)
    assert [format_local(s.due, HELSINKI) for s in fires] == [
        "Mon 12 Jan 2026 09:30 EET",
        "Tue 13 Jan 2026 09:30 EET",
        "Wed 14 Jan 2026 09:30 EET",
    ]
    assert [s.key for s in fires] == ["2026-01-12T09:30", "2026-01-13T09:30", "2026-01-14T09:30"]


@pytest.mark.parametrize(
    ("zone", "rule_text", "start", "day", "expected_utc", "expected_local"),
    [
        # Clocks go forward: 03:00 -> 04:00 in Helsinki, 02:00 -> 03:00 in New York. The skipped wall time fires
        # once, shifted by the gap.
        ("Europe/Helsinki", "daily 03:30", utc(2026, 3, 27, 12), date(2026, 3, 29), utc(2026, 3, 29, 1, 30), "04:30"),
        ("America/New_York", "daily 02:30", utc(2026, 3, 6, 12), date(2026, 3, 8), utc(2026, 3, 8, 7, 30), "03:30"),
        # Clocks go back: 04:00 -> 03:00 in Helsinki, 02:00 -> 01:00 in New York. The repeated wall time fires once,
        # at its first occurrence.
        (
            "Europe/Helsinki",
            "daily 03:30",
            utc(2026, 10, 23, 12),
            date(2026, 10, 25),
            utc(2026, 10, 25, 0, 30),
            "03:30",
        ),
        ("America/New_York", "daily 01:30", utc(2026, 10, 30, 12), date(2026, 11, 1), utc(2026, 11, 1, 5, 30), "01:30"),
    ],
)
def test_a_rule_in_a_dst_change_fires_once_that_day(
    zone: str,
    rule_text: str,
    start: datetime,
    day: date,
    expected_utc: datetime,
    expected_local: str,
) -> None:
    tz = ZoneInfo(zone)
    rule = parse_rule(rule_text)
    fires = rule.upcoming(start, tz, 3)
    on_day = [s for s in fires if s.key.startswith(day.isoformat())]
    assert len(on_day) == 1
    (fire,) = on_day
    assert fire.due == expected_utc
    assert fire.due.astimezone(tz).strftime("%H:%M") == expected_local
    assert fire.key == f"{day.isoformat()}T{rule_text.split()[1]}"
    # the day before and the day after fire once each, at the rule's own wall time
    assert [s.key[:10] for s in fires] == [
        (day - timedelta(days=1)).isoformat(),
        day.isoformat(),
        (day + timedelta(days=1)).isoformat(),
    ]
    for other in (fires[0], fires[2]):
        assert other.due.astimezone(tz).strftime("%H:%M") == rule_text.split()[1]


@pytest.mark.parametrize("zone", [HELSINKI, NEW_YORK])
@pytest.mark.parametrize("wall", ["00:30", "01:30", "02:30", "03:30", "04:30", "09:00", "23:30"])
def test_a_daily_rule_fires_exactly_once_every_local_day_for_a_year(zone: ZoneInfo, wall: str) -> None:
    rule = parse_rule(f"daily {wall}")
    fires = rule.upcoming(datetime(2026, 1, 1, tzinfo=zone) - timedelta(microseconds=1), zone, 365)
    keys = [s.key for s in fires]
    assert len(set(keys)) == 365
    assert [date.fromisoformat(k[:10]) for k in keys] == [date(2026, 1, 1) + timedelta(days=i) for i in range(365)]
    assert all(b.due > a.due for a, b in itertools.pairwise(fires))
    # local wall time is kept except on the spring-forward day, where it moves by the gap only
    assert sum(s.due.astimezone(zone).strftime("%H:%M") != wall for s in fires) <= 1


def test_a_weekday_rule_keeps_its_local_time_across_dst_and_its_utc_time_moves() -> None:
    rule = parse_rule("weekdays 09:00")
    before = rule.next_slot(utc(2026, 3, 27, 0), HELSINKI)  # Friday before the change
    after = rule.next_slot(utc(2026, 3, 28, 0), HELSINKI)  # the Monday after
    assert (before.key, before.due) == ("2026-03-27T09:00", utc(2026, 3, 27, 7))
    assert (after.key, after.due) == ("2026-03-30T09:00", utc(2026, 3, 30, 6))


def test_two_wall_times_landing_on_one_instant_in_the_gap_fire_once() -> None:
    rule = parse_rule("0 2,3 * * *")
    fires = rule.upcoming(utc(2026, 3, 8, 0), NEW_YORK, 2)  # 02:00 is skipped and would land on 03:00
    assert [(s.key, s.due) for s in fires] == [
        ("2026-03-08T03:00", utc(2026, 3, 8, 7)),
        ("2026-03-09T02:00", utc(2026, 3, 9, 6)),
    ]


def test_last_slot_is_the_latest_fire_at_or_before_an_instant() -> None:
    rule = parse_rule("weekdays 09:00")
    monday_morning = utc(2026, 1, 12, 6)  # 08:00 in Helsinki
    last = rule.last_slot(monday_morning, HELSINKI)
    assert last is not None
    assert last.key == "2026-01-09T09:00"  # Friday
    exactly = rule.last_slot(utc(2026, 1, 12, 7), HELSINKI)
    assert exactly is not None
    assert exactly.key == "2026-01-12T09:00"


_DOW_NAMES = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]


@given(
    minutes=st.sets(st.integers(0, 59).map(lambda m: m - m % 10), min_size=1, max_size=3),
    hours=st.sets(st.integers(0, 23), min_size=1, max_size=3),
    weekdays=st.sets(st.integers(0, 6), min_size=1, max_size=7),
    start=st.datetimes(min_value=datetime(2024, 1, 1), max_value=datetime(2030, 1, 1)),
    zone=st.sampled_from(["UTC", "Asia/Tokyo", "Asia/Kolkata"]),  # no DST: APScheduler is right there
)
@settings(max_examples=150, deadline=None)
def test_next_fire_agrees_with_apscheduler_cron_trigger_where_there_is_no_dst(
    minutes: set[int], hours: set[int], weekdays: set[int], start: datetime, zone: str
) -> None:
    cron_dow = ",".join(str((d + 1) % 7) for d in sorted(weekdays))  # cron numbering: 0 = Sunday
    rule = load_rule(f"{','.join(map(str, sorted(minutes)))} {','.join(map(str, sorted(hours)))} * * {cron_dow}")
    tz = ZoneInfo(zone)
    trigger = CronTrigger(
        minute=",".join(map(str, sorted(minutes))),
        hour=",".join(map(str, sorted(hours))),
        day_of_week=",".join(_DOW_NAMES[d] for d in sorted(weekdays)),  # names: APScheduler's 0 is Monday
        timezone=tz,
    )
    after = start.replace(tzinfo=UTC)
    expected = trigger.get_next_fire_time(None, after + timedelta(microseconds=1))
    assert rule.next_slot(after, tz).due == expected


# --- timezones and durations -----------------------------------------------------------------------


def test_timezones_are_matched_case_insensitively_and_typos_get_suggestions() -> None:
    assert parse_timezone("europe/helsinki") == "Europe/Helsinki"
    assert parse_timezone("utc") == "UTC"
    with pytest.raises(CommandError, match=r"Unknown timezone `Europe/Helsinky`. Did you mean `Europe/Helsinki`"):
        parse_timezone("Europe/Helsinky")
    with pytest.raises(CommandError, match="Unknown timezone `Mars/Olympus`"):
        parse_timezone("Mars/Olympus")


def test_durations() -> None:
    assert parse_duration("90m") == timedelta(minutes=90)
    assert parse_duration("1h30m") == timedelta(hours=1, minutes=30)
    assert parse_duration("2d") == timedelta(days=2)
    assert format_duration(timedelta(hours=1, minutes=30)) == "1 h 30 min"
    assert format_duration(timedelta(hours=24)) == "24 h"
    assert format_duration(timedelta(days=3, hours=2)) == "3 d 2 h"
    with pytest.raises(CommandError, match=r"Add a unit: `90m` for minutes"):
        parse_duration("90")
    with pytest.raises(CommandError, match="too long; the most is 7 d"):
        parse_duration("8d", maximum=timedelta(days=7))
    with pytest.raises(CommandError, match="far too long"):
        parse_duration("999999999999d")
