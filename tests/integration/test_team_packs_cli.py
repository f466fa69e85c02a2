"""A workspace's own packs and the command line, on SQLite and PostgreSQL: `quizbot content export --workspace` writes
a pack approved in chat as YAML, GIFT or CSV, `quizbot content import --workspace` stores it back (the round trip),
a shipped pack's id and a pack the schema refuses are refused with nothing stored; and migration 0016 downgrades
and upgrades."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import yaml
from alembic import command
from sqlalchemy import Connection, inspect

from bot.db import Database
from bot.db.migrate import alembic_config, upgrade
from bot.domain import ChannelRef
from bot.runtime import Runtime
from tests.conftest import SEED_CONTENT, use_patient_database
from tests.integration.test_drafts import GOOD, run, submit


async def approved_pack(runtime: Runtime, channel: ChannelRef) -> None:
    await submit(runtime, channel, "ann", "runbooks", GOOD)
    second = dict(GOOD, prompt="Which NCCL call moves one rank's tensor to every rank?")
    second["choices"] = "all-reduce\n*broadcast\nscatter"
    second["explanation"] = "Broadcast copies one rank's tensor to all. All-reduce would sum them instead."
    await submit(runtime, channel, "ann", "runbooks", second)
    for draft in (1, 2):
        assert (await run(runtime, channel, "lee", f"drafts approve {draft}", admin=True)).ok


async def packs_of(runtime: Runtime, external: str) -> list[tuple[str, int]]:
    async with runtime.uow() as uow:
        workspace = await uow.places.workspace("fake", external)
        if workspace is None:
            return []
        return [(p.slug, p.questions) for p in await uow.workspace_packs.of_workspace(workspace.id)]


async def test_export_then_import_round_trip(
    runtime: Runtime,
    channel: ChannelRef,
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from bot.cli import main

    await approved_pack(runtime, channel)
    await run(runtime, ChannelRef("fake", "W2", "C1"), "zed", "drafts", admin=True)  # W2 exists, with no packs yet
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", database_url)
    use_patient_database(monkeypatch)
    monkeypatch.setenv("QUIZBOT_CONTENT_DIR", str(SEED_CONTENT))
    capsys.readouterr()

    out = tmp_path / "runbooks.yaml"
    assert (
        await asyncio.to_thread(main, ["content", "export", "runbooks", "--workspace", "fake:W1", "-o", str(out)]) == 0
    )
    assert "Wrote " in capsys.readouterr().err
    data = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert data["id"] == "runbooks" and [q["answer"] for q in data["questions"]] == [1, 2]
    assert data["questions"][0]["references"] == [GOOD["references"]]
    assert await asyncio.to_thread(main, ["content", "check", str(out)]) == 0  # a valid pack file
    for fmt in ("gift", "csv"):
        assert (
            await asyncio.to_thread(main, ["content", "export", "runbooks", "--workspace", "fake:W1", "--format", fmt])
            == 0
        )
        assert "all-reduce" in capsys.readouterr().out

    assert await asyncio.to_thread(main, ["content", "import", str(out), "--workspace", "fake:W2"]) == 0
    assert "Created pack `runbooks` in fake:W2: 2 questions new" in capsys.readouterr().err
    assert await packs_of(runtime, "W2") == [("runbooks", 2)]
    data["questions"][0]["prompt"] = "Which collective sums gradients and gives every rank the total?"
    del data["questions"][1]
    out.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    assert await asyncio.to_thread(main, ["content", "import", str(out), "--workspace", "fake:W2"]) == 0
    assert "Updated pack `runbooks` in fake:W2: 0 questions new, 1 changed, 1 retired." in capsys.readouterr().err
    assert await packs_of(runtime, "W2") == [("runbooks", 1)]
    posted = await run(runtime, ChannelRef("fake", "W2", "C1"), "zed", "now runbooks")
    assert posted.ok, posted.message

    shipped = tmp_path / "shipped.yaml"
    data["id"] = runtime.app.quiz.catalog.packs[0].id
    shipped.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    assert await asyncio.to_thread(main, ["content", "import", str(shipped), "--workspace", "fake:W2"]) == 2
    assert "is a shipped pack" in capsys.readouterr().err
    broken = tmp_path / "broken.yaml"
    data["id"] = "broken"
    data["questions"][0]["answer"] = 9
    broken.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    assert await asyncio.to_thread(main, ["content", "import", str(broken), "--workspace", "fake:W2"]) == 2
    assert "answer" in capsys.readouterr().err
    assert await packs_of(runtime, "W2") == [("runbooks", 1)]  # nothing half-stored
    assert (
        await asyncio.to_thread(main, ["content", "export", "nope", "--workspace", "fake:W1", "--format", "yaml"]) == 2
    )
    assert "Workspace fake:W1 has no pack `nope`. Its packs: runbooks." in capsys.readouterr().err
    assert (
        await asyncio.to_thread(main, ["content", "export", "runbooks", "--workspace", "fake:W9", "--format", "yaml"])
        == 2
    )
    assert "The database has no workspace fake:W9." in capsys.readouterr().err


async def test_the_migration_downgrades_and_upgrades(runtime: Runtime, channel: ChannelRef, database_url: str) -> None:
    await approved_pack(runtime, channel)
    db = Database.from_url(database_url)

    def downgrade(connection: Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        command.downgrade(config, "0014")

    def tables(connection: Connection) -> set[str]:
        return set(inspect(connection).get_table_names())

    def question_columns(connection: Connection) -> set[str]:
        return {column["name"] for column in inspect(connection).get_columns("questions")}

    try:
        async with db.engine.begin() as connection:
            await connection.run_sync(downgrade)
        async with db.engine.connect() as connection:
            assert not {"workspace_packs", "question_drafts"} & await connection.run_sync(tables)
            assert "references" not in await connection.run_sync(question_columns)
    finally:
        await upgrade(db)
    try:
        async with db.engine.connect() as connection:
            assert {"workspace_packs", "question_drafts"} <= await connection.run_sync(tables)
            assert "references" in await connection.run_sync(question_columns)
    finally:
        await db.dispose()
    await run(runtime, channel, "ann", "packs")  # the service works on the upgraded schema
    assert (await submit(runtime, channel, "ann", "team", GOOD)).ok
