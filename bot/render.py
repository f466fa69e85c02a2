"""Platform-neutral wording of replies: every adapter says the same thing, styled its own way."""

from __future__ import annotations

from collections.abc import Sequence

from bot.content import Catalog
from bot.domain import AnswerOutcome, AnswerResult, CohortBoard, Leaderboard, QuestionCard, UserStats
from bot.ports import Message

CHOICE_MARKS = "123456789X"


def plural(count: int, noun: str) -> str:
    """`1 day`, `3 days`."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def percent(value: float) -> str:
    """0.756 -> '76%'."""
    return f"{round(value * 100)}%"


def answer_message(result: AnswerResult) -> Message:
    """The private reply to a click."""
    if result.outcome is AnswerOutcome.ALREADY_ANSWERED:
        verdict = "right" if result.correct else "wrong"
        title = f"You already answered “{result.chosen}” ({verdict}). Only your first answer counts."
    elif result.outcome is AnswerOutcome.CLOSED:
        title = "This question is closed; answers are no longer recorded."
        if result.chosen is not None:
            title += f" You answered “{result.chosen}”."
    elif result.correct:
        title = f"Correct! “{result.correct_choice}”"
    else:
        title = f"Not quite. You picked “{result.chosen}”; the answer is “{result.correct_choice}”."
    lines = [result.explanation]
    if result.outcome is AnswerOutcome.CLOSED:
        lines.insert(0, f"The answer: “{result.correct_choice}”.")
    return Message(title=title, lines=tuple(lines))


def reveal_lines(card: QuestionCard) -> list[str]:
    """The reveal of a closed card: each choice with its count, the correct one marked, who got it right."""
    if card.reveal is None:
        return []
    reveal = card.reveal
    total = sum(reveal.counts)
    lines = []
    for position, (choice, count) in enumerate(zip(card.choices, reveal.counts, strict=True)):
        mark = "✅" if position == reveal.correct_position else "▫️"
        share = f" ({percent(count / total)})" if total else ""
        lines.append(f"{mark} {CHOICE_MARKS[position]}. {choice} — {count}{share}")
    lines.append(f"Answer: {card.choices[reveal.correct_position]}")
    lines.append(reveal.explanation)
    if reveal.correct_users:
        names = ", ".join(reveal.correct_users[:20])
        more = f" and {len(reveal.correct_users) - 20} more" if len(reveal.correct_users) > 20 else ""
        lines.append(f"Got it right: {names}{more}")
    elif total:
        lines.append("Nobody got it right this time.")
    return lines


def card_footer(card: QuestionCard) -> str:
    """`Data Parallelism Quiz · question 3 of 8 · 4 answers`."""
    answers = "1 answer" if card.answer_count == 1 else f"{card.answer_count} answers"
    state = " · closed" if card.is_closed else ""
    return f"{card.pack_title} · question {card.question_number} of {card.question_count} · {answers}{state}"


def streak_words(streak: int, day_streak: int) -> str:
    """` · 3 in a row · 4-day streak` (empty when both are 0)."""
    words = []
    if streak:
        words.append(f"{streak} in a row")
    if day_streak:
        words.append(f"{day_streak}-day streak")
    return "".join(f" · {word}" for word in words)


def leaderboard_message(board: Leaderboard) -> Message:
    """A leaderboard as lines: rank, name, points, accuracy, current streaks."""
    window = {"week": "this week", "month": "this month", "all": "all time"}[board.window]
    title = f"Leaderboard ({board.scope}, {window})"
    if not board.rows:
        return Message(title=title, lines=("No answers yet. Post a question with `/quiz now`.",))
    lines = [
        f"{row.rank}. {row.name} — {row.points} pts · {row.correct}/{row.answered} correct ({percent(row.accuracy)})"
        + streak_words(row.streak, row.day_streak)
        for row in board.rows
    ]
    return Message(title=title, lines=tuple(lines))


def cohort_board_message(board: CohortBoard) -> Message:
    """Cohort vs cohort: points per active member, with how many are active and their accuracy."""
    window = {"week": "this week", "month": "this month", "all": "since each cohort's start"}[board.window]
    title = f"Cohorts by points per active member ({window})"
    if not board.rows:
        return Message(title=title, lines=("No cohort has answers yet. Create one with `/quiz cohort create NAME`.",))
    lines = [
        f"{row.rank}. {row.name} — {row.points_per_member:.1f} pts per active member · "
        f"{row.active}/{row.members} active · {row.points} pts · accuracy {percent(row.accuracy)}"
        for row in board.rows
    ]
    return Message(title=title, lines=tuple(lines))


def stats_message(stats: UserStats) -> Message:
    """A user's own record."""
    cohorts = ("Cohorts: " + ", ".join(stats.cohorts),) if stats.cohorts else ()
    if stats.answered == 0:
        return Message(
            title=f"{stats.name}: no answers yet.", lines=("Answer a question to get on the board.", *cohorts)
        )
    lines = [
        f"Answered: {stats.answered} · correct: {stats.correct} · accuracy: {percent(stats.accuracy)}",
        f"Points: {stats.points} · rank: {stats.rank}",
        f"Streaks: {plural(stats.streak, 'scheduled question')} right in a row (best {stats.best_streak}) · "
        f"{plural(stats.day_streak, 'day')} in a row with an answer (best {stats.best_day_streak})",
    ]
    if stats.review_learning or stats.review_mastered:
        due = f"{stats.review_due} due now (`/quiz review`)" if stats.review_due else "nothing due now"
        lines.append(f"Review: {due} · {stats.review_learning} learning · {stats.review_mastered} mastered")
    lines.extend(cohorts)
    if stats.missed_tags:
        lines.append("Most missed topics: " + ", ".join(f"{tag} ({n})" for tag, n in stats.missed_tags))
    return Message(title=f"Your quiz record, {stats.name}", lines=tuple(lines))


def packs_message(catalog: Catalog) -> Message:
    """The loaded packs."""
    lines = [f"{pack.id} — {pack.title} ({len(pack.questions)} questions)" for pack in catalog.packs]
    return Message(title="Quiz packs", lines=tuple(lines) or ("No packs are loaded.",))


def help_message(lines: Sequence[str]) -> Message:
    """The help text."""
    return Message(title="quizbot commands", lines=tuple(lines))
