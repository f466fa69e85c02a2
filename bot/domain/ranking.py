"""Ranking rules every board shares: points, then correct answers, then fewer answers; ties share a rank."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from bot.domain import CohortStanding, LeaderboardRow

RANKED_TOP = 1000
"""How far down a channel's board a click's verdict tells the clicker's place (`#37`); below it, that they are
outside the top RANKED_TOP. The place is read in the click's transaction, and reading it from the board's top costs
as many rows as it is deep: bounded here, so a channel of a hundred thousand members costs a batch of clicks no more
than one of a thousand."""


@dataclass(frozen=True, slots=True)
class Entry:
    """A user's totals before ranking."""

    user_id: int
    name: str
    points: int
    correct: int
    answered: int

    @property
    def key(self) -> tuple[int, int, int]:
        """What ranks: points, then correct answers; fewer answers is better."""
        return (self.points, self.correct, self.answered)


def rank_entries(entries: Iterable[Entry]) -> list[tuple[int, Entry]]:
    """Rank by points, then correct answers, then fewer answers; equal on all three share a rank (1, 1, 3).

    Within a rank, names sort alphabetically (then by user id), so the order is stable.
    """
    ordered = sorted(entries, key=lambda e: (-e.points, -e.correct, e.answered, e.name.casefold(), e.name, e.user_id))
    ranked: list[tuple[int, Entry]] = []
    for index, entry in enumerate(ordered):
        tied = ranked and ranked[-1][1].key == entry.key
        ranked.append((ranked[-1][0] if tied else index + 1, entry))
    return ranked


def rank_rows(rows: list[tuple[str, int, int, int]]) -> list[LeaderboardRow]:
    """Rank (name, points, correct, answered) rows the way every board does (see `rank_entries`)."""
    entries = [Entry(i, name, points, correct, answered) for i, (name, points, correct, answered) in enumerate(rows)]
    return [
        LeaderboardRow(rank=rank, name=e.name, points=e.points, correct=e.correct, answered=e.answered)
        for rank, e in rank_entries(entries)
    ]


def rank_cohorts(standings: Iterable[CohortStanding]) -> list[CohortStanding]:
    """Rank cohorts by points per active member, then accuracy; equal on both share a rank; names break ties."""

    def key(s: CohortStanding) -> tuple[Fraction, Fraction]:
        return (Fraction(s.points, s.active or 1), Fraction(s.correct, s.answered or 1))

    ordered = sorted(standings, key=lambda s: (-key(s)[0], -key(s)[1], s.name.casefold(), s.name))
    ranked: list[CohortStanding] = []
    for index, standing in enumerate(ordered):
        tied = ranked and key(ranked[-1]) == key(standing)
        rank = ranked[-1].rank if tied else index + 1
        ranked.append(
            CohortStanding(
                rank=rank,
                name=standing.name,
                members=standing.members,
                active=standing.active,
                points=standing.points,
                correct=standing.correct,
                answered=standing.answered,
            )
        )
    return ranked
