"""An in-memory unit of work and `bootstrap_test_app`: the real QuizApp and handlers, wired to repositories that
keep their rows in memory instead of a database (cosmicpython's `FakeUnitOfWork` and `bootstrap_test_app`).

It implements the repository methods that the season, schedule and confirmation handlers use (places, seasons,
schedules, schedule_listing, confirmations, deliveries, roles, settings), under the unit of work's own rule: nothing is kept unless
committed. A handler that reaches for a repository this store does not have fails with AttributeError, never with
a silent default: its tests stay in tests/integration/, where the SQL is what they check.
"""

from __future__ import annotations

import copy
import itertools
import random
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from bot.clock import Clock
from bot.content import load_catalog
from bot.db.models import PendingConfirmation, QuestionRow, Schedule, Season
from bot.domain import ChannelRef, Pack, Question, UserRef
from bot.domain.drafts import (
    Draft,
    DraftContent,
    DraftOrigin,
    DraftStatus,
    StoredPack,
    WorkspacePack,
    is_workspace_slug,
    workspace_pack_key,
)
from bot.domain.roles import Role, RoleGrant, Subject
from bot.domain.settings import Overrides, SettingChange, SettingKey, SettingScope
from bot.domain.windows import Span
from bot.errors import UserInputError
from bot.ports import PlatformRegistry
from bot.scheduling.fanout import FanOut
from bot.service.answers import AnswerRecorder
from bot.service.app import QuizApp
from bot.service.cards import CardRefresher
from bot.service.cohorts import CohortService
from bot.service.confirmations import Confirmations
from bot.service.flags import FlagService
from bot.service.quiz import QuizService
from bot.service.report import ReportService
from bot.service.repositories.directory import Directory
from bot.service.repositories.lookups import WorkspaceRow
from bot.service.repositories.schedule_listing import PAUSED_BY, ListedSchedule
from bot.service.review import ReviewService
from bot.service.schedules import ScheduleService
from bot.service.seasons import SeasonService
from bot.service.stats import Stats
from bot.wording import drafts as draft_words
from tests.fakes.fake_platform import FakePlatform


@dataclass
class Rows:
    """What the in-memory database holds: the rows of the tables these handlers touch."""

    workspaces: dict[tuple[str, str], WorkspaceRow] = field(default_factory=dict)
    channels: dict[tuple[int, str], int] = field(default_factory=dict)
    users: dict[tuple[int, str], tuple[int, str]] = field(default_factory=dict)
    """(workspace row, platform user id) -> (user row, display name)."""
    seasons: list[Season] = field(default_factory=list)
    schedules: list[Schedule] = field(default_factory=list)
    confirmations: dict[str, PendingConfirmation] = field(default_factory=dict)
    deliveries: set[str] = field(default_factory=set)
    roles: dict[tuple[str, str, str, str], RoleGrant] = field(default_factory=dict)
    """(platform, workspace id, subject kind, casefolded subject id) -> the role granted."""
    workspace_settings: dict[tuple[int, SettingKey], str] = field(default_factory=dict)
    channel_settings: dict[tuple[int, SettingKey], str] = field(default_factory=dict)
    setting_changes: list[tuple[int, SettingChange]] = field(default_factory=list)
    """(workspace row, the change), oldest first."""
    drafts: dict[int, Draft] = field(default_factory=dict)
    workspace_packs: dict[tuple[int, str], WorkspacePack] = field(default_factory=dict)
    """(workspace row, slug) -> the workspace's pack."""
    workspace_questions: dict[str, list[Question]] = field(default_factory=dict)
    """A workspace pack's stored key -> its questions, in order (the memory tier keeps no versions)."""


