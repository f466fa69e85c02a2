"""Replies to `/quiz schedule ...`; times are always shown in the schedule's own timezone."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from bot.domain import ChannelRef, Delivery, UserRef
from bot.domain.drafts import slug_of_key
from bot.domain.schedules import DEFAULT_CLOSE_CAP, Slot
from bot.domain.views import ScheduleView
from bot.ports import Message
from bot.wording.i18n import plural
from bot.wording.i18n import translate as _
from bot.wording.times import duration as format_duration
from bot.wording.times import local_time as format_local
from bot.wording.times import rule_words


def _packs(view: ScheduleView) -> str:
    return ", ".join(slug_of_key(pack) for pack in view.pack_ids) if view.pack_ids else _("all")


def packs_text(view: ScheduleView) -> str:
    """`packs: a, b` or `packs: all`; for a cohort schedule, whose curriculum it delivers and how."""
    if view.cohort is not None:
        return cohort_text(view)
    return _("packs: {packs}", packs=_packs(view))


def cohort_text(view: ScheduleView) -> str:
    """What a cohort schedule delivers: `cohort onboarding's curriculum, privately to each member`."""
    if view.delivery is Delivery.DM:
        return _(
            "cohort {cohort}'s curriculum, privately to each member at this time in their own timezone",
            cohort=view.cohort,
        )
    return _("cohort {cohort}'s curriculum, in this channel", cohort=view.cohort)


def close_text(view: ScheduleView) -> str:
    """How long each scheduled question stays open."""
    if view.close_after is not None:
        return _("each question closes after {duration}", duration=format_duration(view.close_after))
    return _(
        "each question closes when the next one is due (at most {duration})",
        duration=format_duration(DEFAULT_CLOSE_CAP),
    )


def paused_by_whom(name: str | None) -> str:
    """Who paused a schedule (None: someone no longer known, e.g. after `quizbot forget-user`)."""
    return f"paused by {name}" if name else "paused by someone who is no longer here"


def summary(view: ScheduleView, *, with_channel: bool = False) -> str:
    """One line about a schedule: id, rule in words, timezone, packs, and next fire or why it is paused."""
    parts = [_("#{id}", id=view.id)]
    if with_channel:
        parts.append(_("channel {channel}", channel=view.channel.channel_id))
    parts += [rule_words(view.rule), view.timezone, packs_text(view)]
    if not view.enabled:
        reason = paused_by_whom(view.paused_by) if view.paused_by_user else view.paused_reason
        parts.append(_("paused ({reason})", reason=reason) if reason else _("paused"))
    elif view.next_slot is not None:
        parts.append(_("next: {when}", when=format_local(view.next_slot.due, view.zone)))
    return " · ".join(parts)


def added(view: ScheduleView, upcoming: Sequence[Slot]) -> Message:
    """The reply to `schedule add`: the rule in words and the next three fires in the schedule's timezone."""
    title = _(
        "Scheduled #{id}: a question {rule}, {timezone} time.",
        id=view.id,
        rule=rule_words(view.rule),
        timezone=view.timezone,
    )
    if view.cohort is not None:
        lines = [_("Delivers {what}; {closes}.", what=cohort_text(view), closes=close_text(view))]
    else:
        lines = [_("Packs: {packs}; {closes}.", packs=_packs(view), closes=close_text(view))]
    lines += [
        _("Next: {when}", when=format_local(s.due, view.zone))
        if i == 0
        else _("Then: {when}", when=format_local(s.due, view.zone))
        for i, s in enumerate(upcoming)
    ]
    return Message(title=title, lines=tuple(lines))


def listing(views: Sequence[ScheduleView], *, everywhere: bool, here: ChannelRef) -> Message:
    """The reply to `schedule list`."""
    if not views:
        return Message(
            title=_("No schedules in this workspace.") if everywhere else _("No schedules in this channel."),
            lines=(_("Leads and admins can add one, e.g. `/quiz schedule add weekdays 09:30`."),),
        )
    return Message(
        title=_("Schedules in this workspace") if everywhere else _("Schedules in this channel"),
        lines=tuple(summary(view, with_channel=everywhere and view.channel != here) for view in views),
    )


