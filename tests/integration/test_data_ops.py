"""`quizbot doctor`, `quizbot export` and `quizbot forget-user`, through the CLI, on both databases."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from pathlib import Path

import pytest
from sqlalchemy import func, select, update

from bot.cli import main
from bot.commands import Scope, Window
from bot.db.models import Answer, Base, Post, Schedule, User
from bot.domain import ChannelRef, UserRef
from bot.runtime import Runtime
from bot.service.facade import Invocation
from bot.service.repositories.people import tables_referencing_users
from tests.conftest import SEED_CONTENT, make_user, use_patient_database


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, database_url: str, tmp_path: Path) -> Path:
    import os

    for name in list(os.environ):
        if name.startswith("QUIZBOT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", database_url)
    use_patient_database(monkeypatch)
    monkeypatch.setenv("QUIZBOT_CONTENT_DIR", str(SEED_CONTENT))
    monkeypatch.chdir(tmp_path)
    return tmp_path


async def _cli(*args: str) -> int:
    return await asyncio.to_thread(main, list(args))


async def _play(runtime: Runtime, channel: ChannelRef) -> None:
    for names in (["alice", "bob"], ["alice", "carol", "bob"]):
        card = (await runtime.quiz.post_question(channel, posted_by=make_user("bob"))).card
        for i, name in enumerate(names):
            runtime.clock.advance(5)  # type: ignore[attr-defined]
            await runtime.app.answer(post_id=card.post_id, user=make_user(name), choice_index=card.choice_ids[i % 2])
        await runtime.app.reveal(card.post_id)


async def test_export_json_round_trips_the_database(
    runtime: Runtime, channel: ChannelRef, cli_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await _play(runtime, channel)
    assert await _cli("export", "--format", "json") == 0
    data = json.loads(capsys.readouterr().out)
    async with runtime.db.transaction() as session:
        answers = (await session.execute(select(Answer).order_by(Answer.id))).scalars().all()
        posts = (await session.execute(select(Post).order_by(Post.id))).scalars().all()
    assert [a["answer_id"] for a in data["answers"]] == [a.id for a in answers]
    assert [(a["choice_index"], a["correct"], a["points"]) for a in data["answers"]] == [
        (a.choice_index, a.is_correct, a.points) for a in answers
    ]
    assert [p["post_id"] for p in data["posts"]] == [p.id for p in posts]
    assert [p["answers"] for p in data["posts"]] == [2, 3]
    board = await runtime.stats.leaderboard(channel, window=Window.ALL, scope=Scope.WORKSPACE, now=runtime.clock.now())
    assert [(r["user_name"], r["points"], r["rank"]) for r in data["leaderboard"]] == [
        (r.name, r.points, r.rank) for r in board.rows
    ]


async def test_export_csv_matches_json_and_since_filters(
    runtime: Runtime, channel: ChannelRef, cli_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await _play(runtime, channel)
    assert await _cli("export", "--format", "json", "--out", "all.json") == 0
    assert await _cli("export", "--format", "csv", "--out", "csv") == 0
    data = json.loads((cli_env / "all.json").read_text(encoding="utf-8"))
    for name in ("answers", "posts", "leaderboard"):
        with (cli_env / "csv" / f"{name}.csv").open(encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        assert rows == [{k: "" if v is None else str(v) for k, v in row.items()} for row in data[name]]
    assert await _cli("export", "--since", "2999-01-01") == 0
    future = json.loads(capsys.readouterr().out)
    assert future["answers"] == []
    assert future["posts"] == []
    assert await _cli("export", "--format", "csv") == 2
    assert "give a folder with --out" in capsys.readouterr().err


async def test_export_leaderboard_ids_come_from_the_rows_not_the_names(
    runtime: Runtime, channel: ChannelRef, cli_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three people called Alex: each keeps their own id and their own points."""
    alexes = [UserRef("fake", "W1", f"U-alex-{n}", "Alex") for n in range(3)]
    for rounds, alex in enumerate(alexes, start=1):
        for _ in range(rounds):
            card = (await runtime.quiz.post_question(channel)).card
            right = next(q for p in runtime.catalog.packs for q in p.questions if q.prompt == card.prompt)
            await runtime.app.answer(post_id=card.post_id, user=alex, choice_index=right.correct_index)
    assert await _cli("export", "--format", "json") == 0
    rows = json.loads(capsys.readouterr().out)["leaderboard"]
    assert [(r["user_id"], r["user_name"], r["points"], r["answered"], r["rank"]) for r in rows] == [
        ("U-alex-2", "Alex", 60, 3, 1),
        ("U-alex-1", "Alex", 40, 2, 2),
        ("U-alex-0", "Alex", 20, 1, 3),
    ]


