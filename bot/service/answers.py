"""Recording clicks with group commit: concurrent clicks are gathered into one transaction, and each caller is
woken with its own result only after that transaction has committed.

This is one of the two documented places where the service opens a unit of work outside the dispatcher
(QuizApp.answer hands the click here): a batch of concurrent clicks is one unit of work (`AnswerRecorder._commit`),
so no click's transaction is the dispatcher's. Its statements are the answers repository's (`uow.answers`); at
start-up they run once in a unit of work of their own that writes nothing and is rolled back
(`AnswerRecorder.warm_up`), so the first batch finds them compiled and prepared.

One transaction per click tops out at a few hundred answers a second on SQLite (every commit is a write lock
and an fsync); a batch costs about the same as one click, so throughput grows with concurrency while each
click still learns its result only once its row is durable. Batching is natural: while one batch commits, new
clicks queue; when it finishes, everything queued goes in the next one. No timer adds latency when idle.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Container, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from bot.clock import Clock
from bot.domain import AnswerOutcome, AnswerResult, ChannelRef, UserRef
from bot.domain.scoring import points_for
from bot.errors import InvalidChoice, NotYourQuestion, PostedElsewhere, QuizError, UnknownPost
from bot.service.repositories.answers import ClickedPost, KnownUser
from bot.service.repositories.directory import Directory
from bot.service.uow import UnitOfWork, UnitOfWorkFactory, is_conflict
from bot.wording.answers import no_such_choice
from bot.wording.errors import UNKNOWN_POST, not_your_question, posted_elsewhere

log = logging.getLogger(__name__)

UserKey = tuple[str, str, str]


@dataclass(slots=True)
class _Click:
    post_id: int
    user: UserRef
    choice_index: int
    at: datetime
    future: asyncio.Future[AnswerResult] = field(repr=False)
    channel: ChannelRef | None = None


class AnswerRecorder:
    """Records clicks in batches. The first click of a user on a post counts; later ones learn what it was."""

    def __init__(self, *, uow: UnitOfWorkFactory, directory: Directory, clock: Clock, max_batch: int = 1000) -> None:
        self.uow = uow
        self.directory = directory
        self.clock = clock
        self.max_batch = max_batch
        self._queue: list[_Click] = []
        self._worker: asyncio.Task[None] | None = None
        self._users: dict[tuple[int, str], tuple[int, str]] = {}
        self.batches = 0

    async def record(
        self, *, post_id: int, user: UserRef, choice_index: int, channel: ChannelRef | None = None
    ) -> AnswerResult:
        """Record one click; returns once its batch has committed. Raises the click's own QuizError.

        The click counts only on a post of the user's own platform and workspace, and of `channel` when the
        platform says where the click happened (PostedElsewhere otherwise, and nothing is recorded).
        """
        future: asyncio.Future[AnswerResult] = asyncio.get_running_loop().create_future()
        self._queue.append(_Click(post_id, user, choice_index, self.clock.now(), future, channel))
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._drain(), name="answer-recorder")
        return await future

    async def warm_up(self) -> None:
        """Before the first click (at start-up): compile, and on PostgreSQL prepare on the pool's connection, the
        statements a batch runs, in a transaction that reads and writes no row and is rolled back. Otherwise the
        first batch pays for that (~30 ms on PostgreSQL, the click path's p99 at 200 users: bench section 1)."""
        async with self.uow() as uow:  # never committed: rolled back as it closes
            await uow.answers.warm_up(self.clock.now())

    async def _drain(self) -> None:
        while self._queue:
            batch, self._queue = self._queue[: self.max_batch], self._queue[self.max_batch :]
            try:
                outcomes = await self._commit_with_retry(batch)
            except BaseException as exc:
                for click in batch:
                    if not click.future.done():
                        click.future.set_exception(exc)
                if isinstance(exc, asyncio.CancelledError):
                    raise
                continue
            for click, outcome in zip(batch, outcomes, strict=True):
                if click.future.done():
                    continue
                if isinstance(outcome, BaseException):
                    click.future.set_exception(outcome)
                else:
                    click.future.set_result(outcome)

    async def _commit_with_retry(self, batch: list[_Click]) -> list[AnswerResult | Exception]:
        try:
            return await self._commit(batch)
        except Exception as exc:
            if not is_conflict(exc):
                raise
            # A cached user id was deleted meanwhile (e.g. `quizbot forget-user` in another process):
            # forget the caches and try once more from the database.
            log.info("answer batch hit a stale cache; retrying once")
            self._users.clear()
            self.directory.forget()
            return await self._commit(batch)

    async def _commit(self, batch: list[_Click]) -> list[AnswerResult | Exception]:
        results: list[AnswerResult | Exception | None] = [None] * len(batch)
        async with self.uow() as uow:  # one unit of work for the whole batch (group commit)
            posts = await uow.answers.posts({c.post_id for c in batch})
            live = _admit(batch, posts, results)
            users = await self._user_ids(uow, [batch[i].user for i in live], batch[0].at)
            keys = {i: (batch[i].post_id, users[_user_key(batch[i].user)]) for i in live}  # (post, user row)
            first: dict[tuple[int, int], int] = {}
            rows: list[dict[str, Any]] = []
            closed: set[int] = set()
            for index, key in keys.items():
                click, post = batch[index], posts[batch[index].post_id]
                if _is_closed(post, click.at):
                    closed.add(index)
                    continue
                if key in first:
                    continue  # a second click in the same batch: answered below from the first one
                first[key] = index
                rows.append(_answer_row(click, post, key[1]))
            inserted: dict[tuple[int, int], int] = {}
            if rows:
                inserted = await uow.answers.record(rows, {post_id: post.timezone for post_id, post in posts.items()})
            earlier = await uow.answers.existing(
                [key for index, key in keys.items() if index in closed or key not in inserted]
            )
            earned = await _standing(uow, rows, inserted)
            for index, key in keys.items():
                click, post = batch[index], posts[batch[index].post_id]
                if index in closed:
                    results[index] = _result(post, AnswerOutcome.CLOSED, earlier.get(key))
                elif key in inserted and first.get(key) == index:
                    correct = click.choice_index == post.correct_index
                    points, rank = earned.get(key, (None, None))
                    results[index] = _result(post, AnswerOutcome.RECORDED, (click.choice_index, correct), points, rank)
                else:
                    previous = earlier.get(key)
                    if previous is None and key in inserted:
                        earlier_click = batch[first[key]]
                        previous = (earlier_click.choice_index, earlier_click.choice_index == post.correct_index)
                    results[index] = _result(post, AnswerOutcome.ALREADY_ANSWERED, previous)
            await uow.commit()
        self.batches += 1
        if inserted:
            log.debug("recorded %d answers in one batch of %d clicks", len(inserted), len(batch))
        return [r if r is not None else RuntimeError("click was not processed") for r in results]

    async def _user_ids(self, uow: UnitOfWork, refs: Sequence[UserRef], now: datetime) -> dict[UserKey, int]:
        """Row ids of the clicking users: cached, else read, else inserted (race-safe), names kept current."""
        wanted: dict[UserKey, UserRef] = {_user_key(ref): ref for ref in refs}
        ids: dict[UserKey, int] = {}
        missing: dict[tuple[int, str], UserKey] = {}
        renamed: list[tuple[int, str]] = []
        for key, ref in wanted.items():
            workspace = await uow.places.workspace_id(ref.platform, ref.workspace_id, now)
            cached = self._users.get((workspace, ref.user_id))
            if cached is None:
                missing[(workspace, ref.user_id)] = key
                continue
            ids[key] = cached[0]
            if ref.display_name and cached[1] != ref.display_name:
                renamed.append((cached[0], ref.display_name))
        if missing:

            def take(row: KnownUser) -> None:
                key = missing.pop((row.workspace_id, row.external_id))
                ids[key] = row.id
                name = wanted[key].display_name
                if name and row.display_name != name:
                    renamed.append((row.id, name))
                self._remember(uow, row.workspace_id, row.external_id, row.id, name or row.display_name)

            for _attempt in range(2):
                new_rows = [
                    {
                        "workspace_id": workspace,
                        "external_id": external,
                        "display_name": wanted[key].display_name or external,
                        "created_at": now,
                    }
                    for (workspace, external), key in missing.items()
                ]
                # Those found and those inserted come back; those another transaction inserted first are read again.
                for row in await uow.answers.find_or_add_users(new_rows):
                    take(row)
                if not missing:
                    break
        for user_id, name in renamed:
            await uow.answers.rename_user(user_id, name)
        return ids

    def _remember(self, uow: UnitOfWork, workspace: int, external: str, row_id: int, name: str) -> None:
        uow.after_commit(lambda: self._users.__setitem__((workspace, external), (row_id, name)))


async def _standing(
    uow: UnitOfWork, rows: list[dict[str, Any]], inserted: Container[tuple[int, int]]
) -> dict[tuple[int, int], tuple[int, int | None]]:
    """The points and the user's new rank on the channel's board (read after this batch's rollup updates) of each
    correct answer just recorded, by (post, user row)."""
    earned = {
        (row["post_id"], row["user_id"]): row
        for row in rows
        if row["is_correct"] and (row["post_id"], row["user_id"]) in inserted
    }
    ranks = await uow.answers.channel_ranks([(row["user_id"], row["channel_id"]) for row in earned.values()])
    return {key: (row["points"], ranks.get((row["user_id"], row["channel_id"]))) for key, row in earned.items()}


def _admit(
    batch: list[_Click], posts: dict[int, ClickedPost], results: list[AnswerResult | Exception | None]
) -> list[int]:
    """The indexes of clicks on an existing post of their own place with a valid choice; the others get their
    refusal in `results`. A click on a private post is attributed to its recipient's row in the post's workspace,
    wherever the platform says it came from (a Discord direct message has no guild); so is a click from another
    workspace of the post's organisation (`_same_organisation`): it counts on the post's boards."""
    live: list[int] = []
    for index, click in enumerate(batch):
        post = posts.get(click.post_id)
        place = post.place if post is not None else None
        refused = _refusal(click, post, place)
        if refused is not None:
            results[index] = refused
            continue
        if place is not None and click.user.workspace_id != place.workspace_id:
            click.user = replace(click.user, workspace_id=place.workspace_id)
        live.append(index)
    return live


def _refusal(click: _Click, post: ClickedPost | None, place: ChannelRef | None) -> QuizError | None:
    """Why a click cannot count (None when it can): no such post, a post of another place, or a bad choice.

    A click counts only on a post of the clicking user's own platform and workspace, and of the click's channel
    when the platform says where the click happened (Slack and Discord do); or, in that same channel, from another
    workspace of the post's organisation (`_same_organisation`).
    """
    if post is None or place is None:
        return UnknownPost(UNKNOWN_POST)
    user = click.user
    if post.recipient is not None:
        return _private_refusal(click, post, place, post.recipient)
    elsewhere = (user.platform, user.workspace_id) != (place.platform, place.workspace_id) or (
        click.channel is not None and click.channel != place
    )
    if elsewhere and not _same_organisation(click, place):
        return PostedElsewhere(posted_elsewhere())
    if not 0 <= click.choice_index < len(post.choices):
        return InvalidChoice(no_such_choice(click.choice_index))
    return None


def _same_organisation(click: _Click, place: ChannelRef) -> bool:
    """A click in the post's own channel, from a workspace of the same organisation as the post's (a Slack channel
    shared between the workspaces of one Enterprise Grid org has one id in all of them). Both organisation ids
    come from signed platform requests; a click from another organisation (Slack Connect) or from a workspace that
    names none never matches."""
    channel = click.channel
    return (
        channel is not None
        and place.enterprise_id is not None
        and channel.enterprise_id == place.enterprise_id
        and click.user.platform == place.platform
        and (channel.platform, channel.channel_id) == (place.platform, place.channel_id)
    )


def _private_refusal(click: _Click, post: ClickedPost, place: ChannelRef, recipient: str) -> QuizError | None:
    """Why a click on a privately delivered post cannot count: only its recipient's click does, in the direct
    message it was sent to (or in its workspace, when the platform names no channel)."""
    user = click.user
    if user.platform != place.platform or user.user_id != recipient:
        return NotYourQuestion(not_your_question())
    in_its_workspace = user.workspace_id == place.workspace_id and (click.channel is None or click.channel == place)
    in_its_channel = click.channel is not None and (click.channel.platform, click.channel.channel_id) == (
        place.platform,
        place.channel_id,
    )
    if not (in_its_workspace or in_its_channel):
        return PostedElsewhere(posted_elsewhere())
    if not 0 <= click.choice_index < len(post.choices):
        return InvalidChoice(no_such_choice(click.choice_index))
    return None


def _user_key(ref: UserRef) -> UserKey:
    return (ref.platform, ref.workspace_id, ref.user_id)


def _answer_row(click: _Click, post: ClickedPost, user_row: int) -> dict[str, Any]:
    latency = click.at - post.opened_at
    correct = click.choice_index == post.correct_index
    window = (post.closes_at - post.opened_at) if post.closes_at else None
    return {
        "post_id": post.post_id,
        "user_id": user_row,
        "workspace_id": post.workspace_id,
        "channel_id": post.channel_id,
        "choice_index": click.choice_index,
        "is_correct": correct,
        "points": points_for(correct=correct, latency=latency, window=window, speed=post.speed_points),
        "answered_at": click.at,
        "latency_ms": max(0, int(latency.total_seconds() * 1000)),
    }


def _is_closed(post: ClickedPost, at: datetime) -> bool:
    return post.closed_at is not None or (post.closes_at is not None and at >= post.closes_at)


def _result(
    post: ClickedPost,
    outcome: AnswerOutcome,
    answer: tuple[int, bool] | None,
    points: int | None = None,
    rank: int | None = None,
) -> AnswerResult:
    return AnswerResult(
        outcome=outcome,
        post_id=post.post_id,
        chosen=post.choices[answer[0]] if answer else None,
        correct=answer[1] if answer else None,
        correct_choice=post.choices[post.correct_index],
        explanation=post.explanation,
        revealed=outcome is AnswerOutcome.CLOSED,
        points=points,
        rank=rank,
    )
