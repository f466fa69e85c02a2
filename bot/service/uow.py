"""The unit of work: one transaction, the repositories a use case loads and saves through (repositories/),
after-commit hooks.

The shape is cosmicpython's (`src/allocation/service_layer/unit_of_work.py`)::

    async with uow_factory() as uow:
        channel = await uow.places.channel_id(ref, now)
        shown = await uow.posts.shown(post_id)
        ...
        await uow.commit()

Leaving the block without `commit()` rolls back. Driver failures (database down, connection lost, locked)
surface as StorageUnavailable, whether they happen inside the block or at commit. Callbacks registered with
`after_commit` run only once the transaction is durable (caches are filled there, never from a rolled-back
transaction). Nothing else in the core opens a transaction, and only a few places open a unit of work: the
dispatcher (service/app.py), the documented exceptions (a post's publication, the click path's group commit), the
read side's read-only fallback, the scheduler's jobs and the operator commands; tests/unit/test_transaction_boundary.py
lists them, and fails for a new one.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Self

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.database import ON_COMMIT, Database, raise_if_unavailable
from bot.service.deliveries import Deliveries
from bot.service.repositories import (
    Answers,
    ChannelFires,
    Cohorts,
    Deadlines,
    Flags,
    MemberFires,
    PendingConfirmations,
    Places,
    Posts,
    Questions,
    Review,
    Roles,
    Seasons,
)
from bot.service.repositories.checkpoints import Checkpoints
from bot.service.repositories.directory import Directory
from bot.service.repositories.drafts import Drafts
from bot.service.repositories.schedule_listing import ScheduleListing
from bot.service.repositories.schedules import Schedules
from bot.service.repositories.settings import SettingsStore
from bot.service.repositories.workspace_packs import WorkspacePacks

log = logging.getLogger(__name__)


class UnitOfWork:
    """One transaction and what a use case reads and writes through it; rolls back unless committed."""

    session: AsyncSession
    places: Places
    answers: Answers
    questions: Questions
    posts: Posts
    cohorts: Cohorts
    schedules: Schedules
    review: Review
    flags: Flags
    channel_fires: ChannelFires
    member_fires: MemberFires
    confirmations: PendingConfirmations
    seasons: Seasons
    schedule_listing: ScheduleListing
    deadlines: Deadlines
    roles: Roles
    settings: SettingsStore
    workspace_packs: WorkspacePacks
    drafts: Drafts
    checkpoints: Checkpoints

    def __init__(self, db: Database, directory: Directory) -> None:
        self._db = db
        self._directory = directory

    @property
    def dialect(self) -> str:
        """`sqlite` or `postgresql`."""
        return self._db.dialect

    async def __aenter__(self) -> Self:
        self.session = self._db.sessions()
        self.places = Places(self.session, self._directory)
        self.answers = Answers(self.session)
        self.questions = Questions(self.session)
        self.posts = Posts(self.session)
        self.cohorts = Cohorts(self.session)
        self.schedules = Schedules(self.session)
        self.review = Review(self.session)
        self.flags = Flags(self.session)
        self.channel_fires = ChannelFires(self.session)
        self.member_fires = MemberFires(self.session)
        self.deadlines = Deadlines(self.session)
        self.deliveries = Deliveries(self.session)
        self.confirmations = PendingConfirmations(self.session)
        self.seasons = Seasons(self.session)
        self.schedule_listing = ScheduleListing(self.session)
        self.roles = Roles(self.session)
        self.settings = SettingsStore(self.session)
        self.workspace_packs = WorkspacePacks(self.session)
        self.drafts = Drafts(self.session)
        self.checkpoints = Checkpoints(self.session)
        try:
            await self.session.begin()
        except Exception as exc:
            await self.session.close()
            raise_if_unavailable(exc)
            raise
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        # close() rolls back whatever was not committed and detaches loaded rows without expiring them, so a
        # use case may still read what it loaded after the block (rollback() would expire them).
        try:
            await self.session.close()
        except Exception as close_exc:
            if exc is None:
                raise_if_unavailable(close_exc)
                raise
            log.debug("closing the session failed", exc_info=True)
        if exc is not None:
            raise_if_unavailable(exc)

    async def commit(self) -> None:
        """Make the work durable, then run the after-commit callbacks."""
        try:
            await self.session.commit()
        except Exception as exc:
            raise_if_unavailable(exc)
            raise
        for callback in self.session.info.pop(ON_COMMIT, ()):
            callback()

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run `callback` once this unit of work has committed (never if it rolls back)."""
        Database.after_commit(self.session, callback)


UnitOfWorkFactory = Callable[[], UnitOfWork]
"""What a use case is given: a fresh unit of work per call."""


def unit_of_work_factory(db: Database, directory: Directory) -> UnitOfWorkFactory:
    """A factory of units of work on this database, sharing the directory's id caches."""
    return lambda: UnitOfWork(db, directory)


@asynccontextmanager
async def reading(factory: UnitOfWorkFactory, within: UnitOfWork | None) -> AsyncIterator[UnitOfWork]:
    """Read inside `within` when the caller has a unit of work open (one use case, one transaction), else in a
    fresh one that is rolled back at the end (a read-only view, as cosmicpython's views.py does)."""
    if within is not None:
        yield within
        return
    async with factory() as uow:
        yield uow


@asynccontextmanager
async def committed(factory: UnitOfWorkFactory) -> AsyncIterator[UnitOfWork]:
    """A unit of work that commits when its block ends normally (a `return` included) and rolls back if it raises.

    For the scheduler's steps (bot/scheduling/): each is a few fenced statements whose every normal exit, an early
    "nothing to do" included, is meant to be durable. Use cases call `commit()` themselves instead.
    """
    async with factory() as uow:
        yield uow
        await uow.commit()


def is_conflict(exc: BaseException) -> bool:
    """Whether `exc` is a unique-key conflict with another transaction (worth running the whole unit again)."""
    return isinstance(exc, IntegrityError)
