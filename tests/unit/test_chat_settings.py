"""Settings in chat without a database: each key's grammar (what it accepts, its canonical text, one-line refusals),
channel > workspace > default, the settings form's shape, and the settings form's command."""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic import ValidationError

from bot.commands import ChangeChannelSettings, ChangeWorkspaceSettings, EditSettings, ShowSettings, parse_command
from bot.commands.forms import FORM_COMMANDS
from bot.commands.settings import setting_key, setting_value
from bot.config import Settings
from bot.domain.forms import MAX_FIELDS, MAX_LABEL, MAX_TITLE, FormKind
from bot.domain.scoring import points_for
from bot.domain.settings import (
    BUILT_IN,
    KEYS,
    EffectiveSettings,
    NowPosters,
    Overrides,
    RevealPolicy,
    SettingDefaults,
    SettingKey,
    SettingScope,
    Source,
    form_pages,
    inherited,
    resolve,
)
from bot.errors import CommandError
from bot.wording import chat_settings as words

ACCEPTED = [
    (SettingKey.TIMEZONE, "europe/helsinki", "Europe/Helsinki"),
    (SettingKey.TIMEZONE, "UTC", "UTC"),
    (SettingKey.NOW_POSTERS, "Leads", "leads"),
    (SettingKey.NOW_POSTERS, "everyone", "anyone"),
    (SettingKey.NOW_COOLDOWN, "90", "90"),
    (SettingKey.NOW_COOLDOWN, "2m", "120"),
    (SettingKey.NOW_COOLDOWN, "1h30m", "5400"),
    (SettingKey.NOW_COOLDOWN, "off", "0"),
    (SettingKey.NOW_COOLDOWN, "24h", "86400"),
    (SettingKey.NOW_LIMIT, "3", "3"),
    (SettingKey.NOW_LIMIT, "none", "0"),
    (SettingKey.CLOSE_AFTER, "30m", "1800"),
    (SettingKey.CLOSE_AFTER, "7d", "604800"),
    (SettingKey.CLOSE_AFTER, "none", "none"),
    (SettingKey.REVEAL, "early-by-leads", "leads"),
    (SettingKey.REVEAL, "SCHEDULE", "schedule"),
    (SettingKey.REVEAL, "anyone", "anyone"),
    (SettingKey.SPEED_POINTS, "no", "off"),
    (SettingKey.COHORT_PRIVATE, "On", "on"),
    (SettingKey.LANGUAGE, "PT-br", "pt-BR"),
    (SettingKey.LANGUAGE, "zh-hant-tw", "zh-Hant-TW"),
    (SettingKey.LANGUAGE, "es-419", "es-419"),
]

REFUSED = [
    (SettingKey.TIMEZONE, "Mars/Base"),
    (SettingKey.NOW_POSTERS, "admins"),
    (SettingKey.NOW_COOLDOWN, "25h"),
    (SettingKey.NOW_COOLDOWN, "soon"),
    (SettingKey.NOW_COOLDOWN, "-5"),
    (SettingKey.NOW_LIMIT, "1001"),
    (SettingKey.NOW_LIMIT, "two"),
    (SettingKey.CLOSE_AFTER, "30s"),
    (SettingKey.CLOSE_AFTER, "8d"),
    (SettingKey.REVEAL, "never"),
    (SettingKey.SPEED_POINTS, "maybe"),
    (SettingKey.COHORT_PRIVATE, "dm"),
    (SettingKey.LANGUAGE, "english"),
    (SettingKey.LANGUAGE, "e"),
]


@pytest.mark.parametrize(("key", "typed", "stored"), ACCEPTED)
def test_each_key_reads_what_people_type_into_its_canonical_text(key: SettingKey, typed: str, stored: str) -> None:
    assert setting_value(key, typed) == stored
    assert setting_value(key, stored) == stored  # the stored text reads back as itself
    assert setting_value(key, words.form_value(key, stored)) == stored  # as the settings form shows it, too


@pytest.mark.parametrize(("key", "typed"), REFUSED)
def test_a_value_a_key_does_not_allow_is_refused_in_one_line_naming_what_is(key: SettingKey, typed: str) -> None:
    with pytest.raises(CommandError) as refused:
        setting_value(key, typed)
    message = refused.value.worded()
    assert message.startswith(f"`{typed}` is not allowed for `{key.value}`: say ")
    assert "\n" not in message and refused.value.lines == ()


def test_default_clears_a_key_and_keys_have_short_names() -> None:
    for word in ("default", "Inherit", "unset"):
        assert setting_value(SettingKey.REVEAL, word) is None
    assert setting_key("TZ") is SettingKey.TIMEZONE
    assert setting_key("now_cooldown") is SettingKey.NOW_COOLDOWN
    with pytest.raises(CommandError) as typo:
        setting_key("speedpoints")
    assert typo.value.worded().startswith("`speedpoints` is not a setting. Did you mean `speed-points`?")


