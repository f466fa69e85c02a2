"""Flags on questions: the "Report a problem" button, `/quiz flag`, `/quiz flags` and `quizbot content flags`.

Reasons and names are people's own text: they are shown as `visible_line`s in quotes (no control or invisible
characters), and each adapter escapes them for its markup like any other text.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.domain.drafts import slug_of_key
from bot.domain.flags import FlaggedQuestion, FlagOutcome, FlagResult, FlagsCleared, visible_line
from bot.ports import Message
from bot.wording.commands import did_you_mean
from bot.wording.i18n import echo, percent, plural
from bot.wording.i18n import translate as _

REASONS_SHOWN = 3
"""Reasons listed per question in chat (each cut to REASON_WIDTH); the rest are counted."""
REASON_WIDTH = 160
QUESTIONS_SHOWN = 8
"""Questions listed in chat, so the list fits one Discord embed; `quizbot content flags` prints them all."""
PROMPT_WIDTH = 90
CLEAR_USAGE = "/quiz flags clear PACK/QUESTION"


def _short(text: str, width: int = PROMPT_WIDTH) -> str:
    flat = visible_line(text)
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


def _ref(pack_id: str, key: str) -> str:
    return f"{slug_of_key(pack_id)}/{key}"  # a team pack by the slug people type


# --- the button and the hint -------------------------------------------------------------------------------


def report_button() -> str:
    """The label of the button under a private answer reply."""
    return _("Report a problem")


def report_hint() -> str:
    """Where there is no button (the terminal): how to report a problem with the question just answered."""
    return _("Something wrong with this question? `/quiz flag REASON` reports it.")


# --- /quiz flag ---------------------------------------------------------------------------------------------


def flag_message(result: FlagResult) -> Message:
    """The private reply to a flag: recorded (or updated, or already there), on which question, and what next."""
    question = _("“{prompt}” ({ref})", prompt=_short(result.prompt), ref=_ref(result.pack_id, result.key))
    reason = _("Your reason: “{reason}”", reason=result.reason) if result.reason else None
    if result.outcome is FlagOutcome.ALREADY_FLAGGED:
        title = _("You have already reported this question; your report stands.")
        lines = [question, reason or _("To add a reason, type `/quiz flag REASON`.")]
    elif result.outcome is FlagOutcome.REASON_UPDATED:
        title = _("Your report on this question now has your new reason.")
        lines = [question, reason or ""]
    else:
        title = _("Thanks, your report is recorded.")
        lines = [question, reason or _("Tell us what is wrong with `/quiz flag REASON` (it is added to this report).")]
    if result.paused:
        lines.append(
            _(
                "{people} reported it, so it is out of rotation here until an admin reviews it.",
                people=plural(result.open_flags, "person", "people"),
            )
        )
    return Message(title, tuple(line for line in lines if line))


def nothing_to_flag() -> str:
    """`/quiz flag` in a channel with no question yet."""
    return _("There is no question here to report yet. Answer one first, or post one with `/quiz now`.")


# --- /quiz flags --------------------------------------------------------------------------------------------


def _question_lines(
    question: FlaggedQuestion, *, everywhere: bool, reasons: int | None, width: int | None = None
) -> list[str]:
    state = []
    if question.paused:
        where = _(" in {n}", n=plural(question.paused_in, "workspace")) if everywhere else ""
        state.append(_("paused{where}", where=where))
    if not question.active:
        state.append(_("no longer in its pack"))
    accuracy = (
        _(
            "{accuracy} right ({answers})",
            accuracy=percent(question.accuracy),
            answers=plural(question.answered, "answer"),
        )
        if question.answered
        else _("no answers yet")
    )
    head = _(
        "{ref} · {title} #{number} · flagged by {people} · {accuracy}",
        ref=_ref(question.pack_id, question.key),
        title=_short(question.pack_title, 60),
        number=question.number,
        people=plural(question.flags, "person", "people"),
        accuracy=accuracy,
    )
    lines = [head + "".join(f" · {word}" for word in state), _("  “{prompt}”", prompt=_short(question.prompt))]
    shown = question.reasons if reasons is None else question.reasons[:reasons]
    for flag in shown:
        reason = _short(flag.reason, width) if flag.reason and width else flag.reason
        said = _("“{reason}”", reason=reason) if reason else _("(no reason given)")
        lines.append(
            _(
                "  – {name}, {day}: {said}",
                name=_short(flag.name, 60) or "?",
                day=flag.flagged_at.date().isoformat(),
                said=said,
            )
        )
    if len(question.reasons) > len(shown):
        lines.append(_("  … and {n} more", n=len(question.reasons) - len(shown)))
    return lines


def listing_message(questions: Sequence[FlaggedQuestion], *, threshold: int) -> Message:
    """`/quiz flags` (admins): the workspace's flagged questions, most flagged first, and how to clear one."""
    if not questions:
        return Message(_("No flagged questions."), (_("People report a problem with the button under their answer."),))
    lines: list[str] = []
    for question in questions[:QUESTIONS_SHOWN]:
        lines += _question_lines(question, everywhere=False, reasons=REASONS_SHOWN, width=REASON_WIDTH)
    if len(questions) > QUESTIONS_SHOWN:
        lines.append(
            _(
                "… and {more}; an operator prints them all with `quizbot content flags`.",
                more=plural(len(questions) - QUESTIONS_SHOWN, "more question"),
            )
        )
    lines.append(
        _(
            "A question reported by {people} is paused here. After fixing or checking it: `{usage}`.",
            people=plural(threshold, "person", "people"),
            usage=CLEAR_USAGE,
        )
    )
    return Message(_("Flagged questions ({n})", n=len(questions)), tuple(lines))


