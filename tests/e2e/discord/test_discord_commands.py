"""`/quiz` typed options through the real discord.py client and the loopback fake Discord: each subcommand builds
the command object the core runs (the same one the text grammar parses), and a bad option is refused at the edge
with the grammar's own message."""

from __future__ import annotations

import ast
from datetime import date, timedelta
from typing import Any

import pytest
from discord import app_commands

from adapters.discord.adapter import DiscordAdapter
from adapters.discord.commands import QuizCommands
from adapters.discord.embeds import problem_embed
from bot.commands import (
    SPECS,
    AddCohortSchedule,
    AddSchedule,
    AddToCohort,
    AnswerReview,
    ClearFlags,
    Command,
    CreateCohort,
    DeleteCohort,
    EndSeason,
    FlagQuestion,
    JoinCohort,
    LeaveCohort,
    ListCohorts,
    ListFlags,
    ListPacks,
    ListSchedules,
    ListSeasons,
    NextSchedule,
    PauseSchedule,
    PostCohortQuestion,
    PostNow,
    RemindCohort,
    RemoveFromCohort,
    RemoveSchedule,
    ResumeSchedule,
    Reveal,
    SetCohort,
    ShowCohort,
    ShowHelp,
    ShowLeaderboard,
    ShowMe,
    ShowReport,
    StartReview,
    StartSeason,
    parse_command,
)
from bot.config import Settings
from bot.domain import ChannelRef, Delivery
from bot.domain.windows import Scope, Window
from bot.errors import CommandError
from bot.runtime import Runtime
from bot.schedule_rules import parse_rule
from bot.service.facade import Context, Invocation, Reply, error_reply
from bot.wording.errors import unexpected
from tests.conftest import CONTENT, REPO
from tests.discord_support import serving, slash, text_of
from tests.e2e.discord.conftest import discord_settings
from tests.fakes.discord_api import FakeDiscord

ADAPTER_DIR = REPO / "adapters" / "discord"
MANAGE_SERVER = 1 << 5


@pytest.fixture
def settings(database_url: str) -> Settings:
    """The shipped content folder (every pack), which this module has always used."""
    return discord_settings(database_url, CONTENT)


@pytest.fixture
def executed(runtime: Runtime, monkeypatch: pytest.MonkeyPatch) -> list[Command]:
    """Every command object that reaches `QuizApp.execute`, in order; the text parser must never be used."""
    seen: list[Command] = []
    execute = runtime.app.execute

    async def recording(command: Command, context: Context) -> Reply:
        seen.append(command)
        return await execute(command, context)

    async def no_text(invocation: Invocation) -> Reply:
        raise AssertionError(f"a slash command went through the text parser: {invocation.text!r}")

    monkeypatch.setattr(runtime.app, "execute", recording)
    monkeypatch.setattr(runtime.app, "handle_command", no_text)
    return seen


