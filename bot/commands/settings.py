"""The `settings` group's actions (`/quiz settings [show|channel|workspace|history]`): the grammar of a setting's key
and value, and each action's one declaration (`SETTINGS_ACTIONS`, added to SPECS in specs.py; the group itself is in
groups.py). A value is read into its canonical stored text (bot/domain/settings.py), or refused in one line that
says what the key allows."""

from __future__ import annotations

import re
from datetime import timedelta

from bot.commands.arguments import CLOSE_MAX, CLOSE_MIN
from bot.commands.types import (
    ChangeChannelSettings,
    ChangeWorkspaceSettings,
    Command,
    EditSettings,
    ShowSettings,
    ShowSettingsHistory,
)
from bot.commandspec import Access, Choice, CommandSpec, Example, Option, Permission
from bot.domain.names import nearest
from bot.domain.settings import (
    COOLDOWN_MAX,
    LIMIT_MAX,
    NO_CLOSE,
    OFF,
    ON,
    NowPosters,
    RevealPolicy,
    SettingKey,
    SettingScope,
    form_pages,
)
from bot.domain.text import whole_number
from bot.errors import CommandError
from bot.schedule_rules import parse_duration, parse_timezone
from bot.wording import chat_settings as words

CLEAR_WORDS = frozenset({"default", "inherit", "inherited", "unset", "reset", "clear"})
"""Values that clear a key back to the inherited value."""
EDIT = "edit"
"""The word after `channel|workspace` that opens the settings form (`/quiz settings channel edit [PAGE]`)."""

_KEYS = {key.value: key for key in SettingKey}
_KEY_ALIASES = {
    "tz": SettingKey.TIMEZONE,
    "posters": SettingKey.NOW_POSTERS,
    "cooldown": SettingKey.NOW_COOLDOWN,
    "now-open-limit": SettingKey.NOW_LIMIT,
    "open-limit": SettingKey.NOW_LIMIT,
    "close": SettingKey.CLOSE_AFTER,
    "speed": SettingKey.SPEED_POINTS,
    "lang": SettingKey.LANGUAGE,
    "locale": SettingKey.LANGUAGE,
}
_SWITCH = {"on": ON, "yes": ON, "true": ON, "off": OFF, "no": OFF, "false": OFF}
_POSTERS = {"anyone": NowPosters.ANYONE, "everyone": NowPosters.ANYONE, "all": NowPosters.ANYONE}
_POSTERS |= {"leads": NowPosters.LEADS, "lead": NowPosters.LEADS}
_REVEAL = {policy.value: policy for policy in RevealPolicy} | {
    "early-by-leads": RevealPolicy.LEADS,
    "lead": RevealPolicy.LEADS,
    "schedule-only": RevealPolicy.SCHEDULE,
    "everyone": RevealPolicy.ANYONE,
}
_NONE = frozenset({"none", "off", "never", "0"})
_LANGUAGE = re.compile(r"([a-z]{2,3})(?:-([a-z]{4}))?(?:-([a-z]{2}|[0-9]{3}))?")


def setting_key(word: str) -> SettingKey:
    """A key as typed (any case, `_` for `-`, a few short names), or CommandError listing the keys."""
    folded = word.strip().casefold().replace("_", "-")
    key = _KEYS.get(folded) or _KEY_ALIASES.get(folded)
    if key is None:
        close = nearest(folded, [*_KEYS, *_KEY_ALIASES])
        suggested = list(
            dict.fromkeys(_KEYS.get(name, _KEY_ALIASES.get(name, SettingKey.TIMEZONE)).value for name in close)
        )
        raise CommandError(words.not_a_key, word=word, nearest=suggested)
    return key


def _seconds(key: SettingKey, word: str, *, least: timedelta, most: timedelta) -> int:
    text = word.strip().casefold()
    try:
        # seconds as a plain number, else a duration (`90s`, `2m`); past 9 digits neither reads it, and it is refused
        seconds = whole_number(text)
        value = timedelta(seconds=seconds) if seconds is not None else parse_duration(text)
    except (CommandError, OverflowError):
        raise CommandError(words.bad_value, key=key, word=word) from None
    if not least <= value <= most:
        raise CommandError(words.bad_value, key=key, word=word)
    return int(value.total_seconds())


def setting_value(key: SettingKey, word: str) -> str | None:
    """The canonical text of a value typed for `key`, or None for `default` (inherit it again); CommandError in one
    line saying what the key allows. Canonical text reads back as itself."""
    text = word.strip()
    folded = text.casefold()
    if folded in CLEAR_WORDS:
        return None
    match key:
        case SettingKey.TIMEZONE:
            try:
                return parse_timezone(text)
            except CommandError:
                raise CommandError(words.bad_value, key=key, word=word) from None
        case SettingKey.NOW_POSTERS:
            if folded in _POSTERS:
                return _POSTERS[folded].value
        case SettingKey.NOW_COOLDOWN:
            if folded in _NONE:
                return "0"
            return str(_seconds(key, text, least=timedelta(seconds=1), most=timedelta(seconds=COOLDOWN_MAX)))
        case SettingKey.NOW_LIMIT:
            if folded in _NONE:
                return "0"
            if (limit := whole_number(folded)) is not None and limit <= LIMIT_MAX:
                return str(limit)
        case SettingKey.CLOSE_AFTER:
            if folded in _NONE:
                return NO_CLOSE
            return str(_seconds(key, text, least=CLOSE_MIN, most=CLOSE_MAX))
        case SettingKey.REVEAL:
            if folded in _REVEAL:
                return _REVEAL[folded].value
        case SettingKey.SPEED_POINTS | SettingKey.COHORT_PRIVATE:
            if folded in _SWITCH:
                return _SWITCH[folded]
        case SettingKey.LANGUAGE:
            found = _LANGUAGE.fullmatch(folded)
            if found is not None:
                language, script, region = found.groups()
                parts = [language, script.title() if script else "", region.upper() if region else ""]
                return "-".join(part for part in parts if part)
    raise CommandError(words.bad_value, key=key, word=word)