def test_the_grammar() -> None:
    assert parse_command("settings") == ShowSettings()
    assert parse_command("config workspace") == ShowSettings(SettingScope.WORKSPACE)
    assert parse_command("settings show channel") == ShowSettings(SettingScope.CHANNEL)
    assert parse_command("settings channel now-cooldown 2m") == ChangeChannelSettings((("now-cooldown", "120"),))
    assert parse_command("settings channel reveal default") == ChangeChannelSettings((("reveal", ""),))
    assert parse_command("settings workspace tz Europe/Oslo") == ChangeWorkspaceSettings((("timezone", "Europe/Oslo"),))
    assert parse_command("settings workspace edit 2") == EditSettings(SettingScope.WORKSPACE, 2)
    for text, problem in [
        ("settings channel now-cooldown", "`now-cooldown` needs a value: say a duration up to 24 h such as `90s`"),
        ("settings channel edit 1 2", "Say `/quiz settings channel KEY VALUE` to change a setting"),
        ("settings channel edit 3", "`3` is not a page of the settings form: say a number from 1 to 2."),
        ("settings frob", "`frob` is not something `/quiz settings` does; say `show`, `channel`, `workspace`, "),
        ("settings history now", "`/quiz settings history` takes no arguments."),
    ]:
        with pytest.raises(CommandError) as refused:
            parse_command(text)
        assert refused.value.worded().startswith(problem), text


def test_the_channel_wins_over_the_workspace_which_wins_over_the_default() -> None:
    defaults = SettingDefaults.of(timezone="Europe/Berlin", now_cooldown_seconds=60, now_open_limit=2)
    overrides = Overrides(
        workspace={SettingKey.NOW_COOLDOWN: "300", SettingKey.REVEAL: "anyone"},
        channel={SettingKey.NOW_COOLDOWN: "90"},
    )
    here = resolve(defaults, overrides)
    assert here.now_cooldown == timedelta(seconds=90) and here.sources[SettingKey.NOW_COOLDOWN] is Source.CHANNEL
    assert here.reveal is RevealPolicy.ANYONE and here.sources[SettingKey.REVEAL] is Source.WORKSPACE
    assert (here.timezone, here.now_limit) == ("Europe/Berlin", 2)
    assert here.sources[SettingKey.TIMEZONE] is Source.DEFAULT
    assert (here.now_posters, here.close_after, here.speed_points, here.cohort_private, here.language) == (
        NowPosters.ANYONE,
        None,
        True,
        False,
        "en",
    )
    above = inherited(defaults, overrides, SettingScope.CHANNEL)
    assert above.now_cooldown == timedelta(seconds=300) and above.sources[SettingKey.NOW_COOLDOWN] is Source.WORKSPACE
    assert inherited(defaults, overrides, SettingScope.WORKSPACE).now_cooldown == timedelta(seconds=60)


def test_a_stored_value_this_version_cannot_read_falls_back_to_the_inherited_one() -> None:
    here = resolve(
        SettingDefaults(), Overrides(workspace={SettingKey.REVEAL: "leads"}, channel={SettingKey.REVEAL: "?"})
    )
    assert here.reveal is RevealPolicy.LEADS and here.sources[SettingKey.REVEAL] is Source.WORKSPACE
    assert isinstance(resolve(SettingDefaults(), Overrides(channel={SettingKey.NOW_LIMIT: "x"})), EffectiveSettings)
    assert set(BUILT_IN) == set(KEYS)


def test_the_settings_form_fits_a_discord_modal() -> None:
    pages = form_pages()
    assert [key for page in pages for key in page] == list(KEYS)
    assert all(0 < len(page) <= MAX_FIELDS for page in pages)
    assert all(len(words.label(key)) <= MAX_LABEL for key in KEYS)
    for scope in SettingScope:
        assert all(len(words.form_title(scope, n, len(pages))) <= MAX_TITLE for n in range(1, len(pages) + 1))


def test_the_settings_form_submits_as_its_scopes_change() -> None:
    build = FORM_COMMANDS[FormKind.SETTINGS]
    assert build("channel:1", {"now-limit": "3", "timezone": ""}) == ChangeChannelSettings(
        (("now-limit", "3"), ("timezone", "")), form="channel:1"
    )
    assert build("workspace:2", {"language": "de"}) == ChangeWorkspaceSettings(
        (("language", "de"),), form="workspace:2"
    )


def test_speed_points_off_scores_a_flat_ten() -> None:
    assert points_for(correct=True, latency=timedelta(0), window=timedelta(hours=1)) == 20
    assert points_for(correct=True, latency=timedelta(0), window=timedelta(hours=1), speed=False) == 10
    assert points_for(correct=False, latency=timedelta(0), window=None, speed=False) == 0


def test_the_environment_sets_every_default_in_the_chat_grammar() -> None:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        now_posters="Leads",
        close_after="2h",
        reveal_policy="schedule",
        speed_points="no",
        language="de",
    )
    defaults = settings.setting_defaults().values
    assert defaults[SettingKey.NOW_POSTERS] == "leads" and defaults[SettingKey.CLOSE_AFTER] == "7200"
    assert (defaults[SettingKey.REVEAL], defaults[SettingKey.SPEED_POINTS]) == ("schedule", "off")
    assert (defaults[SettingKey.COHORT_PRIVATE], defaults[SettingKey.LANGUAGE]) == ("off", "de")
    with pytest.raises(ValidationError) as refused:
        Settings(_env_file=None, close_after="10s")  # type: ignore[call-arg]
    assert "10s is not allowed for close-after: say a duration from 1 min to 7 d" in str(refused.value)
    with pytest.raises(ValidationError, match="needs a value"):
        Settings(_env_file=None, reveal_policy="default")  # type: ignore[call-arg]
