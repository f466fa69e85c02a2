"""The generated references, written from the code so that they cannot drift from it.

- docs/reference/commands.md: every `/quiz` command, from the command specs (bot/commands.py `SPECS`, `GROUPS`) and
  the help words (bot/wording/help.py): syntax, details, who may run it, typed options, aliases, an example.
- docs/reference/configuration.md: every setting, from the settings model (bot/config.py `Settings`) and each
  installed adapter's settings class: its variable, default, accepted values and meaning.
- .env.example: the same settings, each commented out at its default with its meaning above it.

`python -m bot.ops.reference --write` rewrites the three files; `--check` exits 1 naming each one that is stale
(tests/unit/test_reference_current.py does the same in `make test`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin

from annotated_types import Ge, Gt, Le, Lt
from pydantic import SecretStr
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings

from bot.commands import GROUPS, SPECS
from bot.commandspec import CommandSpec, Option, OptionKind, Permission
from bot.config import PREFIX, Settings
from bot.plugins import installed_plugins
from bot.wording import help as help_words

ROOT = Path(__file__).resolve().parents[2]
COMMANDS_PAGE = Path("docs/reference/commands.md")
CONFIGURATION_PAGE = Path("docs/reference/configuration.md")
ENV_EXAMPLE = Path(".env.example")
GENERATED_BY = "python -m bot.ops.reference --write"

DEFAULT_WORDS = {
    "content_dir": "the shipped packs (content/)",
    "adapters": "those with credentials, else console",
    "log_level": "INFO (WARNING with the terminal adapter)",
    "http_port": "off (8080 in the image)",
    "console_user": "your login name ($USER)",
    "slack_api_url": "Slack's (https://slack.com/api/)",
    "discord_shard_count": "Discord's recommendation",
    "discord_shard_ids": "all",
}
"""The default in words, where the model's default is computed or means something else than its value."""

UNDESCRIBED = {
    "log_format": "`text`, or `json`: one object a line, with platform, workspace, channel and post id.",
    "slack_bot_token": "The Slack app's bot token (xoxb-...); with it, `quizbot run` starts the Slack adapter.",
    "slack_app_token": "An app-level token (xapp-..., scope connections:write): Socket Mode, no public URL needed.",
    "slack_signing_secret": "The app's signing secret: HTTP mode (used when no app token is set); every request's "
    "signature is checked.",
    "slack_host": "HTTP mode: the address to listen on.",
    "discord_token": "The Discord bot token; when set, `quizbot run` starts the Discord adapter.",
}
"""The meaning of each setting whose field has no description yet (the model's own description wins; the test
checks that no entry here shadows one)."""


# --- the commands -----------------------------------------------------------------------------------------------

PERMISSION_WORDS = {
    Permission.ANYONE: "anyone",
    Permission.ADMIN: "admins",
    Permission.LEAD: "leads and admins",
    Permission.CREATOR_OR_ADMIN: "leads, admins and the cohort's creator",
    Permission.POSTER_OR_LEAD: "whoever posted the question (on demand), leads and admins",
}


def _cell(text: str) -> str:
    """Text for a Markdown table cell: its pipes escaped, on one line."""
    return " ".join(text.replace("|", "\\|").split())


def _option_row(option: Option) -> str:
    kind = {
        OptionKind.STRING: "text",
        OptionKind.INTEGER: "integer",
        OptionKind.BOOLEAN: "true/false",
        OptionKind.MENTION: "person",
        OptionKind.ATTACHMENT: "file",
    }[option.kind]
    about = option.description.format(**option.values) if option.values else option.description
    if option.choices is not None:
        about += " Choices: " + ", ".join(f"`{choice.value}`" for choice in option.choices()) + "."
    if option.min_value is not None:
        about += f" At least {option.min_value}."
    required = "yes" if option.required else "no"
    return f"| `{option.name}` | {kind} | {required} | {_cell(about)} |"


def _spec_section(spec: CommandSpec) -> list[str]:
    path = " ".join(spec.path)
    lines = [f"### `/quiz {path}`", "", spec.description[:1].upper() + spec.description[1:].rstrip(".") + "."]
    facts = [f"Who: {PERMISSION_WORDS[spec.permission]}."]
    if any(access.confirm for access in spec.builds):
        facts.append("Asks the person who typed it to confirm first.")
    if spec.aliases:
        facts.append("Also: " + ", ".join(f"`{alias}`" for alias in spec.aliases) + ".")
    if spec.free_text:
        facts.append("Its argument is free text, taken whole.")
    if spec.example is not None:
        facts.append(f"Example: `/quiz {spec.example.text}`.")
    lines += ["", *(f"- {fact}" for fact in facts)]
    if spec.options:
        lines += [
            "",
            "Typed options (Discord's command picker; the text grammar reads the same words):",
            "",
            "| option | kind | required | meaning |",
            "|---|---|---|---|",
            *(_option_row(option) for option in spec.options),
        ]
    return [*lines, ""]


