"""The catalog as rows: packs, questions, and each version of a question a post can show."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.models.base import Base, BigId


class PackRow(Base):
    """A pack as last synced from content/."""

    __tablename__ = "packs"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    title: Mapped[str] = mapped_column(Text)  # the pack schema allows 2,000 characters
    description: Mapped[str] = mapped_column(Text, default="")
    tags: Mapped[list[str]] = mapped_column(JSON, default=list)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    synced_at: Mapped[datetime]


class QuestionRow(Base):
    """A question as last synced: the pack's current text, which new posts and review questions show.

    Kept (inactive, "retired") when removed from its pack. What a post showed is never read from here but from
    the QuestionVersion its PostSnapshot points at, so editing the pack changes only later posts.
    """

    __tablename__ = "questions"
    __table_args__ = (UniqueConstraint("pack_id", "key"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    pack_id: Mapped[str] = mapped_column(ForeignKey("packs.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(64))
    position: Mapped[int] = mapped_column(Integer)
    prompt: Mapped[str] = mapped_column(Text)
    choices: Mapped[list[str]] = mapped_column(JSON)
    correct_index: Mapped[int] = mapped_column(Integer)
    explanation: Mapped[str] = mapped_column(Text)
    tags: Mapped[list[str]] = mapped_column(JSON, default=list)
    difficulty: Mapped[str | None] = mapped_column(String(16))
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    images: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True, default=None)
    """`{"prompt": {url|file, alt}, "explanation": {...}}` (bot.domain.Question.images_json), None without any."""
    references: Mapped[list[str] | None] = mapped_column(JSON, nullable=True, default=None)
    """A workspace pack's question's references (shipped packs keep theirs in their files): None when not kept."""


class QuestionVersion(Base):
    """What a question said at one time: prompt, choices in the pack's order then, correct choice, explanation.

    Immutable. A post (through its PostSnapshot) and a review question that is out point at the version they
    showed; `answers.choice_index` and `posts.choice_order` index its `choices`. A version is named by a digest
    of its content (bot.domain.versions), so every post of the same text shares one row (a fan-out to a
    thousand channels stores the text once) and an edit that is undone finds its old version again.
    """

    __tablename__ = "question_versions"
    __table_args__ = (UniqueConstraint("question_id", "digest"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    question_id: Mapped[int] = mapped_column(ForeignKey("questions.id", ondelete="CASCADE"))
    digest: Mapped[str] = mapped_column(String(64))
    prompt: Mapped[str] = mapped_column(Text)
    choices: Mapped[list[str]] = mapped_column(JSON)
    correct_index: Mapped[int] = mapped_column(Integer)
    explanation: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime]
    images: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True, default=None)
    """The images the version showed (as `QuestionRow.images`), None without any; part of its digest."""