def removed(view: ScheduleView, user: UserRef) -> Message:
    """The reply to `schedule remove`."""
    return Message(
        title=_(
            "Removed schedule #{id} ({rule}, {timezone}).",
            id=view.id,
            rule=rule_words(view.rule),
            timezone=view.timezone,
        ),
        lines=(_("Removed by {name}. Questions already posted stay.", name=user.display_name or user.user_id),),
    )


def paused(view: ScheduleView, user: UserRef, *, changed: bool) -> Message:
    """The reply to `schedule pause`."""
    if not changed:
        return Message(title=_("Schedule #{id} is already paused.", id=view.id), lines=(summary(view),))
    return Message(
        title=_("Paused schedule #{id} ({rule}).", id=view.id, rule=rule_words(view.rule)),
        lines=(_("`/quiz schedule resume {id}` starts it again.", id=view.id),),
    )


def resumed(view: ScheduleView, user: UserRef, *, changed: bool) -> Message:
    """The reply to `schedule resume`."""
    if not changed:
        return Message(title=_("Schedule #{id} is not paused.", id=view.id), lines=(summary(view),))
    lines = []
    if view.next_slot is not None:
        lines.append(_("Next: {when}", when=format_local(view.next_slot.due, view.zone)))
    return Message(
        title=_("Resumed schedule #{id} ({rule}).", id=view.id, rule=rule_words(view.rule)), lines=tuple(lines)
    )


def next_here(view: ScheduleView | None, *, now: datetime) -> Message:
    """The reply to `schedule next`."""
    if view is None or view.next_slot is None:
        return Message(
            title=_("Nothing is scheduled in this channel."),
            lines=(_("Leads and admins can add a schedule, e.g. `/quiz schedule add weekdays 09:30`."),),
        )
    wait = max(view.next_slot.due - now, timedelta())
    wait = timedelta(minutes=round(wait.total_seconds() / 60))
    return Message(
        title=_(
            "Next question here: {when} (in {wait}).",
            when=format_local(view.next_slot.due, view.zone),
            wait=format_duration(wait),
        ),
        lines=(summary(view),),
    )


def already_posts_here(schedule_id: int, rule: str, timezone: str) -> str:
    """`schedule add` of a rule, timezone and packs the channel already has (`rule` in words)."""
    return _(
        "Schedule #{id} already posts here {rule} ({timezone}). `/quiz schedule list` shows it.",
        id=schedule_id,
        rule=rule,
        timezone=timezone,
    )


def cohort_takes_no_packs(cohort: str) -> str:
    """`schedule add ... cohort:NAME` with packs too: a cohort schedule follows the cohort's curriculum."""
    return _(
        "A cohort schedule delivers cohort {cohort}'s own curriculum; leave the packs out "
        "(the curriculum is set with `/quiz cohort create {cohort} packs:...`).",
        cohort=cohort,
    )


def cohort_already_scheduled(schedule_id: int, cohort: str) -> str:
    """`schedule add ... cohort:NAME` when that cohort already has a schedule of this rule and timezone."""
    return _(
        "Schedule #{id} already delivers cohort {cohort} on this rule. `/quiz schedule list all` shows it.",
        id=schedule_id,
        cohort=cohort,
    )


def curriculum_done() -> str:
    """Why a cohort schedule's fire (or a member's) posted nothing: the curriculum has been delivered."""
    return _("the cohort's curriculum has been delivered in full")


def too_many(count: int) -> str:
    """`schedule add` in a channel at the most schedules allowed."""
    return _(
        "This channel has {schedules}, the most allowed; remove one first (`/quiz schedule list` shows them).",
        schedules=plural(count, "schedule"),
    )


def unknown_schedule(schedule_id: int) -> str:
    """A schedule id that is not in this workspace."""
    return _("There is no schedule #{id} in this workspace; `/quiz schedule list all` shows them.", id=schedule_id)


def platform_refused_post(detail: object) -> str:
    """Why the scheduler paused a schedule: the platform refused its post (stored, shown by `schedule list`)."""
    return _("the platform refused the post: {detail}", detail=detail)
