"""Replies to `/quiz cohort ...`: created, listed, shown, joined, left, members added and removed."""

from __future__ import annotations

from bot.domain import Delivery
from bot.ports import Message
from bot.service.views import CohortView
from bot.wording.i18n import plural
from bot.wording.i18n import translate as _


def delivery_text(delivery: Delivery) -> str:
    """How a cohort's schedules deliver its curriculum, in one clause."""
    if delivery is Delivery.DM:
        return _(
            "delivered privately: each member gets the next question as a direct message at the schedule's time "
            "in their own timezone"
        )
    return _("delivered in the channel of each of its schedules")


def created_message(view: CohortView) -> Message:
    """The reply to `/quiz cohort create`."""
    packs = ", ".join(p.pack_id for p in view.curriculum)
    return Message(
        _("Created cohort {name}, starting {start}.", name=view.name, start=view.start_date.isoformat()),
        (
            _(
                "Curriculum: {packs} ({questions}, in this order).",
                packs=packs,
                questions=plural(view.total, "question"),
            ),
            _("Curriculum {delivery}.", delivery=delivery_text(view.delivery)),
            _(
                "Members join with `/quiz cohort join {name}`; an admin or you can `/quiz cohort add {name} @someone`. "
                "Post its next question here with `/quiz cohort next {name}`, or put it on a schedule with "
                "`/quiz schedule add weekdays 09:00 cohort:{name}`.",
                name=view.name,
            ),
        ),
    )


def delivery_set(name: str, delivery: Delivery, *, changed: bool) -> Message:
    """The reply to `/quiz cohort set NAME deliver:...`."""
    if not changed:
        return Message(_("Cohort {name} is already {delivery}.", name=name, delivery=delivery_text(delivery)))
    return Message(_("Cohort {name} is now {delivery}.", name=name, delivery=delivery_text(delivery)))


def unknown_delivery(word: str) -> str:
    """`deliver:` followed by something that is not a way of delivering."""
    return _("`deliver:{word}` is not a delivery: use `deliver:dm` (privately) or `deliver:channel`.", word=word)


def set_usage() -> str:
    """`/quiz cohort set` without a cohort and a setting."""
    return _("Usage: `/quiz cohort set NAME deliver:dm` or `/quiz cohort set NAME deliver:channel`.")


def cannot_deliver_privately(platform: str) -> str:
    """A private delivery on a platform whose adapter cannot send direct messages (stored on the claim)."""
    return _("{platform} cannot send direct messages here", platform=platform)


def list_message(views: list[CohortView]) -> Message:
    """The reply to `/quiz cohort list`."""
    if not views:
        return Message(_("No cohorts yet."), (_("Create one with `/quiz cohort create NAME [start:YYYY-MM-DD]`."),))
    lines = [
        _(
            "{name} — from {start} · {members} members · {posted}/{total} questions asked",
            name=v.name,
            start=v.start_date.isoformat(),
            members=len(v.members),
            posted=v.posted,
            total=v.total,
        )
        for v in views
    ]
    return Message(_("Cohorts"), tuple(lines))


def show_message(view: CohortView) -> Message:
    """The reply to `/quiz cohort show NAME`: curriculum progress and members' progress."""
    members = plural(len(view.members), "member")
    start = view.start_date.isoformat()
    lines = [
        _("Starts {start} · created by {creator} · {members}", start=start, creator=view.created_by, members=members)
        if view.created_by
        else _("Starts {start} · {members}", start=start, members=members),
        _("Curriculum: {posted} of {total} questions asked", posted=view.posted, total=view.total),
        _("Delivery: {delivery}.", delivery=delivery_text(view.delivery)),
    ]
    lines += [
        _("  {title} ({pack}): {posted}/{total}", title=p.title, pack=p.pack_id, posted=p.posted, total=p.total)
        for p in view.curriculum
    ]
    if view.members:
        lines.append(_("Members (cohort questions answered, right, points since the start):"))
        lines += [
            _(
                "  {name} — {answered}/{posted} answered · {correct} right · {points} pts",
                name=m.name,
                answered=m.answered,
                posted=view.posted,
                correct=m.correct,
                points=m.points,
            )
            for m in view.members
        ]
    else:
        lines.append(_("No members yet: `/quiz cohort join {name}`.", name=view.name))
    return Message(_("Cohort {name}", name=view.name), tuple(lines))


def joined(name: str, *, new: bool) -> Message:
    """The reply to `/quiz cohort join NAME`."""
    title = _("You joined cohort {name}.", name=name) if new else _("You are already in cohort {name}.", name=name)
    return Message(title, (_("See it with `/quiz cohort show {name}`.", name=name),))


def left(name: str, *, was_member: bool) -> Message:
    """The reply to `/quiz cohort leave NAME`."""
    if was_member:
        return Message(_("You left cohort {name}.", name=name))
    return Message(_("You are not in cohort {name}.", name=name))


def added(name: str, added: list[str], already: list[str]) -> Message:
    """The reply to `/quiz cohort add NAME @user...`."""
    lines = (_("Already members: {users}.", users=", ".join(already)),) if already else ()
    if added:
        title = _("Added {users} to cohort {name}.", users=", ".join(added), name=name)
    else:
        title = _("Nobody new added to {name}.", name=name)
    return Message(title, lines)


def removed(name: str, removed: list[str], missing: list[str]) -> Message:
    """The reply to `/quiz cohort remove NAME @user...`."""
    lines = (_("Not members: {users}.", users=", ".join(missing)),) if missing else ()
    if removed:
        title = _("Removed {users} from cohort {name}.", users=", ".join(removed), name=name)
    else:
        title = _("Nobody was removed.")
    return Message(title, lines)


def curriculum_done(name: str) -> Message:
    """`/quiz cohort next NAME` when every curriculum question has been asked."""
    return Message(_("Cohort {name} has been asked every question of its curriculum.", name=name))


def next_posted(name: str) -> Message:
    """`/quiz cohort next NAME` posted a question."""
    return Message(_("Posted the next question of {name}'s curriculum.", name=name))


def deleted(name: str) -> Message:
    """The reply to `/quiz cohort delete NAME`."""
    return Message(_("Deleted cohort {name}. Answers and points of its members are kept.", name=name))


def not_allowed(cohort: str, action: str) -> str:
    """Why a member who is neither an admin nor the cohort's creator may not `action` (e.g. `add members`).

    `action` comes translated (`bot.wording.commands.action_words`)."""
    return _("Only workspace admins and the creator of cohort {cohort} can {action}.", cohort=cohort, action=action)


def already_exists(name: str) -> str:
    """`/quiz cohort create NAME` when the workspace has a cohort of that name."""
    return _("A cohort named `{name}` already exists here. See `/quiz cohort show {name}`.", name=name)


def no_longer_exists(cohort_id: int) -> str:
    """A cohort deleted while its next question was being picked."""
    return _("Cohort {id} no longer exists.", id=cohort_id)


def unknown_cohort(name: str, known: list[str]) -> str:
    """No cohort of that name here: the cohorts there are, and how to create one."""
    there = _("Cohorts here: {names}.", names=", ".join(known)) if known else _("There are no cohorts here yet.")
    return _("No cohort named `{name}`. {there} Create one with `/quiz cohort create NAME`.", name=name, there=there)