# (group, subcommand, typed options, the command object, the same command typed as text)
TYPED: list[tuple[str | None, str, dict[str, Any], Command, str]] = [
    (None, "now", {}, PostNow(), "now"),
    (None, "now", {"pack": "data-parallelism"}, PostNow("data-parallelism"), "now data-parallelism"),
    (None, "reveal", {}, Reveal(), "reveal"),
    (None, "leaderboard", {}, ShowLeaderboard(), "leaderboard"),
    (
        None,
        "leaderboard",
        {"window": "month", "scope": "workspace"},
        ShowLeaderboard(Window.MONTH, Scope.WORKSPACE),
        "leaderboard month workspace",
    ),
    (
        None,
        "leaderboard",
        {"window": "week", "scope": "cohorts"},
        ShowLeaderboard(Window.WEEK, Scope.COHORTS),
        "leaderboard week cohorts",
    ),
    (
        None,
        "leaderboard",
        {"scope": "channel", "cohort": "spring-26"},  # naming a cohort picks the one-cohort scope
        ShowLeaderboard(Window.ALL, Scope.COHORT, "spring-26"),
        "leaderboard cohort spring-26",
    ),
    (None, "me", {}, ShowMe(), "me"),
    (None, "packs", {}, ListPacks(), "packs"),
    (None, "review", {}, StartReview(), "review"),
    (None, "review", {"answer": 2}, AnswerReview(2), "review 2"),
    (None, "report", {}, ShowReport(), "report"),
    (None, "report", {"cohort": "spring-26"}, ShowReport("spring-26"), "report cohort spring-26"),
    (None, "flag", {}, FlagQuestion(), "flag"),
    (
        None,
        "flag",
        {"reason": "  the answer is B, isn't it?\u200b "},
        FlagQuestion(reason="the answer is B, isn't it?"),
        "flag the answer is B, isn't it?",
    ),
    ("flags", "list", {}, ListFlags(), "flags list"),
    (
        "flags",
        "clear",
        {"question": "Data-Parallelism/dp-gpu-holds"},
        ClearFlags("data-parallelism", "dp-gpu-holds"),
        "flags clear data-parallelism dp-gpu-holds",
    ),
    (None, "help", {}, ShowHelp(), "help"),
    (None, "help", {"command": "leaderboard"}, ShowHelp("leaderboard"), "help leaderboard"),
    (
        "schedule",
        "add",
        {
            "when": "mon,wed,fri 14:00",
            "packs": "Data-Parallelism, model-pipeline-parallelism data-parallelism",
            "tz": "europe/helsinki",
            "close": "1h30m",
        },
        AddSchedule(
            rule=parse_rule("mon,wed,fri 14:00"),
            packs=("data-parallelism", "model-pipeline-parallelism"),
            timezone="Europe/Helsinki",
            close_after=timedelta(hours=1, minutes=30),
        ),
        "schedule add mon,wed,fri 14:00 Data-Parallelism model-pipeline-parallelism data-parallelism "
        "tz:europe/helsinki close:1h30m",
    ),
    (
        "schedule",
        "add",
        {"when": "30 9 * * 1-5", "packs": "all"},
        AddSchedule(rule=parse_rule("30 9 * * 1-5")),
        "schedule add '30 9 * * 1-5' all",
    ),
    ("schedule", "list", {}, ListSchedules(), "schedule list"),
    ("schedule", "list", {"all": True}, ListSchedules(everywhere=True), "schedule list all"),
    ("schedule", "remove", {"id": 3}, RemoveSchedule(3), "schedule remove 3"),
    ("schedule", "pause", {"id": 4}, PauseSchedule(4), "schedule pause #4"),
    ("schedule", "resume", {"id": 5}, ResumeSchedule(5), "schedule resume 5"),
    ("schedule", "next", {}, NextSchedule(), "schedule next"),
    (
        "cohort",
        "create",
        {"name": "spring-26", "start": "2026-03-02", "packs": "model-pipeline-parallelism data-parallelism"},
        CreateCohort("spring-26", date(2026, 3, 2), ("model-pipeline-parallelism", "data-parallelism")),
        "cohort create spring-26 start:2026-03-02 packs:model-pipeline-parallelism,data-parallelism",
    ),
    ("cohort", "create", {"name": "autumn"}, CreateCohort("autumn"), "cohort create autumn"),
    ("cohort", "join", {"name": "spring-26"}, JoinCohort("spring-26"), "cohort join spring-26"),
    (
        "cohort",
        "add",
        {"name": "spring-26", "members": "<@1002> <@!1003>, 1004 <@1002>"},
        AddToCohort("spring-26", ("1002", "1003", "1004")),
        "cohort add spring-26 <@1002> <@!1003>, 1004 <@1002>",
    ),
    ("cohort", "show", {"name": "spring-26"}, ShowCohort("spring-26"), "cohort show spring-26"),
    ("cohort", "list", {}, ListCohorts(), "cohort list"),
    ("cohort", "next", {"name": "spring-26"}, PostCohortQuestion("spring-26"), "cohort next spring-26"),
    ("cohort", "remind", {"name": "spring-26"}, RemindCohort("spring-26"), "cohort remind spring-26"),
    (
        "cohort",
        "remove",
        {"name": "spring-26", "members": "1004"},
        RemoveFromCohort("spring-26", ("1004",)),
        "cohort remove spring-26 1004",
    ),
    ("cohort", "leave", {"name": "spring-26"}, LeaveCohort("spring-26"), "cohort leave spring-26"),
    (
        "cohort",
        "set",
        {"name": "spring-26", "deliver": "dm"},
        SetCohort("spring-26", Delivery.DM),
        "cohort set spring-26 deliver:dm",
    ),
    (
        "cohort",
        "create",
        {"name": "winter", "deliver": "channel"},
        CreateCohort("winter", delivery=Delivery.CHANNEL),
        "cohort create winter deliver:channel",
    ),
    (
        "schedule",
        "add",
        {"when": "weekdays 09:00", "cohort": "spring-26", "tz": "UTC"},
        AddCohortSchedule(rule=parse_rule("weekdays 09:00"), name="spring-26", timezone="UTC"),
        "schedule add weekdays 09:00 cohort:spring-26 tz:UTC",
    ),
    ("cohort", "delete", {"name": "spring-26"}, DeleteCohort("spring-26"), "cohort delete spring-26"),
    ("season", "start", {"name": "q1"}, StartSeason("q1"), "season start q1"),
    (
        "season",
        "start",
        {"name": "2027-q1", "until": "2027-03-31"},
        StartSeason("2027-q1", date(2027, 3, 31)),
        "season start 2027-q1 until:2027-03-31",
    ),
    ("season", "end", {}, EndSeason(), "season end"),
    ("season", "list", {}, ListSeasons(), "season list"),
    (None, "leaderboard", {"window": "season"}, ShowLeaderboard(Window.SEASON), "leaderboard season"),
    (
        None,
        "leaderboard",
        {"season": "q1", "scope": "workspace"},  # naming a season picks its window
        ShowLeaderboard(Window.SEASON, Scope.WORKSPACE, season="q1"),
        "leaderboard season q1 workspace",
    ),
]

