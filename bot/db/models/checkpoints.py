"""What `/quiz me` has settled of each user's history: a checkpoint its next call resumes from."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models.base import Base


class MeCheckpoint(Base):
    """One user's streaks and missed questions folded up to `settled_to`, an instant before which every outcome of
    theirs is settled for good (bot/service/streak_stats.py says how it is chosen). Derived data: `/quiz me` reads
    it, folds what was settled since, and writes it again further on (and so does the scheduler, in the background,
    for users who answered since it was a day old: bot/scheduling/checkpoints.py); deleting it only makes the next
    call read the whole history.

    - `channels`: the question streak (run, best) in each channel where it is not (0, 0), by channel row id;
    - `day_run`, `day_best`, `last_day`: the day streak's fold (bot.domain.streaks.DayRun) in `timezone`, the
      workspace's when it was computed (another timezone makes the checkpoint useless);
    - `missed`: the user's [answered, correct] counts of each question they answered, by question row id (its wrong
      answers are the difference; a question's tags are read when shown, so an edit of a pack's tags is seen at
      once); version 1 kept the wrong answers alone there;
    - `version`: the shape of the above (a checkpoint of another version is ignored and replaced).
    """

    __tablename__ = "me_checkpoints"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    version: Mapped[int] = mapped_column(Integer)
    settled_to: Mapped[datetime]
    timezone: Mapped[str] = mapped_column(String(64))
    day_run: Mapped[int] = mapped_column(Integer)
    day_best: Mapped[int] = mapped_column(Integer)
    last_day: Mapped[date | None]
    channels: Mapped[dict[str, Any]] = mapped_column(JSON)
    missed: Mapped[dict[str, Any]] = mapped_column(JSON)
