"""The JSON `quizbot discord sync` sends Discord is the command specs (bot/commands/ SPECS), option by option:
names, types, required, choices, bounds, autocomplete, descriptions (with who may run a command, from its
permission), and nothing else. A new spec shows up here by itself; a hand-made difference fails."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from adapters.discord.cli import sync_commands
from bot.commands import GROUPS, SPECS
from bot.commandspec import CommandSpec, Option, OptionKind, Permission
from bot.wording import commands as words
from bot.wording import help as help_words
from tests.fakes.discord_api import FakeDiscord

SUBCOMMAND, GROUP = 1, 2
OPTION_TYPES = {
    OptionKind.STRING: 3,
    OptionKind.INTEGER: 4,
    OptionKind.BOOLEAN: 5,
    OptionKind.MENTION: 9,
    OptionKind.ATTACHMENT: 11,
}
WHO = {
    Permission.ADMIN: " (admins)",
    Permission.LEAD: " (leads and admins)",
    Permission.CREATOR_OR_ADMIN: " (admins and its creator)",
    Permission.POSTER_OR_LEAD: " (its poster, leads and admins)",
}


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(token="the-bot-token") as fake:
        yield fake
        fake.assert_no_unknown_routes()


def _option(option: Option) -> dict[str, Any]:
    expected: dict[str, Any] = {
        "name": option.name,
        "type": OPTION_TYPES[option.kind],
        "description": words.option_words(option.description, **option.values),
        "required": option.required,
        "autocomplete": option.autocomplete is not None,
        "choices": [(c.label, c.value) for c in option.choices()] if option.choices else [],
        "min_value": option.min_value,
        "max_value": option.max_value,
    }
    return expected


def _sent(option: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": option["name"],
        "type": option["type"],
        "description": option["description"],
        "required": option.get("required", False),
        "autocomplete": option.get("autocomplete", False),
        "choices": [(c["name"], c["value"]) for c in option.get("choices", [])],
        "min_value": option.get("min_value"),
        "max_value": option.get("max_value"),
    }


def _subcommand(spec: CommandSpec) -> dict[str, Any]:
    described = help_words.description(spec.description) + WHO.get(spec.permission, "")
    return {
        "type": SUBCOMMAND,
        "name": spec.name,
        "description": described[:100],
        "options": [_option(o) for o in sorted(spec.options, key=lambda o: not o.required)],
    }


def _expected_tree() -> list[dict[str, Any]]:
    tree: list[dict[str, Any]] = []
    groups: dict[str, dict[str, Any]] = {}
    for spec in SPECS:
        if spec.group is None:
            tree.append(_subcommand(spec))
            continue
        if spec.group not in groups:
            summary = help_words.description(help_words.summary(spec.group))
            groups[spec.group] = {"type": GROUP, "name": spec.group, "description": summary[:100], "options": []}
            tree.append(groups[spec.group])
        groups[spec.group]["options"].append(_subcommand(spec))
    return tree


def _sent_tree(options: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for option in options:
        if option["type"] == GROUP:
            found.append({**_keys(option), "options": _sent_tree(option.get("options", []))})
        else:
            found.append({**_keys(option), "options": [_sent(o) for o in option.get("options", [])]})
    return found


def _keys(option: dict[str, Any]) -> dict[str, Any]:
    return {"type": option["type"], "name": option["name"], "description": option["description"]}


async def test_the_synced_tree_is_the_specs(fake: FakeDiscord) -> None:
    await sync_commands("the-bot-token")
    [quiz] = fake.global_commands
    assert _sent_tree(quiz["options"]) == _expected_tree()
    everyone_may_run_one = any(a.permission is not Permission.ADMIN for spec in SPECS for a in spec.builds)
    assert quiz.get("default_member_permissions") is None and everyone_may_run_one
    assert {group.name for group in GROUPS} == {o["name"] for o in quiz["options"] if o["type"] == GROUP}
    restated = [
        sub["description"]
        for option in quiz["options"]
        for sub in (option.get("options", []) if option["type"] == GROUP else [option])
        if sub["description"].endswith(tuple(WHO.values()))
    ]
    assert len(restated) == sum(1 for spec in SPECS if spec.permission is not Permission.ANYONE)