_COVERED = {(group, sub) for group, sub, *_ in TYPED}
TYPED += [
    (spec.group, spec.name, dict(spec.example.options), parse_command(spec.example.text), spec.example.text)
    for spec in SPECS
    if spec.example is not None and (spec.group, spec.name) not in _COVERED
]
"""A command added since these cases were written is run by its spec's example (each spec has one)."""


def test_the_typed_cases_are_what_the_text_grammar_parses() -> None:
    for _, _, _, command, text in TYPED:
        assert parse_command(text) == command, text


async def test_every_subcommand_hands_the_core_its_command_object(
    runtime: Runtime, fake: FakeDiscord, executed: list[Command]
) -> None:
    managers = fake.add_role("managers", permissions=MANAGE_SERVER)
    async with serving(DiscordAdapter(runtime), fake):
        for group, subcommand, options, command, _ in TYPED:
            before = len(executed)
            callback = await slash(fake, subcommand, options, group=group, user_id=1001, roles=[managers["id"]])
            assert "Traceback" not in text_of(callback)
            assert text_of(callback) != unexpected().text, (subcommand, options)
            assert executed[before:] == [command], (group, subcommand, options)
    subcommands = {
        (None if command.parent is None or command.parent.name == "quiz" else command.parent.name, command.name)
        for command in QuizCommands(None).walk_commands()
        if isinstance(command, app_commands.Command)
    }
    assert {(group, sub) for group, sub, *_ in TYPED} == subcommands  # a new subcommand needs a case here


async def test_typed_schedule_and_cohort_options_take_effect(
    runtime: Runtime, fake: FakeDiscord, executed: list[Command]
) -> None:
    managers = fake.add_role("managers", permissions=MANAGE_SERVER)
    ben, cara = fake.add_user("ben", user_id=1002), fake.add_user("cara", user_id=1003)
    channel = ChannelRef("discord", fake.guild_id, fake.channel_id)
    async with serving(DiscordAdapter(runtime), fake):
        added = await slash(
            fake,
            "add",
            {"when": "weekdays 09:30", "packs": "Model-Pipeline-Parallelism", "tz": "europe/helsinki", "close": "45m"},
            group="schedule",
            roles=[managers["id"]],
        )
        assert "Europe/Helsinki" in text_of(added), text_of(added)
        created = await slash(
            fake,
            "create",
            {"name": "spring-26", "start": "2026-03-02", "packs": "model-pipeline-parallelism data-parallelism"},
            group="cohort",
            user_id=1001,
            user_name="lead",
        )
        assert "Created cohort spring-26, starting 2026-03-02" in text_of(created), text_of(created)
        members = f"<@{ben['id']}>, <@!{cara['id']}> <@{ben['id']}>"
        added_members = await slash(
            fake, "add", {"name": "spring-26", "members": members}, group="cohort", user_id=1001
        )
        assert text_of(added_members) == f"Added {ben['id']}, {cara['id']} to cohort spring-26."
        shown = await slash(fake, "show", {"name": "spring-26"}, group="cohort", user_id=1001)
        curriculum = text_of(shown)
        assert curriculum.index("(model-pipeline-parallelism)") < curriculum.index("(data-parallelism)"), curriculum
        removed = await slash(
            fake, "remove", {"name": "spring-26", "members": cara["id"]}, group="cohort", user_id=1001
        )
        assert text_of(removed) == f"Removed {cara['id']} from cohort spring-26."
    async with runtime.uow() as uow:
        [schedule] = await runtime.schedules.list(uow, channel, everywhere=True)
    assert (schedule.timezone, schedule.pack_ids, schedule.close_after) == (
        "Europe/Helsinki",
        ("model-pipeline-parallelism",),
        timedelta(minutes=45),
    )
    assert [type(c) for c in executed] == [AddSchedule, CreateCohort, AddToCohort, ShowCohort, RemoveFromCohort]


