"""Flagging bad questions (issue 14): "Report a problem", `/quiz flag`, `/quiz flags`, and pausing flagged questions.

A flag is one person's report on one question (through the post they saw it on), with an optional reason; a person
flags a question once, and flagging it again updates the reason. In each workspace, a question with at least
`threshold` open flags is paused: QuizService's rotation and cohort curricula skip it until an admin clears its
flags, which keeps the rows (stamped `cleared_at`) for the pack's authors. Flags, pauses and clearing are per
workspace, like everything a workspace's admins decide; `quizbot content flags` reads them across workspaces.

The use cases run inside the caller's unit of work (the dispatcher's), through its `flags` repository;
`flagged_questions` is a read-side query (`/quiz flags`, reports, `quizbot content flags`) that lives with the flags'
repository (repositories/flags.py); it is imported from here by the reports and the operator command.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from bot.clock import Clock
from bot.domain import ChannelRef, UserRef
from bot.domain.flags import (
    DEFAULT_PAUSE_THRESHOLD,
    FlaggedQuestion,
    FlagOutcome,
    FlagResult,
    FlagsCleared,
    flag_reason,
)
from bot.errors import NotFound, UnknownPost
from bot.service.repositories.flags import flagged_questions
from bot.service.uow import UnitOfWork
from bot.wording import flags as flag_words
from bot.wording.errors import UNKNOWN_POST

__all__ = ["FlagService", "flagged_questions"]

log = logging.getLogger(__name__)


class FlagService:
    """The flag use cases, each inside the caller's open unit of work (none opens or commits a transaction)."""

    def __init__(self, *, clock: Clock, threshold: int = DEFAULT_PAUSE_THRESHOLD) -> None:
        self.clock = clock
        self.threshold = threshold

    async def flag(
        self, uow: UnitOfWork, channel: ChannelRef, user: UserRef, *, post_id: int | None, reason: str | None
    ) -> FlagResult:
        """Record `user`'s flag on the question of a post (or update its reason); the caller commits.

        With `post_id` (a "Report a problem" button) that post, which must belong to this workspace. Without it,
        the question the user last answered or reported in this channel, else the channel's newest post.
        """
        now = self.clock.now()
        workspace = await uow.places.workspace_id(channel.platform, channel.workspace_id, now)
        user_row = await uow.places.user_id(user, now)
        if post_id is None:
            post_id = await self._latest_post(uow, channel, user_row, now)
        found = await uow.flags.question_of_post(post_id, workspace)
        if found is None:  # gone, or a forged button naming another workspace's post
            raise UnknownPost(UNKNOWN_POST)
        question_id = found.question_id
        reason = flag_reason(reason)
        outcome, kept_reason = await self._upsert(
            uow, workspace=workspace, question_id=question_id, post_id=post_id, user_row=user_row, reason=reason
        )
        open_flags = await uow.flags.open_count(workspace, question_id)
        log.info(
            "question %s/%s flagged (%s, %d open)",
            found.pack_id,
            found.key,
            outcome.value,
            open_flags,
            extra={"platform": channel.platform, "workspace": channel.workspace_id, "post_id": post_id},
        )
        return FlagResult(
            outcome=outcome,
            pack_id=found.pack_id,
            key=found.key,
            prompt=found.prompt,
            reason=kept_reason,
            open_flags=int(open_flags),
            threshold=self.threshold,
        )

    async def _latest_post(self, uow: UnitOfWork, channel: ChannelRef, user_row: int, now: datetime) -> int:
        """The post `/quiz flag` means: the user's latest answer or flag in this channel, else its newest post."""
        channel_id = await uow.places.channel_id(channel, now)
        answered = await uow.flags.last_answered(user_row, channel_id)
        flagged = await uow.flags.last_flagged(user_row, channel_id)
        mine = [seen for seen in (answered, flagged) if seen is not None]
        if mine:  # a reason typed after clicking "Report a problem" goes to that report, even under an old answer
            return max(mine, key=lambda seen: seen.at).post_id
        newest = await uow.flags.newest_post(channel_id)
        if newest is None:
            raise NotFound(flag_words.nothing_to_flag())
        return newest

    async def _upsert(
        self,
        uow: UnitOfWork,
        *,
        workspace: int,
        question_id: int,
        post_id: int,
        user_row: int,
        reason: str | None,
    ) -> tuple[FlagOutcome, str | None]:
        """Insert the flag, or update the one this person has (the unique key settles concurrent clicks)."""
        now = self.clock.now()
        values: dict[str, Any] = {
            "workspace_id": workspace,
            "question_id": question_id,
            "post_id": post_id,
            "user_id": user_row,
            "reason": reason,
            "created_at": now,
            "updated_at": now,
        }
        if await uow.flags.add(values):
            return FlagOutcome.RECORDED, reason
        flag = await uow.flags.of_user(user_row, question_id)
        if flag.cleared_at is not None:  # cleared by an admin, and reported again: a new report on the question
            flag.cleared_at, flag.cleared_by, flag.reason = None, None, reason
            flag.post_id, flag.updated_at = post_id, now
            return FlagOutcome.RECORDED, reason
        if reason is None or reason == flag.reason:
            return FlagOutcome.ALREADY_FLAGGED, flag.reason
        flag.reason, flag.post_id, flag.updated_at = reason, post_id, now
        return FlagOutcome.REASON_UPDATED, reason

    async def flagged(self, uow: UnitOfWork, channel: ChannelRef) -> list[FlaggedQuestion]:
        """The channel's workspace's questions with open flags, most flagged first."""
        found = await uow.places.workspace(channel.platform, channel.workspace_id)
        if found is None:
            return []
        return await uow.flags.flagged(threshold=self.threshold, workspace_ids=[found.id])

    async def clear(
        self, uow: UnitOfWork, channel: ChannelRef, user: UserRef, *, pack_id: str, key: str
    ) -> FlagsCleared:
        """Clear the open flags on a question in this workspace (it is back in rotation); the caller commits."""
        found = await uow.places.workspace(channel.platform, channel.workspace_id)
        team = await uow.workspace_packs.keys(found.id) if found is not None else {}
        question = await uow.questions.any(team.get(pack_id, pack_id), key)  # a team pack by its slug
        if question is None:
            raise NotFound(flag_words.unknown_question(pack_id, key))
        cleared = 0
        if found is not None:
            now = self.clock.now()
            cleared = await uow.flags.clear(found.id, question.id, now, await uow.places.user_id(user, now))
        log.info(
            "flags on %s/%s cleared (%d)",
            pack_id,
            key,
            cleared,
            extra={"platform": channel.platform, "workspace": channel.workspace_id},
        )
        return FlagsCleared(pack_id=pack_id, key=key, prompt=question.prompt, cleared=cleared)
