"""Question cards: the footer and the reveal of a closed card, as structured text adapters style."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.domain import PostSource, QuestionCard
from bot.domain.drafts import slug_of_key
from bot.ports import Message
from bot.wording.errors import UNKNOWN_POST
from bot.wording.i18n import percent, plural
from bot.wording.i18n import translate as _
from bot.wording.times import duration, local_time

CHOICE_MARKS = "123456789X"
MAX_NAMED_WINNERS = 20


@dataclass(frozen=True, slots=True)
class RevealText:
    """The reveal of a closed card, by part, so no adapter has to slice lines by position.

    `choices[i]` is the i-th shown choice with its mark and count; `answer` names the correct choice;
    `winners` says who got it right (None when nobody answered).
    """

    choices: tuple[str, ...]
    correct_position: int
    answer: str
    explanation: str
    winners: str | None

    @property
    def lines(self) -> list[str]:
        """Every part as plain lines, in reading order (the terminal prints these)."""
        return [*self.choices, self.answer, self.explanation, *([self.winners] if self.winners else [])]


def reveal_text(card: QuestionCard) -> RevealText | None:
    """The reveal of a closed card: each choice with its count, the correct one marked, who got it right."""
    if card.reveal is None:
        return None
    reveal = card.reveal
    total = sum(reveal.counts)
    choices = []
    for position, (choice, count) in enumerate(zip(card.choices, reveal.counts, strict=True)):
        mark = "✅" if position == reveal.correct_position else "▫️"
        share = f" ({percent(count / total)})" if total else ""
        choices.append(f"{mark} {CHOICE_MARKS[position]}. {choice} — {count}{share}")
    winners: str | None = None
    if reveal.correct_users:
        names = ", ".join(reveal.correct_users[:MAX_NAMED_WINNERS])
        extra = len(reveal.correct_users) - MAX_NAMED_WINNERS
        more = _(" and {count} more", count=extra) if extra > 0 else ""
        winners = _("Got it right: {names}{more}", names=names, more=more)
    elif total:
        winners = _("Nobody got it right this time.")
    return RevealText(
        choices=tuple(choices),
        correct_position=reveal.correct_position,
        answer=_("Answer: {answer}", answer=card.choices[reveal.correct_position]),
        explanation=reveal.explanation,
        winners=winners,
    )


def reveal_lines(card: QuestionCard) -> list[str]:
    """The reveal as plain lines (empty for an open card)."""
    text = reveal_text(card)
    return text.lines if text else []


def card_footer(card: QuestionCard) -> str:
    """`Data Parallelism Quiz · question 3 · 8 questions in the pack · 4 answers`; `question 7 (retired)` once retired.

    The number is the question's place in its pack, not how far the channel has got (a rotation starts anywhere):
    worded as "question 8 of 8" it read like the last question on a channel's first post.
    """
    answers = plural(card.answer_count, "answer")
    state = _(" · closed") if card.is_closed else ""
    if card.retired:
        return _(
            "{pack} · question {number} (retired) · {answers}{state}",
            pack=card.pack_title,
            number=card.question_number,
            answers=answers,
            state=state,
        )
    return _(
        "{pack} · question {number} · {questions} in the pack · {answers}{state}",
        pack=card.pack_title,
        questions=plural(card.question_count, "question"),
        number=card.question_number,
        answers=answers,
        state=state,
    )


def card_origin(card: QuestionCard) -> str:
    """Why the card was posted: `Scheduled`, `Cohort spring-26`, `On demand`."""
    if card.source is PostSource.SCHEDULE:
        return _("Scheduled")
    if card.source is PostSource.COHORT:
        return _("Cohort {name}", name=card.cohort) if card.cohort else _("Cohort question")
    return _("On demand")


def card_closing(card: QuestionCard) -> str:
    """When an open card closes, in the channel's timezone: `open 2 h, closes at 11:30 EET`.

    The duration is counted from the posting, not from now, so the line stays true on every edit of the card.
    A card that closes on another local day than it opened names the day.
    """
    if card.closes_at is None:
        return _("open until revealed")
    zone = _zone(card.timezone)
    closes = card.closes_at.astimezone(zone)
    if card.opened_at is None:
        return _("closes {when}", when=local_time(card.closes_at, zone))
    if card.opened_at.astimezone(zone).date() == closes.date():
        when = _("closes at {time} {zone}", time=f"{closes:%H:%M}", zone=closes.tzname())
    else:
        when = _("closes {when}", when=local_time(card.closes_at, zone))
    minutes = round((card.closes_at - card.opened_at).total_seconds() / 60)
    if minutes <= 0:
        return when
    return _("open {length}, {when}", length=duration(timedelta(minutes=minutes)), when=when)


def card_about(card: QuestionCard) -> str:
    """The card's second small line: where it came from and, while open, when it closes.

    `Scheduled · open 2 h, closes at 11:30 EET`; `On demand · open until revealed`; `Cohort spring-26` once closed.
    """
    if card.is_closed:
        return card_origin(card)
    return _("{origin} · {closing}", origin=card_origin(card), closing=card_closing(card))


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def pick_hint() -> str:
    """The line under an open card's choices."""
    return _("Pick an answer below: only you will see whether you were right.")


def posted_message(card: QuestionCard) -> Message:
    """The short reply to `/quiz now` once the card is in the channel."""
    return Message(_("Posted question {number} of {pack}.", number=card.question_number, pack=card.pack_title))


def revealed_message(card: QuestionCard) -> Message:
    """The short reply to `/quiz reveal`: the correct choice of the card it closed."""
    answer = card.choices[card.reveal.correct_position] if card.reveal else ""
    return Message(_("Revealed: {answer}", answer=answer))


def adapter_not_running(platform: str) -> str:
    """A question asked for on a platform whose adapter this process does not run."""
    return _("The {platform} adapter is not running.", platform=platform)


def could_not_post(detail: object) -> str:
    """The platform failed to take a card (not one of its own refusals, which say why themselves)."""
    return _("Could not post the question: {detail}", detail=detail)


def no_questions_in(packs: list[str]) -> str:
    """Packs with no active question in the database."""
    return _("No questions in {packs}: is content synced?", packs=", ".join(slug_of_key(pack) for pack in packs))


def question_not_loaded(pack_id: str, key: str) -> str:
    """A curriculum question the database does not have (or no longer has active)."""
    return _("Question {key} of {pack} is not loaded: is content synced?", key=key, pack=pack_id)


def unknown_post() -> str:
    """A button for a post that no longer exists."""
    return _(UNKNOWN_POST)


def no_open_post() -> str:
    """`/quiz reveal` in a channel with no open question."""
    return _("There is no open question in this channel. Post one with `/quiz now`.")
