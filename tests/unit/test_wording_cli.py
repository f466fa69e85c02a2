"""The operator's command line and the core's settings are worded in bot/wording/cli.py and settings.py, through
the translation hook."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator

from bot.cli_parser import build_parser
from bot.config import Settings
from bot.wording import cli as cli_words
from bot.wording import settings as settings_words
from bot.wording.i18n import use_translator


def _helps(parser: argparse.ArgumentParser) -> Iterator[str]:
    """Every help text of a parser, its subcommands' and their options' included."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                yield str(choice.help)
            for sub in action.choices.values():
                yield from _helps(sub)
        elif action.help not in (None, argparse.SUPPRESS) and action.dest not in ("help", "version"):
            yield str(action.help)


def test_every_core_setting_is_described_and_every_description_is_a_setting() -> None:
    described = {name for name, field in Settings.model_fields.items() if field.description}
    assert described == set(settings_words.SETTING_DESCRIPTIONS)


def test_the_words_read_as_before() -> None:
    assert cli_words.exists("out.json", "--out", can_force=True) == (
        "out.json exists; pass --force to overwrite it, or give another --out"
    )
    assert cli_words.exists("report.html", "-o", can_force=False) == (
        "report.html exists; remove it first, or give another -o"
    )
    assert cli_words.revision_state(None, "0007", "run `quizbot db upgrade`") == (
        "empty: behind (newest is 0007); run `quizbot db upgrade`"
    )
    assert cli_words.revision_state("0007", "0007", "") == "0007: up to date"
    assert cli_words.forgot("slack", "U1", 1, {"answers": 3, "members": 0}) == (
        "forgot slack user U1 (1 identity row; 3 answers)"
    )
    assert cli_words.forgot("discord", "9", 2, {}) == "forgot discord user 9 (2 identity rows; no other rows)"
    assert cli_words.report_written("r.html", "Team", 1, 2) == "wrote r.html: Team, 1 answer by 2 people"
    assert cli_words.doctor_summary(0) == "all good"
    assert cli_words.doctor_summary(2) == "2 problems to fix"
    assert settings_words.invalid_item("QUIZBOT_ADAPTERS", 2, " ('x')", "Input should be 'console'") == (
        "QUIZBOT_ADAPTERS item 2 ('x'): Input should be 'console'"
    )
    assert settings_words.unknown_variable("QUIZBOT_TIMEZON", " (in .env)", "QUIZBOT_TIMEZONE") == (
        "QUIZBOT_TIMEZON (in .env) is not a quizbot setting and is ignored; did you mean QUIZBOT_TIMEZONE?"
    )
    assert settings_words.unknown_variable("QUIZBOT_X", "", None) == (
        "QUIZBOT_X is not a quizbot setting and is ignored (see Configuration in README.md)"
    )


def test_the_cli_and_settings_sentences_go_through_the_hook() -> None:
    marked: Callable[[str], str] = lambda template: "» " + template  # noqa: E731 - a translator stand-in
    use_translator(marked)
    try:
        helps = list(_helps(build_parser()))
        core = [text for text in helps if text.startswith("» ")]
        assert len(core) >= len(cli_words.HELP) - 1  # `--json` serves doctor and report both
        assert build_parser().description == "» A quiz bot for team chat."
        assert cli_words.csv_needs_out().startswith("» --format csv")
        assert cli_words.traceback_hint() == "»  (QUIZBOT_LOG_LEVEL=DEBUG shows the traceback)"
        assert settings_words.setting_description("content_dir") == "» Folder of YAML packs."
        assert settings_words.unknown_timezone("Mars/Base") == (
            "» unknown IANA timezone 'Mars/Base' (try Europe/Berlin or America/New_York)"
        )
    finally:
        use_translator(None)