@dataclass
class MemoryStore:
    """The committed rows, shared by every unit of work of one test app, and the row ids handed out so far."""

    default_timezone: str = "UTC"
    committed: Rows = field(default_factory=Rows)
    ids: dict[str, Iterator[int]] = field(default_factory=lambda: defaultdict(lambda: itertools.count(1)))
    """Each table's id sequence (as PostgreSQL's, not rolled back)."""
    commits: int = 0
    shipped: frozenset[str] = frozenset()
    """The shipped packs' ids (a workspace pack may not take one)."""

    def workspace_rows(self) -> dict[int, tuple[str, str]]:
        """Workspace row -> (platform, platform id), committed."""
        return {row.id: key for key, row in self.committed.workspaces.items()}


class _Repository:
    def __init__(self, uow: MemoryUnitOfWork) -> None:
        self._uow = uow

    @property
    def _rows(self) -> Rows:
        return self._uow.rows

    def _new_id(self, table: str) -> int:
        return next(self._uow.store.ids[table])


class MemoryPlaces(_Repository):
    """uow.places: workspace, channel and user rows, created on first sight."""

    async def workspace(self, platform: str, external_id: str) -> WorkspaceRow | None:
        return self._rows.workspaces.get((platform, external_id))

    async def workspace_id(self, platform: str, external_id: str, now: datetime) -> int:
        found = self._rows.workspaces.get((platform, external_id))
        if found is None:
            found = self._rows.workspaces[(platform, external_id)] = WorkspaceRow(
                self._new_id("workspaces"), self._uow.store.default_timezone
            )
        return found.id

    async def workspace_ref(self, workspace: int) -> tuple[str, str]:
        return next(key for key, row in self._rows.workspaces.items() if row.id == workspace)

    async def channel_id(self, ref: ChannelRef, now: datetime) -> int:
        workspace = await self.workspace_id(ref.platform, ref.workspace_id, now)
        channels = self._rows.channels
        if (workspace, ref.channel_id) not in channels:
            channels[(workspace, ref.channel_id)] = self._new_id("channels")
        return channels[(workspace, ref.channel_id)]

    async def user_id(self, ref: UserRef, now: datetime) -> int:
        workspace = await self.workspace_id(ref.platform, ref.workspace_id, now)
        row, name = self._rows.users.get((workspace, ref.user_id), (0, ""))
        if not row:
            row = self._new_id("users")
        self._rows.users[(workspace, ref.user_id)] = (row, ref.display_name or name or ref.user_id)
        return row

    def user_name(self, user_row: int | None) -> str | None:
        """The current name of a user row (a listing's `created_by` and `paused_by`)."""
        return next((name for row, name in self._rows.users.values() if row == user_row), None)

    def channel_ref(self, channel_row: int) -> ChannelRef:
        """The platform ids of a channel row."""
        (workspace, external) = next(key for key, row in self._rows.channels.items() if row == channel_row)
        platform, workspace_id = next(key for key, row in self._rows.workspaces.items() if row.id == workspace)
        return ChannelRef(platform, workspace_id, external)


class MemorySeasons(_Repository):
    """uow.seasons."""

    async def get(self, season_id: int) -> Season | None:
        return next((season for season in self._rows.seasons if season.id == season_id), None)

    async def running(self, workspace: int | None) -> Season | None:
        return next(
            (s for s in self._rows.seasons if s.workspace_id == workspace and s.ended_at is None),
            None,
        )

    async def name_taken(self, workspace: int, name: str) -> bool:
        return any(s.workspace_id == workspace and s.key == name.casefold() for s in self._rows.seasons)

    async def add(self, season: Season) -> bool:
        if await self.running(season.workspace_id) or await self.name_taken(season.workspace_id, season.name):
            return False  # the unique indexes: one running season per workspace, names unique
        season.id = self._new_id("seasons")
        self._rows.seasons.append(season)
        return True

    async def end(self, season_id: int, ended_at: datetime, ended_by: int | None) -> bool:
        season = await self.get(season_id)
        if season is None or season.ended_at is not None:
            return False
        season.ended_at, season.ended_by = ended_at, ended_by
        return True

    async def of_workspace(self, workspace: int) -> list[Season]:
        mine = [s for s in self._rows.seasons if s.workspace_id == workspace]
        mine.sort(key=lambda s: s.starts_at, reverse=True)
        return sorted(mine, key=lambda s: s.ended_at is not None)

    async def channels_with_answers(self, workspace: int, span: Span) -> list[ChannelRef]:
        return []  # this store records no answers


