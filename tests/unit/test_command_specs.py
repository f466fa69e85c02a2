"""Every surface of a command agrees with its one declaration (bot/commands/ SPECS): the command union, the
text grammar (each path and other word, the examples, the refusals for an unknown action), `/quiz help`, the
permission check, confirmations and the Slack manifest's usage hint. The Discord tree is compared with the specs in
tests/e2e/discord/test_discord_specs.py."""

from __future__ import annotations

import re
import typing
from collections.abc import Callable

import pytest
import yaml

from bot.commands import ACCESS, GROUPS, SPECS, SUBCOMMANDS, Command, help_lines, parse_command, usage_hint
from bot.commandspec import Permission
from bot.errors import CommandError
from bot.service.app import error_reply
from bot.service.confirmations import CONFIRMABLE
from bot.service.handlers import COMMAND_HANDLERS
from bot.wording import help as help_words
from bot.wording.i18n import use_translator
from tests.conftest import REPO

GROUP_NAMES = [group.name for group in GROUPS]


def _refusal(text: str) -> str:
    with pytest.raises(CommandError) as refused:
        parse_command(text)
    return str(refused.value)


def test_every_command_type_is_built_by_one_spec_and_has_a_route_with_its_permission() -> None:
    assert set(typing.get_args(Command)) == set(ACCESS)
    assert set(COMMAND_HANDLERS) == set(ACCESS)
    for kind, access in ACCESS.items():
        route = COMMAND_HANDLERS[kind]
        assert (route.permission, route.action) == (access.permission, access.action), kind
        assert access.permission is Permission.ANYONE or access.action, kind  # a refusal names what was tried


def test_the_confirmable_commands_are_the_specs_that_ask_first() -> None:
    assert set(CONFIRMABLE.values()) == {kind for kind, access in ACCESS.items() if access.confirm}
    for kind in CONFIRMABLE.values():
        assert kind.__dataclass_fields__["confirmed"].default is False, kind


def test_help_has_words_for_exactly_the_top_level_commands_and_groups() -> None:
    top = {spec.name for spec in SPECS if spec.group is None} | set(GROUP_NAMES)
    assert set(help_words.COMMANDS) == top
    assert [sub.name for sub in SUBCOMMANDS] == list(help_words.COMMANDS)
    assert help_lines() == [
        help_words.usage_line(help_words.usage(name), help_words.summary(name)) for name in help_words.COMMANDS
    ]
    for name, command_words in help_words.COMMANDS.items():
        assert any(detail.startswith(("Example: ", "Examples: ")) for detail in command_words.details), name


def test_every_path_and_other_word_reaches_its_spec_and_every_example_parses() -> None:
    for spec in SPECS:
        assert spec.example is not None, spec.path  # the Discord end-to-end test runs it too
        command = parse_command(spec.example.text)
        assert type(command) in {access.type for access in spec.builds}, spec.path
        for word in (spec.name, *spec.aliases):
            path = " ".join((*spec.path[:-1], word))
            rest = spec.example.text.split(maxsplit=len(spec.path))[len(spec.path) :]
            assert parse_command(" ".join([path, *rest])) == command, (path, rest)


def test_the_unknown_action_refusals_name_exactly_the_specs_actions() -> None:
    for group in GROUP_NAMES:
        actions = [spec.name for spec in SPECS if spec.group == group]
        refusal = _refusal(f"{group} zzzzzz")
        if group == "cohort":
            [listed] = re.findall(r"/quiz cohort (\S+) NAME", refusal)
            assert listed.split("|") == actions  # remind and set were missing once
        elif group == "flags":
            assert "/quiz flags" in refusal
        else:
            named = set(re.findall(r"\b(\w+)\b", refusal))
            assert set(actions) <= named, (group, refusal)
        if group != "season":  # the season refusal shows its usage line, which names every action (above)
            for action in actions:
                typo = action[:-1] + ("x" if action[-1] != "x" else "y")
                assert f"`{action}`" in _refusal(f"{group} {typo}"), (group, typo)  # the nearest action


def test_the_slack_manifest_hints_every_command_from_the_specs() -> None:
    manifest = yaml.safe_load((REPO / "adapters" / "slack" / "manifest.yaml").read_text(encoding="utf-8"))
    [command] = manifest["features"]["slash_commands"]
    assert command["usage_hint"] == usage_hint()
    assert [part.split()[0] for part in usage_hint().split(" | ")] == [sub.name for sub in SUBCOMMANDS]


def test_a_grammar_error_carries_its_key_and_values_and_is_worded_at_the_edge() -> None:
    with pytest.raises(CommandError) as refused:
        parse_command("cohort join no/slash")
    assert (refused.value.key, refused.value.values) == ("commands.not_a_cohort_name", {"text": "no/slash"})
    marked: Callable[[str], str] = lambda template: "» " + template  # noqa: E731 - a translator stand-in
    use_translator(marked)  # the reader's language is known only when the reply is built
    try:
        reply = error_reply(refused.value)
    finally:
        use_translator(None)
    assert reply.message.text.startswith("» `no/slash` is not a cohort name"), reply.message.text
    assert str(refused.value).startswith("`no/slash` is not a cohort name")


@pytest.mark.parametrize(
    ("text", "refusal"),
    [
        ("flags ls x", "`ls` is not a flags action. Did you mean `list`?"),
        ("flags LIST x", "`LIST` is not a flags action. Did you mean `list`?"),
        ("flags show a b", "`show` is not a flags action. Try"),
    ],
)
def test_a_flags_listing_with_more_words_is_refused_as_it_was_before_the_specs(text: str, refusal: str) -> None:
    assert _refusal(text).startswith(refusal)
