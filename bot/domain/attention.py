"""Which cohort members an onboarding lead should look at: those behind on the curriculum, and those inactive.

Pure rules, no I/O: bot/service/cohorts.py gathers the facts (which cohort posts a member answered, their last
answer), these decide; the words are in bot/wording/cohorts.py.

- **Behind**: the member answered none of the cohort's last `behind_after` posts (newest first, open ones
  included: a question posted to the cohort is due from the moment it is posted). A cohort with fewer posts than
  that has nobody behind.
- **Inactive**: the member's last answer anywhere in the workspace (or, if they never answered, the later of
  joining and the cohort's start) is at least `inactive_days` days old.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

DEFAULT_BEHIND_AFTER = 3
"""Missed cohort questions in a row after which a member is behind (QUIZBOT_COHORT_BEHIND_AFTER)."""
DEFAULT_INACTIVE_DAYS = 7
"""Days without an answer after which a member is inactive (QUIZBOT_COHORT_INACTIVE_DAYS)."""


def missed_in_a_row(answered_newest_first: Sequence[bool]) -> int:
    """How many of the newest cohort posts in a row the member did not answer."""
    count = 0
    for answered in answered_newest_first:
        if answered:
            break
        count += 1
    return count


@dataclass(frozen=True, slots=True)
class AttentionRules:
    """The two thresholds, from settings."""

    behind_after: int = DEFAULT_BEHIND_AFTER
    inactive_days: int = DEFAULT_INACTIVE_DAYS

    def is_behind(self, answered_newest_first: Sequence[bool]) -> bool:
        """Whether the member missed each of the cohort's last `behind_after` posts."""
        return len(answered_newest_first) >= self.behind_after and (
            missed_in_a_row(answered_newest_first) >= self.behind_after
        )

    def is_inactive(self, last_answer: datetime | None, *, since: datetime, now: datetime) -> bool:
        """Whether the member's last answer (or `since`, joining or the start, when none) is `inactive_days` old."""
        return now - (last_answer or since) >= timedelta(days=self.inactive_days)


DEFAULT_RULES = AttentionRules()
"""The thresholds when settings say nothing."""