HOSTILE_NAMES = (
    '=HYPERLINK("https://evil.example/x","click me")',
    "+cmd|' /C calc'!A0",
    "@SUM(1+1)",
    "-2+3+cmd|' /C calc'!A0",
    "\tTabbed",
    "'quoted",
)


async def test_export_csv_cells_never_start_like_a_formula_and_names_stay_readable(
    runtime: Runtime, channel: ChannelRef, cli_env: Path
) -> None:
    """Any Discord user can choose a name such as `=HYPERLINK(...)`: in every CSV the export writes, no cell starts
    with `=`, `+`, `-`, `@`, a tab or a carriage return (OWASP), invisible characters are dropped, and the name is
    still there after the apostrophe that keeps it text."""
    card = (await runtime.quiz.post_question(channel)).card
    for n, name in enumerate(HOSTILE_NAMES):
        user = UserRef("fake", "W1", f"U-hostile-{n}", name)
        await runtime.app.answer(post_id=card.post_id, user=user, choice_index=card.choice_ids[0])
    async with runtime.db.transaction() as session:  # a name stored before names were cleaned on the way in
        await session.execute(
            update(User).where(User.external_id == "U-hostile-0").values(display_name="\r=1+1\u202e\u200b")
        )
    assert await _cli("export", "--format", "csv", "--out", "csv") == 0
    seen_names: list[str] = []
    for name in ("answers", "posts", "leaderboard"):
        with (cli_env / "csv" / f"{name}.csv").open(encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle))
        for row in rows:
            for cell in row:
                assert not cell.startswith(("=", "+", "-", "@", "\t", "\r", "\n")), (name, cell)
                assert not any(ch in "\u202e\u200b" for ch in cell), (name, cell)
        if name == "leaderboard":
            header = rows[0]
            seen_names = [row[header.index("user_name")] for row in rows[1:]]
    assert sorted(seen_names) == sorted(
        ["'\n=1+1", "'+cmd|' /C calc'!A0", "'@SUM(1+1)", "'-2+3+cmd|' /C calc'!A0", "Tabbed", "''quoted"]
    )  # the tab went with the name's white space on the way in