def _scope_word(word: str) -> SettingScope:
    folded = word.casefold()
    if folded in {"channel", "here"}:
        return SettingScope.CHANNEL
    if folded in {"workspace", "server", "team", "guild"}:
        return SettingScope.WORKSPACE
    raise CommandError(words.not_a_scope, word=word)


def _page(word: str) -> int:
    pages = len(form_pages())
    page = whole_number(word, digits=3)
    if page is None or not 1 <= page <= pages:
        raise CommandError(words.not_a_page, word=word, pages=pages)
    return page


def _change(scope: SettingScope, key: str, value: str) -> Command:
    """A change typed or given as options: the key and value validated now (the handler reads them again)."""
    canonical = setting_value(setting_key(key), value)
    pair = ((setting_key(key).value, canonical if canonical is not None else ""),)
    if scope is SettingScope.CHANNEL:
        return ChangeChannelSettings(pair)
    return ChangeWorkspaceSettings(pair)


def _scope_command(scope: SettingScope, args: list[str]) -> Command:
    if not args:
        return ShowSettings(scope)
    if args[0].casefold() == EDIT:
        if len(args) > 2:
            raise CommandError(words.scope_usage, scope=scope.value)
        return EditSettings(scope, _page(args[1]) if len(args) == 2 else 1)
    if len(args) < 2:
        raise CommandError(words.needs_value, key=setting_key(args[0]), scope=scope.value)
    return _change(scope, args[0], " ".join(args[1:]))


def _typed(scope: SettingScope, key: str | None, value: str | None) -> Command:
    """The command from typed options: no key shows the scope; `edit` opens its form."""
    if key is None:
        return ShowSettings(scope)
    if key.casefold() == EDIT:
        return EditSettings(scope, 1)
    if value is None:
        raise CommandError(words.needs_value, key=setting_key(key), scope=scope.value)
    return _change(scope, key, value)


def _parse_show(args: list[str]) -> Command:
    if len(args) > 1:
        raise CommandError(words.not_a_scope, word=" ".join(args))
    return ShowSettings(_scope_word(args[0]) if args else None)


def _parse_history(args: list[str]) -> Command:
    if args:
        raise CommandError(words.history_takes_nothing)
    return ShowSettingsHistory()


def _key_choices() -> list[Choice]:
    return [Choice(key.value, key.value) for key in SettingKey] + [Choice(EDIT, EDIT)]


def _scope_choices() -> list[Choice]:
    return [Choice(scope.value, scope.value) for scope in SettingScope]


_KEY = Option("key", words.OPTION_KEY, choices=_key_choices)
_VALUE = Option("value", words.OPTION_VALUE)

SETTINGS_ACTIONS: tuple[CommandSpec, ...] = (
    CommandSpec(
        ("settings", "show"),
        (Access(ShowSettings),),
        words.DESCRIBE_SHOW,
        _parse_show,
        ShowSettings,
        options=(Option("scope", words.OPTION_SCOPE, _scope_word, choices=_scope_choices),),
        aliases=("view", "list"),
        example=Example("settings show channel", {"scope": "channel"}),
    ),
    CommandSpec(
        ("settings", "channel"),
        (
            Access(ChangeChannelSettings, Permission.LEAD, "change this channel's settings"),
            Access(EditSettings, Permission.LEAD, "change settings"),
        ),
        words.DESCRIBE_CHANNEL,
        lambda args: _scope_command(SettingScope.CHANNEL, args),
        lambda key, value: _typed(SettingScope.CHANNEL, key, value),
        options=(_KEY, _VALUE),
        aliases=("here",),
        example=Example("settings channel now-cooldown 2m", {"key": "now-cooldown", "value": "2m"}),
    ),
    CommandSpec(
        ("settings", "workspace"),
        (Access(ChangeWorkspaceSettings, Permission.ADMIN, "change the workspace's settings"),),
        words.DESCRIBE_WORKSPACE,
        lambda args: _scope_command(SettingScope.WORKSPACE, args),
        lambda key, value: _typed(SettingScope.WORKSPACE, key, value),
        options=(_KEY, _VALUE),
        aliases=("server", "team"),
        example=Example("settings workspace timezone Europe/Helsinki", {"key": "timezone", "value": "Europe/Helsinki"}),
    ),
    CommandSpec(
        ("settings", "history"),
        (Access(ShowSettingsHistory),),
        words.DESCRIBE_HISTORY,
        _parse_history,
        ShowSettingsHistory,
        aliases=("log", "changes"),
        example=Example("settings history"),
    ),
)
"""`/quiz settings ...`: anyone sees the settings and their history; leads change a channel's, admins the
workspace's."""