class MemorySchedules(_Repository):
    """uow.schedules: what the schedule commands use."""

    async def channel_timezone(self, channel_row: int) -> str:
        workspace = next(ws for (ws, _), row in self._rows.channels.items() if row == channel_row)
        return next(row.timezone for row in self._rows.workspaces.values() if row.id == workspace)

    async def in_channel(self, channel_row: int) -> list[Schedule]:
        return [s for s in self._rows.schedules if s.channel_id == channel_row]

    async def of_cohort(self, cohort_id: int) -> list[Schedule]:
        return [s for s in self._rows.schedules if s.cohort_id == cohort_id]

    async def add(self, schedule: Schedule) -> Schedule:
        schedule.id = self._new_id("schedules")
        self._rows.schedules.append(schedule)
        return schedule

    async def get(self, schedule_id: int) -> Schedule | None:
        return next((s for s in self._rows.schedules if s.id == schedule_id), None)

    async def remove(self, schedule_id: int) -> None:
        self._rows.schedules = [s for s in self._rows.schedules if s.id != schedule_id]

    async def flush(self) -> None:
        return None  # the rows are the objects handed out


class MemoryScheduleListing(_Repository):
    """uow.schedule_listing."""

    async def of(self, channel: ChannelRef, *, channel_only: bool) -> list[ListedSchedule]:
        places = self._uow.places
        found = []
        for schedule in self._rows.schedules:
            where = places.channel_ref(schedule.channel_id)
            if (where.platform, where.workspace_id) != (channel.platform, channel.workspace_id):
                continue
            if channel_only and where.channel_id != channel.channel_id:
                continue
            reason = schedule.paused_reason or ""
            pauser = int(reason[len(PAUSED_BY) :]) if reason.startswith(PAUSED_BY) and reason != PAUSED_BY else None
            found.append(
                ListedSchedule(
                    schedule, where.channel_id, places.user_name(schedule.created_by), places.user_name(pauser), None
                )
            )
        return found

    async def one(self, channel: ChannelRef, schedule_id: int) -> ListedSchedule | None:
        listed = await self.of(channel, channel_only=False)
        return next((row for row in listed if row.schedule.id == schedule_id), None)


class MemoryConfirmations(_Repository):
    """uow.confirmations."""

    async def sweep(self, expired_before: datetime) -> None:
        rows = self._rows.confirmations
        for token in [t for t, row in rows.items() if row.expires_at < expired_before]:
            del rows[token]

    def add(self, pending: PendingConfirmation) -> None:
        self._rows.confirmations[pending.token] = pending

    async def get(self, token: str) -> PendingConfirmation | None:
        return self._rows.confirmations.get(token[:64])

    async def use(self, token: str, now: datetime, outcome: str) -> bool:
        row = self._rows.confirmations.get(token)
        if row is None or row.used_at is not None:
            return False
        row.used_at, row.outcome = now, outcome
        return True


class MemoryDeliveries(_Repository):
    """uow.deliveries."""

    async def first_sight(self, key: str, now: datetime) -> bool:
        if key in self._rows.deliveries:
            return False
        self._rows.deliveries.add(key)
        return True


