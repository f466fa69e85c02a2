"""Settings in chat (`/quiz settings`): the keys a team sets for a channel or its whole workspace, their stored
form, and how a value is found: the channel's own, else the workspace's, else the environment's default.

Pure: no words and no I/O. A value is stored as its canonical text (`120` seconds, `on`, `Europe/Helsinki`), which
the grammar (bot/commands/settings.py) makes from what was typed and refuses with words when it is not allowed;
`resolve` reads the stored text back into typed values.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta


class SettingKey(enum.Enum):
    """A setting a team may change in chat, by the word typed after `/quiz settings channel|workspace`."""

    TIMEZONE = "timezone"
    """The default timezone of new schedules (an IANA name)."""
    NOW_POSTERS = "now-posters"
    """Who may post a question on demand with `/quiz now`: `anyone` or `leads`."""
    NOW_COOLDOWN = "now-cooldown"
    """Seconds after a member's `/quiz now` before the next one in the channel (0: none; leads exempt)."""
    NOW_LIMIT = "now-limit"
    """Open on-demand questions a channel may have before a member must reveal one (0: no limit; leads exempt)."""
    CLOSE_AFTER = "close-after"
    """How long a question of `/quiz now` or of a new schedule stays open (seconds), or `none`."""
    REVEAL = "reveal"
    """Who may reveal a question before it closes (RevealPolicy)."""
    SPEED_POINTS = "speed-points"
    """A correct answer earns up to 10 more points the faster it is: `on` or `off`."""
    COHORT_PRIVATE = "cohort-private"
    """A new cohort is delivered by direct message unless its creator says `deliver:channel`: `on` or `off`."""
    LANGUAGE = "language"
    """The language the bot answers in (a BCP-47 tag; stored now, used once translations ship)."""


class SettingScope(enum.Enum):
    """Where a value is set: one channel, or the whole workspace."""

    CHANNEL = "channel"
    WORKSPACE = "workspace"


class Source(enum.Enum):
    """Where an effective value comes from."""

    CHANNEL = "channel"
    WORKSPACE = "workspace"
    DEFAULT = "default"
    """The environment's default (bot/config.py), or the built-in one for a key the environment does not set."""


class NowPosters(enum.Enum):
    """Who may post a question on demand."""

    ANYONE = "anyone"
    LEADS = "leads"


class RevealPolicy(enum.Enum):
    """Who may reveal a question before its time (admins always may)."""

    LEADS = "leads"
    """A scheduled or cohort question is revealed by its schedule, or early by a lead; an on-demand question by
    whoever posted it, or a lead (the default)."""
    SCHEDULE = "schedule"
    """As `leads`, except that a scheduled or cohort question is revealed only by its schedule: leads wait too."""
    ANYONE = "anyone"
    """Anyone may reveal any question early."""


ON, OFF = "on", "off"
NO_CLOSE = "none"
"""The stored `close-after` of a question that stays open until revealed."""

KEYS: tuple[SettingKey, ...] = tuple(SettingKey)
"""Every key, in the order they are shown."""

COOLDOWN_MAX = 86_400
"""The longest now-cooldown, in seconds (QUIZBOT_NOW_COOLDOWN_SECONDS's bound)."""
LIMIT_MAX = 1000
"""The largest now-limit (QUIZBOT_NOW_OPEN_LIMIT's bound)."""
VALUE_MAX = 64
"""The longest stored value (a timezone name is the longest)."""

BUILT_IN: Mapping[SettingKey, str] = {
    SettingKey.TIMEZONE: "UTC",
    SettingKey.NOW_POSTERS: NowPosters.ANYONE.value,
    SettingKey.NOW_COOLDOWN: "0",
    SettingKey.NOW_LIMIT: "0",
    SettingKey.CLOSE_AFTER: NO_CLOSE,
    SettingKey.REVEAL: RevealPolicy.LEADS.value,
    SettingKey.SPEED_POINTS: ON,
    SettingKey.COHORT_PRIVATE: OFF,
    SettingKey.LANGUAGE: "en",
}
"""Each key's value when neither the environment, the workspace nor the channel sets it."""

FROM_ENVIRONMENT: Mapping[SettingKey, str] = {
    SettingKey.TIMEZONE: "QUIZBOT_TIMEZONE",
    SettingKey.NOW_POSTERS: "QUIZBOT_NOW_POSTERS",
    SettingKey.NOW_COOLDOWN: "QUIZBOT_NOW_COOLDOWN_SECONDS",
    SettingKey.NOW_LIMIT: "QUIZBOT_NOW_OPEN_LIMIT",
    SettingKey.CLOSE_AFTER: "QUIZBOT_CLOSE_AFTER",
    SettingKey.REVEAL: "QUIZBOT_REVEAL_POLICY",
    SettingKey.SPEED_POINTS: "QUIZBOT_SPEED_POINTS",
    SettingKey.COHORT_PRIVATE: "QUIZBOT_COHORT_PRIVATE",
    SettingKey.LANGUAGE: "QUIZBOT_LANGUAGE",
}
"""The environment variable that sets each key's default (bot/config.py); BUILT_IN is each one's own default."""


