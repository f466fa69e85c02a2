"""Shared fixtures: every database test runs on SQLite and on PostgreSQL.

PostgreSQL comes from QUIZBOT_TEST_POSTGRES_URL (default: the local server on 127.0.0.1:5432). Each test run
creates its own database there, migrates it once, and empties it between tests. When PostgreSQL cannot be
reached the PostgreSQL variants fail; deselect them locally with `-m "not postgres"` if you have none.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from bot.clock import ManualClock
from bot.config import Settings
from bot.db import Database
from bot.db.migrate import upgrade
from bot.db.models import Base
from bot.domain import ChannelRef, UserRef
from bot.runtime import Runtime, build_runtime
from tests.fakes.fake_platform import FakePlatform

pytest_plugins = ["tests.slack_harness"]  # the Slack fixtures (`fake`, no proxies) for every Slack test module

REPO = Path(__file__).resolve().parent.parent
CONTENT = REPO / "content"
SEED_CONTENT = REPO / "tests" / "data" / "seed-content"
"""The two seed packs alone (links to content/): the core's tests count questions, rotations and curricula against
these 16 questions, so adding packs to content/ does not change what they check."""
POSTGRES_ADMIN_URL = os.environ.get(
    "QUIZBOT_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
)


async def _create_pg_database(name: str) -> None:
    admin = create_async_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as conn:
            await conn.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        await admin.dispose()


async def _drop_pg_database(name: str) -> None:
    admin = create_async_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as conn:
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        await admin.dispose()


def _pg_url(name: str) -> str:
    base, _, _ = POSTGRES_ADMIN_URL.rpartition("/")
    return f"{base}/{name}"


async def _migrate(url: str) -> None:
    db = Database.from_url(url)
    try:
        await upgrade(db)
    finally:
        await db.dispose()


@pytest.fixture(scope="session")
def postgres_template() -> Iterator[str]:
    """A migrated PostgreSQL database for this test run (dropped at the end)."""
    name = f"quizbot_test_{uuid.uuid4().hex[:12]}"
    try:
        asyncio.run(_create_pg_database(name))
    except Exception as exc:
        pytest.fail(f"PostgreSQL is not reachable at {POSTGRES_ADMIN_URL}: {exc}", pytrace=False)
    url = _pg_url(name)
    try:
        asyncio.run(_migrate(url))
        yield url
    finally:
        asyncio.run(_drop_pg_database(name))


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated SQLite file, copied for each test."""
    path = tmp_path_factory.mktemp("sqlite-template") / "template.db"
    asyncio.run(_migrate(f"sqlite+aiosqlite:///{path}"))
    return path


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty, migrated database: a fresh SQLite file, or the run's PostgreSQL emptied first."""
    if request.param == "sqlite":
        template: Path = request.getfixturevalue("sqlite_template")
        path = tmp_path / "quizbot.db"
        shutil.copy(template, path)
        yield f"sqlite+aiosqlite:///{path}"
        return
    url: str = request.getfixturevalue("postgres_template")
    asyncio.run(_truncate(url))  # before, not after: a test that used the database directly may have left rows
    yield url


async def _truncate(url: str) -> None:
    engine = create_async_engine(url)
    try:
        async with engine.begin() as conn:
            tables = ", ".join(t.name for t in Base.metadata.sorted_tables)
            await conn.execute(text(f"TRUNCATE {tables} RESTART IDENTITY CASCADE"))
    finally:
        await engine.dispose()


@pytest.fixture
def clock() -> ManualClock:
    """A clock tests move by hand."""
    return ManualClock()


@pytest.fixture
def settings(database_url: str) -> Settings:
    """Settings for a test bot on the test database and the two seed packs.

    The database waits are generous (`PATIENT_DATABASE`): the production ones are about a second, on purpose, and a
    machine busy with other work (CI may share it) can take that long to open a PostgreSQL connection or hand out a
    pooled one, which failed tests that are not about timeouts (two replicas ticking at once). A module that needs
    other settings builds them with `patient_settings`; tests about the timeouts set their own (test_db_partition);
    tests/unit/test_patient_settings.py checks both."""
    return patient_settings(database_url=database_url, content_dir=SEED_CONTENT, card_update_interval=0.0)


PATIENT_DATABASE: dict[str, float] = {
    "database_connect_timeout": 20.0,
    "database_statement_timeout": 30.0,
    "database_pool_timeout": 20.0,
}
"""Database waits for tests that are not about them: long enough for a loaded machine, short enough that a real
hang still fails the test."""

PATIENT_DATABASE_ENV: dict[str, str] = {
    f"QUIZBOT_{name.upper()}": str(value) for name, value in PATIENT_DATABASE.items()
}
"""`PATIENT_DATABASE` as environment variables, for a bot a test starts as its own process."""


def use_patient_database(monkeypatch: pytest.MonkeyPatch) -> None:
    """`PATIENT_DATABASE` in this process's environment, for a test that runs the CLI (`bot.cli.main`) here with
    QUIZBOT_DATABASE_URL set: the settings it loads wait as patiently as the `settings` fixture's."""
    for name, value in PATIENT_DATABASE_ENV.items():
        monkeypatch.setenv(name, value)


def patient_settings(**fields: Any) -> Settings:
    """Settings a test builds itself (no .env file read) with the `PATIENT_DATABASE` waits: a module whose bot needs
    other settings than the `settings` fixture's calls this rather than `Settings(...)`, so a loaded machine does not
    fail it on the production waits (tests/unit/test_patient_settings.py checks every module does). `fields` are
    Settings fields; they may set a wait themselves (a test about that wait)."""
    return Settings(_env_file=None, **{**PATIENT_DATABASE, **fields})  # type: ignore[call-arg]


@pytest.fixture
async def runtime(settings: Settings, clock: ManualClock) -> AsyncIterator[Runtime]:
    """The core wired to a FakePlatform named `fake`."""
    rt = await build_runtime(settings, clock=clock, rng=random.Random(7), migrate=False)
    rt.platforms.register(FakePlatform())
    try:
        yield rt
    finally:
        await rt.aclose()


@pytest.fixture
def platform(runtime: Runtime) -> FakePlatform:
    """The fake platform of `runtime`."""
    fake = runtime.platforms.get("fake")
    assert isinstance(fake, FakePlatform)
    return fake


@pytest.fixture
def channel() -> ChannelRef:
    """A channel on the fake platform."""
    return ChannelRef(platform="fake", workspace_id="W1", channel_id="C1")


def make_user(name: str, workspace: str = "W1") -> UserRef:
    """A user on the fake platform."""
    return UserRef(platform="fake", workspace_id=workspace, user_id=f"U-{name}", display_name=name)


DATABASE_FIXTURES = {"database_url", "postgres_template", "sqlite_template", "runtime", "settings"}
UNIT_TIER = Path(__file__).resolve().parent / "unit"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The unit tier runs without a database: a test there that asks for one is a collection error."""
    for item in items:
        if Path(str(item.fspath)).is_relative_to(UNIT_TIER):
            wanted = DATABASE_FIXTURES & set(getattr(item, "fixturenames", ()))
            if wanted:
                raise pytest.UsageError(f"{item.nodeid} is in tests/unit but uses {', '.join(sorted(wanted))}")