class MemoryRoles(_Repository):
    """uow.roles: the roles granted in chat, by platform workspace."""

    def _key(self, workspace: int, subject: Subject, subject_id: str) -> tuple[str, str, str, str]:
        platform, external = next(key for key, row in self._rows.workspaces.items() if row.id == workspace)
        return platform, external, subject.value, subject_id.casefold()

    async def role_of(self, where: ChannelRef, user_id: str, platform_roles: Sequence[str] = ()) -> Role | None:
        keys = [(where.platform, where.workspace_id, Subject.USER.value, user_id.casefold())]
        keys += [
            (where.platform, where.workspace_id, Subject.PLATFORM_ROLE.value, r.casefold()) for r in platform_roles
        ]
        found = [self._rows.roles[key].role for key in keys if key in self._rows.roles]
        return Role.ADMIN if Role.ADMIN in found else (Role.LEAD if found else None)

    async def grant(
        self, workspace: int, subject: Subject, subject_id: str, *, name: str, role: Role, by: str, now: datetime
    ) -> Role | None:
        key = self._key(workspace, subject, subject_id)
        before = self._rows.roles.get(key)
        if before is not None and (not name or name.casefold() == subject_id.casefold()):
            name = before.name
        self._rows.roles[key] = RoleGrant(subject, subject_id.casefold(), name, role, by, now)
        return before.role if before else None

    async def revoke(self, workspace: int, subject: Subject, subject_id: str, role: Role) -> bool:
        key = self._key(workspace, subject, subject_id)
        if key in self._rows.roles and self._rows.roles[key].role is role:
            del self._rows.roles[key]
            return True
        return False

    async def granted(self, workspace: int) -> list[RoleGrant]:
        platform, external = next(key for key, row in self._rows.workspaces.items() if row.id == workspace)
        grants = [grant for key, grant in self._rows.roles.items() if key[:2] == (platform, external)]
        return sorted(grants, key=lambda grant: grant.role is not Role.ADMIN)


class MemorySettings(_Repository):
    """uow.settings: what workspaces and channels set, and the history of changes."""

    async def overrides(self, where: ChannelRef) -> Overrides:
        found = self._rows.workspaces.get((where.platform, where.workspace_id))
        if found is None:
            return Overrides()
        channel = self._rows.channels.get((found.id, where.channel_id))
        return Overrides(
            workspace={k: v for (w, k), v in self._rows.workspace_settings.items() if w == found.id},
            channel={k: v for (c, k), v in self._rows.channel_settings.items() if c == channel},
        )

    async def change(
        self, workspace: int, channel: int | None, key: SettingKey, value: str | None, *, by: str, now: datetime
    ) -> str | None:
        table = self._rows.workspace_settings if channel is None else self._rows.channel_settings
        owner = workspace if channel is None else channel
        before = table.get((owner, key))
        if before == value:
            return before
        if value is None:
            del table[(owner, key)]
        else:
            table[(owner, key)] = value
        external = next((ext for (_, ext), row in self._rows.channels.items() if row == channel), None)
        scope = SettingScope.WORKSPACE if channel is None else SettingScope.CHANNEL
        self._rows.setting_changes.append((workspace, SettingChange(now, by, scope, external, key, before, value)))
        return before

    async def history(self, workspace: int, limit: int = 20) -> list[SettingChange]:
        return [change for w, change in reversed(self._rows.setting_changes) if w == workspace][:limit]