def commands_page() -> str:
    """docs/reference/commands.md: the `/quiz` commands, from SPECS and the help words."""
    group_aliases = {group.name: group.aliases for group in GROUPS}
    lines = [
        "# `/quiz` commands",
        "",
        f"<!-- Generated from bot/commands/ (SPECS) and bot/wording/help.py by `{GENERATED_BY}`; do not edit. -->",
        "",
        "Every adapter understands the same `/quiz` commands: one grammar, in the core. `/quiz help` lists them and",
        "`/quiz help COMMAND` shows one in full, as below. The terminal adds its own commands (at the end).",
        "",
        "| command | what it does |",
        "|---|---|",
    ]
    for name, words in help_words.COMMANDS.items():
        lines.append(f"| [`{_cell(words.usage)}`](#{name}) | {_cell(words.summary)} |")
    for name, words in help_words.COMMANDS.items():
        lines += ["", f"## {name} {{#{name}}}", "", "```text", words.usage, "```", "", words.summary[:1].upper()]
        lines[-1] += words.summary[1:] + "."
        lines += ["", *(f"- {detail}" for detail in words.details)]
        if group_aliases.get(name):
            lines += ["", "Also: " + ", ".join(f"`/quiz {alias}`" for alias in group_aliases[name]) + "."]
        specs = [spec for spec in SPECS if spec.path[0] == name]
        for spec in specs:
            lines += ["", *_spec_section(spec)]
    lines += ["", "## The terminal's own commands", ""]
    lines += [f"- `{line.split(' - ', 1)[0]}`: {line.split(' - ', 1)[1]}" for line in help_words.terminal_lines()]
    lines.append("- a bare number: answers the newest open question.")
    return _tidy(lines)


# --- the settings -----------------------------------------------------------------------------------------------


def all_settings() -> list[tuple[str, str, FieldInfo]]:
    """Every setting as (who reads it, field name, field): the core's first, then each installed adapter's."""
    found = [("core", name, field) for name, field in Settings.model_fields.items()]
    for plugin_name, plugin in installed_plugins().items():
        settings: type[BaseSettings] = plugin.settings
        found += [(plugin_name, name, field) for name, field in settings.model_fields.items()]
    return found


def description(name: str, field: FieldInfo) -> str:
    """A setting's meaning: its field's description, else the words kept here for it."""
    text = field.description or UNDESCRIBED.get(name)
    if not text:
        raise LookupError(f"{PREFIX}{name.upper()} has no description: add one to its Field")
    return text if text.endswith((".", ")")) else text + "."


def _duration(value: timedelta) -> str:
    seconds = int(value.total_seconds())
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds and seconds % size == 0:
            return f"{seconds // size}{unit}"
    return str(seconds)


def default_value(field: FieldInfo) -> str | None:
    """The default as the variable's value (what `.env.example` shows), or None when the default is to leave it
    unset."""
    if field.default_factory is not None:
        return None
    value = field.default
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, timedelta):
        return _duration(value)
    if isinstance(value, list):
        return ",".join(str(item) for item in value)
    return str(value)


def default_words(name: str, field: FieldInfo) -> str:
    """The default as the reference shows it."""
    if name in DEFAULT_WORDS:
        return DEFAULT_WORDS[name]
    value = default_value(field)
    return "unset" if value is None else f"`{value}`"


def _number(value: Any) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _bound(metadata: Sequence[Any]) -> str:
    low = next((f">= {_number(m.ge)}" for m in metadata if isinstance(m, Ge)), None) or next(
        (f"> {_number(m.gt)}" for m in metadata if isinstance(m, Gt)), None
    )
    high = next((f"<= {_number(m.le)}" for m in metadata if isinstance(m, Le)), None) or next(
        (f"< {_number(m.lt)}" for m in metadata if isinstance(m, Lt)), None
    )
    return ", ".join(part for part in (low, high) if part)


def accepted(field: FieldInfo) -> str:
    """What values the setting takes, in words: its type, choices and bounds."""
    kind = field.annotation
    if get_origin(kind) in (Union, UnionType):  # `X | None`: the values of X, or unset
        kind = next(arg for arg in get_args(kind) if arg is not type(None))
    if get_origin(kind) is Literal:
        return ", ".join(f"`{choice}`" for choice in get_args(kind))
    if kind is SecretStr:
        words = "secret text"
    elif get_origin(kind) is list:
        words = "comma-separated list"
    else:
        kinds: dict[Any, str] = {
            int: "integer",
            float: "number",
            str: "text",
            bool: "true/false",
            Path: "folder",
            timedelta: "duration (seconds, or 30m, 2h, 1d)",
        }
        words = kinds.get(kind, "text")
    bound = _bound(field.metadata)
    return f"{words}, {bound}" if bound else words