async def test_a_name_is_one_line_and_visible_wherever_it_is_shown(
    runtime: Runtime, channel: ChannelRef, cli_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A newline in a display name rendered as a line of its own on a leaderboard: names are one line, without
    invisible characters, from the moment they arrive; a joiner inside an emoji sequence or a word stays."""
    card = (await runtime.quiz.post_question(channel)).card
    names = [
        "Eve\n1. Mallory — 9999 points",
        "a\u200bdmin\u202e",
        "Dev 👩\u200d💻",
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
    ]
    for n, name in enumerate(names):
        user = UserRef("fake", "W1", f"U-{n}", name)
        await runtime.app.answer(post_id=card.post_id, user=user, choice_index=card.choice_ids[0])
    assert await _cli("export", "--format", "json") == 0
    shown = {row["user_name"] for row in json.loads(capsys.readouterr().out)["leaderboard"]}
    assert shown == {
        "Eve 1. Mallory — 9999 points",
        "admin",
        "Dev 👩\u200d💻",
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
    }
    reply = await runtime.app.handle_command(Invocation(channel, make_user("alice"), "leaderboard all"))
    text = "\n".join(reply.message.lines)
    assert "Mallory" in text and not any(line.startswith("1. Mallory") for line in text.splitlines())


async def test_forget_user_removes_every_row_of_that_user_and_nothing_else(
    runtime: Runtime, channel: ChannelRef, cli_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await _play(runtime, channel)
    other_workspace = ChannelRef("fake", "W2", "C9")
    card = (await runtime.quiz.post_question(other_workspace)).card
    await runtime.app.answer(post_id=card.post_id, user=make_user("bob", "W2"), choice_index=0)

    async def counts() -> dict[str, int]:
        async with runtime.db.transaction() as session:
            return {
                table.name: (await session.execute(select(func.count()).select_from(table))).scalar_one()
                for table in Base.metadata.sorted_tables
            }

    async def bob_rows() -> dict[str, int]:
        async with runtime.db.transaction() as session:
            ids = list((await session.execute(select(User.id).where(User.external_id == "U-bob"))).scalars())
            out = {}
            for table, column, _ in tables_referencing_users():
                out[f"{table.name}.{column}"] = (
                    await session.execute(select(func.count()).select_from(table).where(table.c[column].in_(ids)))
                ).scalar_one()
            return out

    before = await counts()
    assert await _cli("forget-user", "fake", "U-bob", "--workspace", "W1", "--yes") == 0
    assert "forgot fake user U-bob" in capsys.readouterr().out
    after = await counts()
    assert before["answers"] - after["answers"] == 2  # bob's two answers in W1; his W2 answer stays
    assert before["users"] - after["users"] == 1
    assert before["posts"] == after["posts"]  # the posts he started remain, without his name
    async with runtime.db.transaction() as session:
        names = set((await session.execute(select(User.display_name))).scalars())
        assert (await session.execute(select(func.count()).where(Post.posted_by.is_not(None)))).scalar_one() == 0
    assert names == {"alice", "carol", "bob"}  # the W2 bob
    board = await runtime.app.handle_command(Invocation(channel, make_user("alice"), "leaderboard workspace"))
    assert "bob" not in board.message.text
    assert "alice" in board.message.text

    assert await _cli("forget-user", "fake", "U-bob", "--yes") == 0  # the rest of bob, everywhere
    assert all(n == 0 for n in (await bob_rows()).values())
    assert await _cli("forget-user", "fake", "U-nobody") == 2
    assert "nothing was deleted" in capsys.readouterr().err


async def _columns_holding(runtime: Runtime, needles: list[str]) -> list[str]:
    """`table.column` of every column of every table in the database (reflected, so tables added by any
    migration are scanned too) whose text holds one of `needles`, case-insensitively."""
    from sqlalchemy import MetaData, Text, cast, or_

    metadata = MetaData()
    async with runtime.db.engine.connect() as connection:
        await connection.run_sync(lambda sync: metadata.reflect(bind=sync))
        found = []
        for table in metadata.sorted_tables:
            for column in table.columns:
                text = func.lower(cast(column, Text))
                matches = or_(*(text.contains(needle.lower(), autoescape=True) for needle in needles))
                count = (await connection.execute(select(func.count()).select_from(table).where(matches))).scalar_one()
                if count:
                    found.append(f"{table.name}.{column.name}")
    return found


async def test_forget_user_leaves_their_name_and_id_in_no_column_of_any_table(
    runtime: Runtime, channel: ChannelRef, cli_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alice = UserRef("fake", "W1", "U-alice-smith", "Alice Smith")
    bob = make_user("bob")

    async def as_(user: UserRef, text: str, where: ChannelRef = channel) -> None:
        reply = await runtime.app.handle_command(Invocation(where, user, text, is_admin=True))
        assert reply.ok, reply.message.text

    await as_(alice, "now")
    await as_(alice, "schedule add daily 09:00")
    await as_(alice, "schedule add weekdays 12:00")
    await as_(alice, "schedule pause 1")
    await as_(alice, "cohort create alices-cohort")
    await as_(alice, "cohort join alices-cohort")
    await as_(alice, "cohort add alices-cohort <@U-bob>")
    await as_(bob, "cohort create bobs")
    await as_(bob, "cohort add bobs <@U-alice-smith>")
    card = (await runtime.app.card(await runtime.app.current_post_id(channel))).card
    await runtime.app.answer(post_id=card.post_id, user=alice, choice_index=card.choice_ids[0], channel=channel)
    await runtime.app.answer(post_id=card.post_id, user=alice, choice_index=card.choice_ids[1], channel=channel)
    await runtime.app.reveal(card.post_id)
    renamed = UserRef("fake", "W1", "U-alice-smith", "Alice S.")  # the name changes; the pause was made before
    await as_(renamed, "now")
    await as_(renamed, "schedule pause 2")
    await as_(renamed, "season start alices-season")  # a season she started, and one she asked to end
    await as_(renamed, "season end")
    await as_(renamed, "cohort delete bobs")  # a pending confirmation holds her platform id and name
    runtime.clock.advance(3600)  # type: ignore[attr-defined]
    await as_(renamed, "review")
    listing = await runtime.app.handle_command(Invocation(channel, bob, "schedule list"))
    assert "paused (paused by Alice S.)" in listing.message.text  # who paused, by their current name
    elsewhere = ChannelRef("fake", "W2", "C1")
    await as_(UserRef("fake", "W2", "U-alice-smith", "Alice Smith"), "now", elsewhere)

    async with runtime.db.transaction() as session:  # a pause reason as versions before this one wrote it
        await session.execute(update(Schedule).where(Schedule.id == 1).values(paused_reason="paused by Alice S."))

    needles = ["Alice Smith", "Alice S.", "U-alice-smith"]
    assert await _columns_holding(runtime, needles)  # the scan finds them before
    assert await _cli("forget-user", "fake", "U-alice-smith", "--yes") == 0
    assert "forgot fake user U-alice-smith" in capsys.readouterr().out
    assert await _columns_holding(runtime, needles) == []
    listing = await runtime.app.handle_command(Invocation(channel, bob, "schedule list"))
    assert "Alice" not in listing.message.text
    assert "paused (paused by someone who is no longer here)" in listing.message.text


async def test_doctor_on_a_good_configuration(cli_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert await _cli("doctor") == 0
    out = capsys.readouterr().out
    assert "OK   database: reachable" in out
    assert "OK   migrations: at the newest revision" in out
    assert "OK   content: 2 packs, 16 questions" in out
    assert out.strip().endswith("all good")


async def test_doctor_says_what_to_fix(
    cli_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("QUIZBOT_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:1/none")
    monkeypatch.setenv("QUIZBOT_SLACK_BOT_TOKEN", "xoxp-user-token")
    monkeypatch.setenv("QUIZBOT_SLACK_SIGNING_SECRET", "not-hex")
    monkeypatch.setenv("QUIZBOT_DISCORD_TOKEN", "nope")
    bad_packs = cli_env / "packs"
    bad_packs.mkdir()
    (bad_packs / "x.yaml").write_text("id: x\ntitle: X\nquestions: []\n", encoding="utf-8")
    monkeypatch.setenv("QUIZBOT_CONTENT_DIR", str(bad_packs))
    assert await _cli("doctor") == 1
    out = capsys.readouterr().out
    assert "FAIL database: cannot connect" in out
    assert "fix: check QUIZBOT_DATABASE_URL" in out
    assert "FAIL Slack bot token: QUIZBOT_SLACK_BOT_TOKEN does not start with xoxb-" in out
    assert "FAIL Slack signing secret" in out
    assert "FAIL Discord token" in out
    assert "FAIL content: " in out
    assert "5 problems to fix" in out  # issue 12: counts are pluralised, not hedged with (s)


async def test_doctor_on_an_invalid_setting(
    cli_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("QUIZBOT_TIMEZONE", "Atlantis/Capital")
    assert await _cli("doctor") == 1
    assert "QUIZBOT_TIMEZONE: unknown IANA timezone" in capsys.readouterr().out


async def test_doctor_counts_one_problem_as_one(
    cli_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("QUIZBOT_SLACK_BOT_TOKEN", "xoxp-user-token")  # the one problem: a user token
    monkeypatch.setenv("QUIZBOT_SLACK_APP_TOKEN", "xapp-1-A0-1-" + "a" * 64)
    assert await _cli("doctor") == 1
    out = capsys.readouterr().out
    assert "FAIL Slack bot token" in out
    assert out.strip().endswith("\n1 problem to fix"), out


class _Terminal(io.StringIO):
    """Typed answers on a terminal (isatty), for the questions `quizbot forget-user` asks."""

    def isatty(self) -> bool:
        return True


async def test_forget_user_asks_on_a_terminal_and_refuses_without_one(
    runtime: Runtime,
    channel: ChannelRef,
    cli_env: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await _play(runtime, channel)

    async def users() -> set[str]:
        async with runtime.db.transaction() as session:
            return set((await session.execute(select(User.external_id))).scalars())

    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # not a terminal, and no --yes
    capsys.readouterr()
    assert await _cli("forget-user", "fake", "U-bob") == 2
    out, err = capsys.readouterr()
    assert err == "quizbot: forget-user deletes data and needs confirmation: pass --yes to run it without a terminal.\n"
    assert "U-bob" in await users()

    monkeypatch.setattr("sys.stdin", _Terminal("n\n"))
    assert await _cli("forget-user", "fake", "U-bob", "--workspace", "W1") == 1
    out, _ = capsys.readouterr()
    assert out == (
        "Delete everything stored about fake user U-bob in workspace W1 (answers, scores, review, memberships)? "
        "[y/N] Cancelled: nothing was deleted.\n"
    )
    assert "U-bob" in await users()

    monkeypatch.setattr("sys.stdin", _Terminal(""))  # end of input is no
    assert await _cli("forget-user", "fake", "U-bob") == 1
    assert "U-bob" in await users()

    monkeypatch.setattr("sys.stdin", _Terminal("y\n"))
    assert await _cli("forget-user", "fake", "U-bob") == 0
    assert "forgot fake user U-bob" in capsys.readouterr().out
    assert "U-bob" not in await users()
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert await _cli("forget-user", "fake", "U-nobody") == 2  # an unknown user is said before anything is asked
    assert "nothing was deleted" in capsys.readouterr().err
