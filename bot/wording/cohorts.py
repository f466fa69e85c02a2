"""Replies to `/quiz cohort ...`: created, listed, shown, joined, left, members added and removed."""

from __future__ import annotations

from bot.ports import Message
from bot.service.cohorts import CohortView


def created_message(view: CohortView) -> Message:
    """The reply to `/quiz cohort create`."""
    packs = ", ".join(p.pack_id for p in view.curriculum)
    return Message(
        f"Created cohort {view.name}, starting {view.start_date.isoformat()}.",
        (
            f"Curriculum: {packs} ({view.total} questions, in this order).",
            f"Members join with `/quiz cohort join {view.name}`; an admin or you can `/quiz cohort add "
            f"{view.name} @someone`. Post its next question here with `/quiz cohort next {view.name}`.",
        ),
    )


def list_message(views: list[CohortView]) -> Message:
    """The reply to `/quiz cohort list`."""
    if not views:
        return Message("No cohorts yet.", ("Create one with `/quiz cohort create NAME [start:YYYY-MM-DD]`.",))
    lines = [
        f"{v.name} — from {v.start_date.isoformat()} · {len(v.members)} members · {v.posted}/{v.total} questions asked"
        for v in views
    ]
    return Message("Cohorts", tuple(lines))


def show_message(view: CohortView) -> Message:
    """The reply to `/quiz cohort show NAME`: curriculum progress and members' progress."""
    by = f" · created by {view.created_by}" if view.created_by else ""
    lines = [
        f"Starts {view.start_date.isoformat()}{by} · {len(view.members)} members",
        f"Curriculum: {view.posted} of {view.total} questions asked",
    ]
    lines += [f"  {p.title} ({p.pack_id}): {p.posted}/{p.total}" for p in view.curriculum]
    if view.members:
        lines.append("Members (cohort questions answered, right, points since the start):")
        lines += [
            f"  {m.name} — {m.answered}/{view.posted} answered · {m.correct} right · {m.points} pts"
            for m in view.members
        ]
    else:
        lines.append(f"No members yet: `/quiz cohort join {view.name}`.")
    return Message(f"Cohort {view.name}", tuple(lines))


def joined(name: str, *, new: bool) -> Message:
    """The reply to `/quiz cohort join NAME`."""
    verb = "You joined" if new else "You are already in"
    return Message(f"{verb} cohort {name}.", ("See it with `/quiz cohort show " + name + "`.",))


def left(name: str, *, was_member: bool) -> Message:
    """The reply to `/quiz cohort leave NAME`."""
    return Message(f"You left cohort {name}." if was_member else f"You are not in cohort {name}.")


def added(name: str, added: list[str], already: list[str]) -> Message:
    """The reply to `/quiz cohort add NAME @user...`."""
    lines = (f"Already members: {', '.join(already)}.",) if already else ()
    title = f"Added {', '.join(added)} to cohort {name}." if added else f"Nobody new added to {name}."
    return Message(title, lines)


def removed(name: str, removed: list[str], missing: list[str]) -> Message:
    """The reply to `/quiz cohort remove NAME @user...`."""
    lines = (f"Not members: {', '.join(missing)}.",) if missing else ()
    title = f"Removed {', '.join(removed)} from cohort {name}." if removed else "Nobody was removed."
    return Message(title, lines)


def curriculum_done(name: str) -> Message:
    """`/quiz cohort next NAME` when every curriculum question has been asked."""
    return Message(f"Cohort {name} has been asked every question of its curriculum.")


def next_posted(name: str) -> Message:
    """`/quiz cohort next NAME` posted a question."""
    return Message(f"Posted the next question of {name}'s curriculum.")


def deleted(name: str) -> Message:
    """The reply to `/quiz cohort delete NAME`."""
    return Message(f"Deleted cohort {name}. Answers and points of its members are kept.")


def not_allowed(cohort: str, action: str) -> str:
    """Why a member who is neither an admin nor the cohort's creator may not `action` (e.g. `add members`)."""
    return f"Only workspace admins and the creator of cohort {cohort} can {action}."
