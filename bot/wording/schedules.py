"""Replies to `/quiz schedule ...`; times are always shown in the schedule's own timezone."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from bot.domain import ChannelRef, UserRef
from bot.ports import Message
from bot.scheduling.rules import DEFAULT_CLOSE_CAP, Slot, format_duration, format_local
from bot.scheduling.service import ScheduleView


def packs_text(view: ScheduleView) -> str:
    """`packs: a, b` or `packs: all`."""
    return "packs: " + (", ".join(view.pack_ids) if view.pack_ids else "all")


def close_text(view: ScheduleView) -> str:
    """How long each scheduled question stays open."""
    if view.close_after is not None:
        return f"each question closes after {format_duration(view.close_after)}"
    return f"each question closes when the next one is due (at most {format_duration(DEFAULT_CLOSE_CAP)})"


def paused_by_whom(name: str | None) -> str:
    """Who paused a schedule (None: someone no longer known, e.g. after `quizbot forget-user`)."""
    return f"paused by {name}" if name else "paused by someone who is no longer here"


def summary(view: ScheduleView, *, with_channel: bool = False) -> str:
    """One line about a schedule: id, rule in words, timezone, packs, and next fire or why it is paused."""
    parts = [f"#{view.id}"]
    if with_channel:
        parts.append(f"channel {view.channel.channel_id}")
    parts += [view.rule.describe(), view.timezone, packs_text(view)]
    if not view.enabled:
        reason = paused_by_whom(view.paused_by) if view.paused_by_user else view.paused_reason
        parts.append(f"paused ({reason})" if reason else "paused")
    elif view.next_slot is not None:
        parts.append(f"next: {format_local(view.next_slot.due, view.zone)}")
    return " · ".join(parts)


def added(view: ScheduleView, upcoming: Sequence[Slot]) -> Message:
    """The reply to `schedule add`: the rule in words and the next three fires in the schedule's timezone."""
    title = f"Scheduled #{view.id}: a question {view.rule.describe()}, {view.timezone} time."
    lines = [f"{packs_text(view).capitalize()}; {close_text(view)}."]
    lines += [f"{'Next' if i == 0 else 'Then'}: {format_local(s.due, view.zone)}" for i, s in enumerate(upcoming)]
    return Message(title=title, lines=tuple(lines))


def listing(views: Sequence[ScheduleView], *, everywhere: bool, here: ChannelRef) -> Message:
    """The reply to `schedule list`."""
    where = "this workspace" if everywhere else "this channel"
    if not views:
        return Message(
            title=f"No schedules in {where}.",
            lines=("Admins can add one, e.g. `/quiz schedule add weekdays 09:30`.",),
        )
    return Message(
        title=f"Schedules in {where}",
        lines=tuple(summary(view, with_channel=everywhere and view.channel != here) for view in views),
    )


def removed(view: ScheduleView, user: UserRef) -> Message:
    """The reply to `schedule remove`."""
    return Message(
        title=f"Removed schedule #{view.id} ({view.rule.describe()}, {view.timezone}).",
        lines=(f"Removed by {user.display_name or user.user_id}. Questions already posted stay.",),
    )


def paused(view: ScheduleView, user: UserRef, *, changed: bool) -> Message:
    """The reply to `schedule pause`."""
    if not changed:
        return Message(title=f"Schedule #{view.id} is already paused.", lines=(summary(view),))
    return Message(
        title=f"Paused schedule #{view.id} ({view.rule.describe()}).",
        lines=(f"`/quiz schedule resume {view.id}` starts it again.",),
    )


def resumed(view: ScheduleView, user: UserRef, *, changed: bool) -> Message:
    """The reply to `schedule resume`."""
    if not changed:
        return Message(title=f"Schedule #{view.id} is not paused.", lines=(summary(view),))
    lines = []
    if view.next_slot is not None:
        lines.append(f"Next: {format_local(view.next_slot.due, view.zone)}")
    return Message(title=f"Resumed schedule #{view.id} ({view.rule.describe()}).", lines=tuple(lines))


def next_here(view: ScheduleView | None, *, now: datetime) -> Message:
    """The reply to `schedule next`."""
    if view is None or view.next_slot is None:
        return Message(
            title="Nothing is scheduled in this channel.",
            lines=("Admins can add a schedule, e.g. `/quiz schedule add weekdays 09:30`.",),
        )
    wait = max(view.next_slot.due - now, timedelta())
    wait = timedelta(minutes=round(wait.total_seconds() / 60))
    return Message(
        title=f"Next question here: {format_local(view.next_slot.due, view.zone)} (in {format_duration(wait)}).",
        lines=(summary(view),),
    )