def configuration_page() -> str:
    """docs/reference/configuration.md: every setting, from the settings model and the adapters' settings."""
    lines = [
        "# Configuration",
        "",
        f"<!-- Generated from bot/config.py and adapters/*/settings.py by `{GENERATED_BY}`; do not edit. -->",
        "",
        "Environment variables with the `QUIZBOT_` prefix, or the same names in a `.env` file (UTF-8) in the",
        "working directory; `.env.example` lists them all at their defaults. The core's settings are defined in",
        "`bot/config.py`; each adapter defines and reads its own, in `adapters/<name>/settings.py`. Names are read",
        "in any case. All are validated at start: a bad value stops the bot with one line naming the variable, e.g.",
        "`quizbot: QUIZBOT_TIMEZONE: unknown IANA timezone 'Europe/Helsinky' (try Europe/Berlin or America/New_York)`.",
        "A bad item of a comma-separated list is named by its position and value:",
        "`quizbot: QUIZBOT_ADAPTERS item 2 ('irc'): Input should be 'console', 'slack' or 'discord'`.",
        "",
        "A `QUIZBOT_` variable (or `.env` key) that no setting reads is ignored with a warning that suggests the",
        "nearest real name, so a typo does not silently fall back to a default (`quizbot doctor` lists the same",
        "warnings among its findings):",
        "",
        "```text",
        "quizbot: warning: QUIZBOT_TIMEZON is not a quizbot setting and is ignored; did you mean QUIZBOT_TIMEZONE?",
        "```",
        "",
        "`QUIZBOT_TEST_POSTGRES_URL` and `QUIZBOT_BENCH_POSTGRES_URL`, read by the tests and the benchmarks, are not",
        "warned about.",
    ]
    current = None
    for owner, name, field in all_settings():
        if owner != current:
            current = owner
            title = "The core" if owner == "core" else f"The `{owner}` adapter"
            lines += ["", f"## {title}", "", "| variable | default | values | meaning |", "|---|---|---|---|"]
        variable = f"`{PREFIX}{name.upper()}`"
        row = (variable, default_words(name, field), accepted(field), description(name, field))
        lines.append("| " + " | ".join(_cell(part) for part in row) + " |")
    return _tidy(lines)


def _wrapped(text: str, width: int = 116) -> list[str]:
    words, lines, line = text.split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line] if line else lines


def env_example() -> str:
    """.env.example: every setting commented out at its default, its meaning and values above it."""
    lines = [
        "# quizbot's settings, each at its default (commented out). Copy this file to .env and set what you need:",
        "# a platform's credentials (for Slack, QUIZBOT_SLACK_BOT_TOKEN with QUIZBOT_SLACK_APP_TOKEN or with",
        "# the signing secret, QUIZBOT_SLACK_SIGNING_SECRET; for Discord, QUIZBOT_DISCORD_TOKEN) and, for anything",
        "# shared, QUIZBOT_DATABASE_URL.",
        "# The same names work as environment variables. docs/reference/configuration.md says more.",
        f"# Generated from the settings model by `{GENERATED_BY}`; do not edit.",
    ]
    current = None
    for owner, name, field in all_settings():
        if owner != current:
            current = owner
            title = "the core" if owner == "core" else f"the {owner} adapter"
            lines += ["", f"# ---- {title} " + "-" * (108 - len(title))]
        lines.append("")
        lines += [f"# {line}" for line in _wrapped(description(name, field))]
        about = f"Default: {default_words(name, field)}. Values: {accepted(field)}.".replace("`", "")
        lines.append(f"# {about}")
        lines.append(f"# {PREFIX}{name.upper()}={default_value(field) or ''}")
    lines += [
        "",
        "# ---- docker-compose.yml " + "-" * 90,
        "",
        "# The password compose gives PostgreSQL (the db service) and puts in the bot's QUIZBOT_DATABASE_URL.",
        "# POSTGRES_PASSWORD=quizbot",
    ]
    return _tidy(lines)


# --- writing and checking ---------------------------------------------------------------------------------------


def _tidy(lines: list[str]) -> str:
    return "\n".join(line.rstrip() for line in lines).strip("\n") + "\n"


def generated() -> dict[Path, str]:
    """Each generated file (relative to the repository) and its current text."""
    return {COMMANDS_PAGE: commands_page(), CONFIGURATION_PAGE: configuration_page(), ENV_EXAMPLE: env_example()}


def stale(root: Path = ROOT) -> list[Path]:
    """The generated files whose text on disk is not what the code gives now."""
    out = []
    for path, text in generated().items():
        target = root / path
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            out.append(path)
    return out


def write(root: Path = ROOT) -> list[Path]:
    """Rewrite every generated file that is stale; returns those written."""
    written = stale(root)
    texts = generated()
    for path in written:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(texts[path], encoding="utf-8")
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m bot.ops.reference --write | --check`."""
    parser = argparse.ArgumentParser(prog="python -m bot.ops.reference", description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the generated files that are stale")
    mode.add_argument("--check", action="store_true", help="exit 1 if a generated file is stale")
    args = parser.parse_args(argv)
    if args.write:
        for path in write():
            print(f"wrote {path}")
        return 0
    paths = stale()
    for path in paths:
        print(f"{path} is stale: run `{GENERATED_BY}`", file=sys.stderr)
    return 1 if paths else 0


if __name__ == "__main__":
    raise SystemExit(main())
