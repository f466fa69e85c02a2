"""The private replies to a click and to a review answer."""

from __future__ import annotations

from bot.domain import AnswerOutcome, AnswerResult, ranking
from bot.ports import Message
from bot.wording.i18n import plural
from bot.wording.i18n import translate as _


def verdict(*, correct: bool, chosen: str | None, correct_choice: str) -> str:
    """`Correct! “…”` or `Not quite. You picked “…”; the answer is “…”.` (clicks and reviews alike)."""
    if correct:
        return _("Correct! “{answer}”", answer=correct_choice)
    return _("Not quite. You picked “{chosen}”; the answer is “{answer}”.", chosen=chosen, answer=correct_choice)


def answer_message(result: AnswerResult) -> Message:
    """The private reply to a click."""
    if result.outcome is AnswerOutcome.ALREADY_ANSWERED:
        right = _("right") if result.correct else _("wrong")
        title = _(
            "You already answered “{chosen}” ({verdict}). Only your first answer counts.",
            chosen=result.chosen,
            verdict=right,
        )
    elif result.outcome is AnswerOutcome.CLOSED:
        title = _("This question is closed; answers are no longer recorded.")
        if result.chosen is not None:
            title += _(" You answered “{chosen}”.", chosen=result.chosen)
    else:
        title = verdict(correct=bool(result.correct), chosen=result.chosen, correct_choice=result.correct_choice)
    lines = [result.explanation]
    if result.outcome is AnswerOutcome.CLOSED:
        lines.insert(0, _("The answer: “{answer}”.", answer=result.correct_choice))
    if result.outcome is AnswerOutcome.RECORDED and result.points is not None:
        lines.append(standing(points=result.points, rank=result.rank))
    return Message(title=title, lines=tuple(lines))


def standing(*, points: int, rank: int | None) -> str:
    """What a correct answer earned: `18 points for this answer; you are now #2 on this channel's leaderboard.`
    (rank None: the clicker is below the board's first RANKED_TOP places, which the verdict does not read)."""
    if rank is None:
        return _(
            "{points} for this answer; you are outside the top {top} of this channel's leaderboard.",
            points=plural(points, "point"),
            top=f"{ranking.RANKED_TOP:,}",
        )
    return _(
        "{points} for this answer; you are now #{rank} on this channel's leaderboard.",
        points=plural(points, "point"),
        rank=rank,
    )


def busy() -> str:
    """The reply to a click refused because too many clicks are waiting to be recorded (nothing was recorded)."""
    return _("The quiz bot is busy right now and did not record that click. Please click again in a moment.")


def no_such_choice(choice_index: int) -> str:
    """The refusal of a click whose button names no choice of the question (nothing was recorded)."""
    return _("That button does not match a choice of this question ({choice}).", choice=choice_index)