# (group, subcommand, typed options, the same mistake typed as text)
MISTAKES: list[tuple[str | None, str, dict[str, Any], str]] = [
    ("cohort", "create", {"name": "autumn", "start": "next week"}, "cohort create autumn 'start:next week'"),
    ("cohort", "create", {"name": "autumn", "start": "2026-02-30"}, "cohort create autumn start:2026-02-30"),
    ("cohort", "create", {"name": "Spring 2027"}, "cohort create 'Spring 2027'"),
    ("cohort", "join", {"name": "no/slash"}, "cohort join no/slash"),
    ("cohort", "add", {"name": "spring", "members": "<@>"}, "cohort add spring <@>"),
    ("cohort", "remove", {"name": "spring", "members": ", ,"}, "cohort remove spring"),
    ("schedule", "add", {"when": "daily 10:00", "tz": "Mars/Olympus"}, "schedule add daily 10:00 tz:Mars/Olympus"),
    (
        "schedule",
        "add",
        {"when": "daily 10:00", "tz": "europe/helsinky"},
        "schedule add daily 10:00 tz:europe/helsinky",
    ),
    ("schedule", "add", {"when": "daily 10:00", "close": "90"}, "schedule add daily 10:00 close:90"),
    ("schedule", "add", {"when": "daily 10:00", "close": "8d"}, "schedule add daily 10:00 close:8d"),
    ("schedule", "add", {"when": "daily 25:00"}, "schedule add daily 25:00"),
    ("schedule", "add", {"when": "* * * * *"}, "schedule add '* * * * *'"),
    ("schedule", "pause", {"id": -1}, "schedule pause -1"),  # Discord enforces min 1; a forged value is still refused
    (None, "leaderboard", {"scope": "cohort"}, "leaderboard cohort"),
    (None, "leaderboard", {"window": "yearly"}, "leaderboard yearly"),  # not one of the choices: a stale client
    (None, "leaderboard", {"cohort": "Spring 2027"}, "leaderboard cohort 'Spring 2027'"),
    (None, "report", {"cohort": "x y"}, "report cohort 'x y'"),
    ("flags", "clear", {"question": "dp-gpu-holds"}, "flags clear dp-gpu-holds"),
]


def _shown(embed: dict[str, Any]) -> tuple[Any, ...]:
    return embed.get("title"), embed.get("description"), embed.get("color")


async def test_a_bad_option_gets_the_grammars_reply_and_never_reaches_the_core(
    runtime: Runtime, fake: FakeDiscord, executed: list[Command]
) -> None:
    managers = fake.add_role("managers", permissions=MANAGE_SERVER)
    grammar: list[str] = []
    for *_, text in MISTAKES:
        with pytest.raises(CommandError) as refused:
            parse_command(text)
        grammar.append(error_reply(refused.value).message.text)  # what the text path answers
    async with serving(DiscordAdapter(runtime), fake):
        for (group, subcommand, options, text), message in zip(MISTAKES, grammar, strict=True):
            callback = await slash(fake, subcommand, options, group=group, user_id=1001, roles=[managers["id"]])
            assert callback.type == 4 and callback.ephemeral, text
            [embed] = callback.embeds
            assert _shown(embed) == _shown(problem_embed(message).to_dict()), (text, text_of(callback))
    assert executed == []  # refused at the edge


def test_no_code_under_adapters_discord_imports_shlex() -> None:
    modules = sorted(ADAPTER_DIR.rglob("*.py"))
    assert len(modules) >= 5
    for module in modules:
        tree = ast.parse(module.read_text(encoding="utf-8"), filename=str(module))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in {
                "__import__",
                "import_module",
            }:
                names = [arg.value for arg in node.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]
            else:
                continue
            assert not any(name.split(".")[0] == "shlex" for name in names), f"{module.name}:{node.lineno}"
        assert "parse_command" not in module.read_text(encoding="utf-8"), module.name
