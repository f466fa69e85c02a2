"""Replies to `/quiz cohort ...`: created, listed, shown (with each member's progress), joined, left, members added
and removed, reminded; and the private nudge a member who is behind gets."""

from __future__ import annotations

from collections.abc import Sequence
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.domain import Delivery
from bot.domain.attention import AttentionRules
from bot.domain.drafts import slug_of_key
from bot.domain.views import CohortView, DueQuestion, MemberProgress, Nudge
from bot.ports import Message
from bot.wording.i18n import echo, plural, shorten
from bot.wording.i18n import translate as _
from bot.wording.times import local_time


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
    packs = ", ".join(slug_of_key(p.pack_id) for p in view.curriculum)
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
    return _("`deliver:{word}` is not a delivery: use `deliver:dm` (privately) or `deliver:channel`.", word=echo(word))


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
            "{name} — from {start} · {members} · {posted}/{questions} asked",
            name=v.name,
            start=v.start_date.isoformat(),
            members=plural(len(v.members), "member"),
            posted=v.posted,
            questions=plural(v.total, "question"),
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
        _("Curriculum: {posted} of {questions} asked", posted=view.posted, questions=plural(view.total, "question")),
        _("Delivery: {delivery}.", delivery=delivery_text(view.delivery)),
    ]
    lines += [
        _(
            "  {title} ({pack}): {posted}/{total}",
            title=p.title,
            pack=slug_of_key(p.pack_id),
            posted=p.posted,
            total=p.total,
        )
        for p in view.curriculum
    ]
    if view.members:
        lines += member_lines(view.members, posts=view.posts)
        lines += attention_lines(view.members, view.rules, name=view.name)
    else:
        lines.append(_("No members yet: `/quiz cohort join {name}`.", name=view.name))
    return Message(_("Cohort {name}", name=view.name), tuple(lines))


MAX_MEMBER_LINES = 30
"""Members listed one a line in chat; more are counted (the HTML report lists them all)."""
NAME_WIDTH = 40


def member_lines(members: Sequence[MemberProgress], *, posts: int) -> list[str]:
    """The per-member table in chat: a heading, then one line a member, those needing attention first.

    `ann — 2/3 answered · 1 right · 40 pts (20 elsewhere) · last active 2026-01-06 · ⚠ behind`: cohort progress
    first (curriculum questions answered of those posted to the cohort, right), then points since the start, with
    how many of them came from other questions than the cohort's.
    """
    shown = sorted(members, key=lambda m: not m.needs_attention)[:MAX_MEMBER_LINES]
    lines = [
        _(
            "Members: cohort questions answered of the {posted} posted, right, points since the start "
            "(earned on other questions in brackets), last active:",
            posted=posts,
        )
    ]
    lines += [member_line(m, posts=posts) for m in shown]
    if len(members) > len(shown):
        lines.append(_("  … and {more}", more=plural(len(members) - len(shown), "more member")))
    return lines


def member_line(member: MemberProgress, *, posts: int) -> str:
    """One member: `ann — 2/3 answered · 1 right · 40 pts (20 elsewhere) · last active 2026-01-06`."""
    points = (
        _("{points} ({elsewhere} elsewhere)", points=plural(member.points, "pt"), elsewhere=member.points_elsewhere)
        if member.points_elsewhere
        else plural(member.points, "pt")
    )
    line = _(
        "  {name} — {answered}/{posted} answered · {correct} right · {points} · {active}",
        name=shorten(member.name, NAME_WIDTH),
        answered=member.answered,
        posted=posts if member.sent is None else member.sent,
        correct=member.correct,
        points=points,
        active=last_active(member),
    )
    flags = attention_flags(member)
    return _("{line} · ⚠ {flags}", line=line, flags=flags) if flags else line


def last_active(member: MemberProgress) -> str:
    """`last active 2026-01-06`, or `never answered`."""
    if member.last_active is None:
        return _("never answered")
    return _("last active {day}", day=member.last_active.isoformat())


def attention_flags(member: MemberProgress) -> str:
    """`behind`, `inactive`, `behind, inactive`, or empty."""
    return ", ".join(word for word, on in ((_("behind"), member.behind), (_("inactive"), member.inactive)) if on)


def attention_lines(members: Sequence[MemberProgress], rules: AttentionRules, *, name: str) -> list[str]:
    """What the flags mean, and how to nudge who is behind."""
    lines = [
        _(
            "Behind: missed the cohort's last {questions}. Inactive: no answer in {days}.",
            questions=plural(rules.behind_after, "question"),
            days=plural(rules.inactive_days, "day"),
        )
    ]
    behind = sum(1 for m in members if m.behind)
    if behind:
        lines.append(
            _(
                "{count} behind: `/quiz cohort remind {name}` sends each a private nudge.",
                count=plural(behind, "member"),
                name=name,
            )
        )
    return lines


def reminded(name: str, *, nudged: int, unreachable: int, behind: int) -> Message:
    """The reply to `/quiz cohort remind NAME`: how many were nudged (and how many could not be reached)."""
    if behind == 0:
        return Message(_("Nobody in {name} is behind: nobody to nudge.", name=name))
    if nudged == 0 and unreachable == 0:
        return Message(
            _(
                "Nobody nudged: the {count} of {name} who are behind have no open question to answer.",
                count=plural(behind, "member"),
                name=name,
            )
        )
    title = _("Nudged {count} of {name} privately.", count=plural(nudged, "member"), name=name)
    lines = []
    if unreachable:
        lines.append(
            _("Could not reach {count} (they may not accept direct messages).", count=plural(unreachable, "member"))
        )
    return Message(title, tuple(lines))


def no_direct_messages(platform: str) -> str:
    """`/quiz cohort remind` on a platform whose adapter cannot send private messages."""
    return _("The {platform} adapter cannot send private messages, so nobody was nudged.", platform=platform)


def nudge_message(nudge: Nudge) -> Message:
    """The private nudge to a member who is behind: their due cohort questions, oldest first."""
    title = _(
        "You have {count} waiting in cohort {name}.",
        count=plural(len(nudge.due), "question"),
        name=nudge.cohort,
    )
    lines = [due_line(due) for due in nudge.due[:MAX_MEMBER_LINES]]
    if len(nudge.due) > MAX_MEMBER_LINES:
        lines.append(_("  … and {more}", more=plural(len(nudge.due) - MAX_MEMBER_LINES, "more question")))
    lines.append(_("Answer them on their cards in the channel."))
    return Message(title, tuple(lines))


def due_line(due: DueQuestion) -> str:
    """`• How does all-reduce … (Data Parallelism Quiz) — closes Tue 6 Jan 2026 09:00 EET`."""
    prompt = shorten(due.prompt, 90)
    if due.closes_at is None:
        return _("• {prompt} ({pack})", prompt=prompt, pack=due.pack_title)
    return _(
        "• {prompt} ({pack}) — closes {when}",
        prompt=prompt,
        pack=due.pack_title,
        when=local_time(due.closes_at, _zone(due.timezone)),
    )


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


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
    """Why a member who is neither a lead, an admin nor the cohort's creator may not `action` (e.g. `add members`).

    `action` comes translated (`bot.wording.commands.action_words`)."""
    return _("Only leads, admins and the creator of cohort {cohort} can {action}.", cohort=cohort, action=action)


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