def authors_message(questions: Sequence[FlaggedQuestion], *, threshold: int, scope: str) -> Message:
    """`quizbot content flags`: the same for pack authors, every reason, with the pack and question ids to edit."""
    if not questions:
        return Message(_("No flagged questions in {scope}.", scope=scope))
    lines: list[str] = []
    for question in questions:
        lines += _question_lines(question, everywhere=True, reasons=None)
    lines.append(
        _(
            "Edit the question (pack id/question id above) in its pack file and check it with `quizbot content "
            "check`; an admin then clears its flags in chat with `{usage}`. Paused: reported by {people} in a "
            "workspace.",
            usage=CLEAR_USAGE,
            people=plural(threshold, "person", "people"),
        )
    )
    return Message(_("Flagged questions in {scope} ({n})", scope=scope, n=len(questions)), tuple(lines))


def authors_scope(workspaces: Sequence[str]) -> str:
    """What `quizbot content flags` read: one workspace by name (`slack:T0001`), or how many."""
    if len(workspaces) == 1:
        return workspaces[0]
    return plural(len(workspaces), "workspace") if workspaces else _("this database")


def no_such_workspace(known: Sequence[str]) -> str:
    """`quizbot content flags --platform/--workspace` matching no workspace."""
    return _(
        "no workspace matches --platform/--workspace; workspaces in this database: {known}",
        known=", ".join(known) or _("none yet"),
    )


def cleared_message(result: FlagsCleared) -> Message:
    """`/quiz flags clear PACK/QUESTION`."""
    ref = _ref(result.pack_id, result.key)
    prompt = (_("“{prompt}”", prompt=_short(result.prompt)),)
    if not result.cleared:
        return Message(_("{ref} has no open flags here; nothing changed.", ref=ref), prompt)
    flags = plural(result.cleared, "flag")
    return Message(_("Cleared {flags} on {ref}: it is back in rotation here.", flags=flags, ref=ref), prompt)


def unknown_question(pack_id: str, key: str) -> str:
    """`/quiz flags clear` naming a question that does not exist."""
    return _("There is no question {ref}. `/quiz flags` lists the flagged ones.", ref=_ref(pack_id, key))


def all_paused(packs: Sequence[str]) -> str:
    """`/quiz now` (or a schedule) when every question it could post is paused by flags."""
    return _(
        "Every question of {packs} is paused because people reported problems with them; an admin can review "
        "them with `/quiz flags`.",
        packs=", ".join(packs),
    )


def curriculum_paused(left: int) -> str:
    """`/quiz cohort next` when every question left in the curriculum is paused by flags."""
    return _(
        "The {questions} left in this curriculum are paused because people reported problems with them; an admin "
        "can review them with `/quiz flags`.",
        questions=plural(left, "question"),
    )


# --- the grammar --------------------------------------------------------------------------------------------


def not_a_question(text: str) -> str:
    """`/quiz flags clear` given something that is not `PACK/QUESTION`."""
    return _(
        "`{text}` is not a question: write its pack id and question id as `PACK/QUESTION`, e.g. "
        "`data-parallelism/dp-gpu-holds` (`/quiz flags` lists them).",
        text=echo(text),
    )


def which_question_to_clear() -> str:
    """`/quiz flags clear` without a question."""
    return _(
        "Say which question to clear: `{usage}`, e.g. `/quiz flags clear data-parallelism/dp-gpu-holds`.",
        usage=CLEAR_USAGE,
    )


def not_a_flags_action(word: str, nearest: Sequence[str] = ()) -> str:
    """`/quiz flags WORD` for a word that is not an action (with the nearest action, if one is near)."""
    return _(
        "`{word}` is not a flags action.{hint} Try `/quiz flags` or `{usage}`.",
        word=echo(word),
        hint=did_you_mean(nearest),
        usage=CLEAR_USAGE,
    )


# --- the report ---------------------------------------------------------------------------------------------


def report_lines(questions: Sequence[FlaggedQuestion], limit: int = 3) -> list[str]:
    """The flagged questions in `/quiz report`: most flagged first, with their accuracy."""
    if not questions:
        return []
    lines = [_("Reported as wrong:")]
    for question in questions[:limit]:
        paused = _(" · paused") if question.paused else ""
        accuracy = _("{share} right", share=percent(question.accuracy)) if question.answered else _("no answers")
        lines.append(
            _(
                "  {flags} · {accuracy}{paused}: {prompt} ({ref})",
                flags=plural(question.flags, "flag"),
                accuracy=accuracy,
                paused=paused,
                prompt=_short(question.prompt, 70),
                ref=_ref(question.pack_id, question.key),
            )
        )
    if len(questions) > limit:
        lines.append(_("  … and {n} more: `/quiz flags`", n=len(questions) - limit))
    return lines