@dataclass(frozen=True, slots=True)
class SettingDefaults:
    """The defaults under every workspace's and channel's settings: the built-in values, with the environment's."""

    values: Mapping[SettingKey, str] = field(default_factory=lambda: dict(BUILT_IN))

    @classmethod
    def of(
        cls,
        *,
        timezone: str = "UTC",
        now_cooldown_seconds: int = 0,
        now_open_limit: int = 0,
        **others: str,
    ) -> SettingDefaults:
        """The defaults from the environment's settings (bot/config.py `Settings.setting_defaults`): the three
        numbers and the timezone, and any other key by its name with `_` for `-` (`now_posters="leads"`), as
        canonical text."""
        values = {
            **BUILT_IN,
            SettingKey.TIMEZONE: timezone,
            SettingKey.NOW_COOLDOWN: str(now_cooldown_seconds),
            SettingKey.NOW_LIMIT: str(now_open_limit),
        }
        for name, text in others.items():
            values[SettingKey(name.replace("_", "-"))] = text
        return cls(values)


@dataclass(frozen=True, slots=True)
class SettingChange:
    """One change kept in the history: who, when, where, which key, and the value before and after (None: not set
    there, so inherited)."""

    at: datetime
    by: str
    scope: SettingScope
    channel: str | None
    """The channel's platform id for a channel's change (None for the workspace's)."""
    key: SettingKey
    old: str | None
    new: str | None


@dataclass(frozen=True, slots=True)
class Overrides:
    """What a workspace and one of its channels set (key -> stored text); a key absent is not set there."""

    workspace: Mapping[SettingKey, str] = field(default_factory=dict)
    channel: Mapping[SettingKey, str] = field(default_factory=dict)

    def of(self, scope: SettingScope) -> Mapping[SettingKey, str]:
        """What one scope sets."""
        return self.channel if scope is SettingScope.CHANNEL else self.workspace


@dataclass(frozen=True, slots=True)
class EffectiveSettings:
    """A channel's settings as they apply: each key's stored text and where it comes from, read into typed values."""

    values: Mapping[SettingKey, str]
    sources: Mapping[SettingKey, Source]

    @property
    def timezone(self) -> str:
        return self.values[SettingKey.TIMEZONE]

    @property
    def now_posters(self) -> NowPosters:
        return NowPosters(self.values[SettingKey.NOW_POSTERS])

    @property
    def now_cooldown(self) -> timedelta:
        return timedelta(seconds=int(self.values[SettingKey.NOW_COOLDOWN]))

    @property
    def now_limit(self) -> int:
        return int(self.values[SettingKey.NOW_LIMIT])

    @property
    def close_after(self) -> timedelta | None:
        text = self.values[SettingKey.CLOSE_AFTER]
        return None if text == NO_CLOSE else timedelta(seconds=int(text))

    @property
    def reveal(self) -> RevealPolicy:
        return RevealPolicy(self.values[SettingKey.REVEAL])

    @property
    def speed_points(self) -> bool:
        return self.values[SettingKey.SPEED_POINTS] == ON

    @property
    def cohort_private(self) -> bool:
        return self.values[SettingKey.COHORT_PRIVATE] == ON

    @property
    def language(self) -> str:
        return self.values[SettingKey.LANGUAGE]


def readable(key: SettingKey, text: str) -> bool:
    """Whether stored text reads as a value of its key (the grammar stores nothing else; a row written by hand or
    by a newer version that this one cannot read falls back to the inherited value)."""
    try:
        match key:
            case SettingKey.NOW_POSTERS:
                NowPosters(text)
            case SettingKey.REVEAL:
                RevealPolicy(text)
            case SettingKey.NOW_COOLDOWN:
                return 0 <= int(text) <= COOLDOWN_MAX
            case SettingKey.NOW_LIMIT:
                return 0 <= int(text) <= LIMIT_MAX
            case SettingKey.CLOSE_AFTER:
                return text == NO_CLOSE or int(text) > 0
            case SettingKey.SPEED_POINTS | SettingKey.COHORT_PRIVATE:
                return text in (ON, OFF)
            case SettingKey.TIMEZONE | SettingKey.LANGUAGE:
                return bool(text)
    except ValueError:
        return False
    return True


def resolve(defaults: SettingDefaults, overrides: Overrides) -> EffectiveSettings:
    """Each key's effective value: the channel's, else the workspace's, else the default."""
    values: dict[SettingKey, str] = {}
    sources: dict[SettingKey, Source] = {}
    for key in KEYS:
        channel, workspace = overrides.channel.get(key), overrides.workspace.get(key)
        if channel is not None and readable(key, channel):
            values[key], sources[key] = channel, Source.CHANNEL
        elif workspace is not None and readable(key, workspace):
            values[key], sources[key] = workspace, Source.WORKSPACE
        else:
            values[key], sources[key] = defaults.values.get(key, BUILT_IN[key]), Source.DEFAULT
    return EffectiveSettings(values, sources)


def inherited(defaults: SettingDefaults, overrides: Overrides, scope: SettingScope) -> EffectiveSettings:
    """What a scope would have without its own values: for a channel, the workspace's or the default; for the
    workspace, the default."""
    above = Overrides(workspace=overrides.workspace) if scope is SettingScope.CHANNEL else Overrides()
    return resolve(defaults, above)


FORM_PAGE_SIZE = 5
"""Keys per settings form (a Discord modal holds five text inputs)."""


def form_pages() -> tuple[tuple[SettingKey, ...], ...]:
    """The keys of each settings form page, in order."""
    return tuple(KEYS[start : start + FORM_PAGE_SIZE] for start in range(0, len(KEYS), FORM_PAGE_SIZE))