class MemoryDrafts(_Repository):
    """The review queue (bot/service/repositories/drafts.py), in memory."""

    async def add_draft(
        self,
        workspace: int,
        pack: str,
        content: DraftContent,
        *,
        author_id: str,
        author_name: str,
        now: datetime,
        origin: DraftOrigin = DraftOrigin.WRITTEN,
        extra: Any = None,
    ) -> Draft:
        draft = Draft(
            id=self._new_id("drafts"),
            workspace=workspace,
            pack=pack.casefold(),
            content=content,
            author_id=author_id,
            author_name=author_name,
            status=DraftStatus.PENDING,
            origin=origin,
            created_at=now,
        )
        self._rows.drafts[draft.id] = draft
        return draft

    async def get(self, workspace: int, draft_id: int) -> Draft | None:
        draft = self._rows.drafts.get(draft_id)
        return draft if draft is not None and draft.workspace == workspace else None

    async def extra(self, draft_id: int) -> dict[str, Any] | None:
        return None

    async def pending(self, workspace: int, *, limit: int = 100) -> list[Draft]:
        found = [d for d in self._rows.drafts.values() if d.workspace == workspace and d.status is DraftStatus.PENDING]
        return sorted(found, key=lambda d: d.id)[:limit]

    async def pending_questions(self, workspace: int, pack: str) -> set[tuple[str, tuple[str, ...]]]:
        return {
            (d.content.prompt, tuple(d.content.choices))
            for d in self._rows.drafts.values()
            if d.workspace == workspace and d.pack == pack.casefold() and d.status is DraftStatus.PENDING
        }

    async def edit(self, workspace: int, draft_id: int, content: DraftContent) -> bool:
        draft = await self.get(workspace, draft_id)
        if draft is None or draft.status is not DraftStatus.PENDING:
            return False
        self._rows.drafts[draft_id] = replace(draft, content=content)
        return True

    async def decide(
        self,
        workspace: int,
        draft_id: int,
        status: DraftStatus,
        *,
        by: str,
        now: datetime,
        reason: str = "",
        question_key: str | None = None,
    ) -> bool:
        draft = await self.get(workspace, draft_id)
        if draft is None or draft.status is not DraftStatus.PENDING:
            return False
        self._rows.drafts[draft_id] = replace(
            draft, status=status, decided_by=by, decided_at=now, reason=reason, question_key=question_key
        )
        return True


class MemoryWorkspacePacks(_Repository):
    """A workspace's own packs (bot/service/repositories/workspace_packs.py), in memory: no versions, no rotation
    (posting reads questions from SQL, so a post of a workspace pack is tested in tests/integration/)."""

    def _view(self, pack: WorkspacePack) -> WorkspacePack:
        return replace(pack, questions=len(self._rows.workspace_questions.get(pack.key, [])))

    async def get(self, workspace: int, slug: str) -> WorkspacePack | None:
        pack = self._rows.workspace_packs.get((workspace, slug.casefold()))
        return None if pack is None else self._view(pack)

    async def of_workspace(self, workspace: int) -> list[WorkspacePack]:
        found = [self._view(p) for (ws, _), p in self._rows.workspace_packs.items() if ws == workspace]
        return sorted(found, key=lambda p: p.slug)

    async def keys(self, workspace: int) -> dict[str, str]:
        return {p.slug: p.key for (ws, _), p in self._rows.workspace_packs.items() if ws == workspace}

    async def all_keys(self) -> set[str]:
        return {p.key for p in self._rows.workspace_packs.values()}

    async def refuse_shipped(self, slug: str) -> None:
        if not is_workspace_slug(slug):
            raise UserInputError(draft_words.bad_pack_slug(slug))
        if slug in self._uow.store.shipped:
            raise UserInputError(draft_words.shipped_pack(slug))

    async def create(
        self,
        workspace: int,
        slug: str,
        *,
        title: str,
        description: str = "",
        tags: Any = (),
        by: str,
        now: datetime,
    ) -> WorkspacePack:
        slug = slug.casefold()
        if (existing := await self.get(workspace, slug)) is not None:
            return existing
        await self.refuse_shipped(slug)
        pack = WorkspacePack(
            workspace, slug, workspace_pack_key(workspace, slug), title, description, tuple(tags), 0, by, now
        )
        self._rows.workspace_packs[(workspace, slug)] = pack
        return pack

    async def add_question(self, pack: WorkspacePack, question: Question, *, now: datetime) -> QuestionRow:
        questions = self._rows.workspace_questions.setdefault(pack.key, [])
        stored = replace(question, pack_id=pack.slug)
        index = next((i for i, q in enumerate(questions) if q.key == question.key), None)
        if index is None:
            questions.append(stored)
        else:
            questions[index] = stored
        return QuestionRow(pack_id=pack.key, key=question.key, prompt=question.prompt, active=True)

    async def question_keys(self, pack: WorkspacePack) -> set[str]:
        return {q.key for q in self._rows.workspace_questions.get(pack.key, [])}

    async def questions(self, pack: WorkspacePack) -> list[Question]:
        return list(self._rows.workspace_questions.get(pack.key, []))

    async def as_pack(self, pack: WorkspacePack) -> Pack:
        return Pack(pack.slug, pack.title, pack.description, tuple(await self.questions(pack)), pack.tags)

    async def store_pack(self, workspace: int, pack: Pack, *, by: str, now: datetime) -> StoredPack:
        created = await self.get(workspace, pack.id) is None
        stored = await self.create(workspace, pack.id, title=pack.title, description=pack.description, by=by, now=now)
        self._rows.workspace_questions[stored.key] = [replace(q, pack_id=stored.slug) for q in pack.questions]
        return StoredPack(
            self._view(stored), added=len(pack.questions), created=created, keys=tuple(q.key for q in pack.questions)
        )


class MemoryUnitOfWork:
    """A unit of work over a MemoryStore: works on a copy of the committed rows, which `commit` makes the committed
    ones; leaving the block without committing drops the copy (a rollback)."""

    dialect = "memory"

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self._after_commit: list[Callable[[], None]] = []

    async def __aenter__(self) -> Self:
        self.rows = copy.deepcopy(self.store.committed)
        self.places = MemoryPlaces(self)
        self.seasons = MemorySeasons(self)
        self.schedules = MemorySchedules(self)
        self.schedule_listing = MemoryScheduleListing(self)
        self.confirmations = MemoryConfirmations(self)
        self.deliveries = MemoryDeliveries(self)
        self.roles = MemoryRoles(self)
        self.settings = MemorySettings(self)
        self.drafts = MemoryDrafts(self)
        self.workspace_packs = MemoryWorkspacePacks(self)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._after_commit.clear()

    async def commit(self) -> None:
        """Make this unit's rows the committed ones, then run the after-commit callbacks."""
        self.store.committed = copy.deepcopy(self.rows)
        self.store.commits += 1
        callbacks, self._after_commit = self._after_commit, []
        for callback in callbacks:
            callback()

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run `callback` once this unit of work has committed (never if it is dropped)."""
        self._after_commit.append(callback)


@dataclass
class MemoryApp:
    """The core wired to the in-memory store and a FakePlatform named `fake` (what `runtime` is to the SQL tiers)."""

    app: QuizApp
    store: MemoryStore
    platform: FakePlatform


def bootstrap_test_app(
    *, clock: Clock, content_dir: Path, default_timezone: str = "UTC", confirm_seconds: float = 600
) -> MemoryApp:
    """The real QuizApp, its handlers and use cases, on an in-memory unit of work and the fake platform."""
    store = MemoryStore(default_timezone=default_timezone)

    def uow() -> Any:
        return MemoryUnitOfWork(store)

    catalog = load_catalog(content_dir)
    store.shipped = frozenset(pack.id for pack in catalog.packs)
    platforms = PlatformRegistry()
    platform = FakePlatform()
    platforms.register(platform)
    quiz = QuizService(uow=uow, catalog=catalog, platforms=platforms, clock=clock, rng=random.Random(7))
    stats = Stats(uow)
    app = QuizApp(
        uow=uow,
        quiz=quiz,
        answers=AnswerRecorder(uow=uow, directory=Directory(default_timezone=default_timezone), clock=clock),
        stats=stats,
        cards=CardRefresher(platforms=platforms, interval=0.0),
        clock=clock,
        cohorts=CohortService(catalog=catalog, clock=clock, quiz=quiz),
        review=ReviewService(clock=clock, rng=random.Random(7)),
        reports=ReportService(uow=uow, stats=stats, clock=clock),
        schedules=ScheduleService(catalog=catalog, clock=clock),
        flags=FlagService(clock=clock),
        seasons=SeasonService(clock=clock, stats=stats, platforms=platforms, fanout=FanOut()),
        confirmations=Confirmations(clock=clock, ttl=timedelta(seconds=confirm_seconds)),
    )
    return MemoryApp(app=app, store=store, platform=platform)
