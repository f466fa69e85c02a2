"""Adapters are plugins: each installed adapter owns its settings, its doctor checks and its words for a start that
failed, and the core asks it through this one interface. Adding a platform is one folder plus an entry point.

An adapter package exposes an `AdapterPlugin` under the `quizbot.adapters` entry-point group (pyproject.toml):

    [project.entry-points."quizbot.adapters"]
    slack = "adapters.slack:build"

The plugin is callable (`build(host) -> Adapter`) and must be cheap to import: its settings class and words load
with it, the platform library only when the adapter is built. The core never imports an adapter module by name.
"""

from __future__ import annotations

import errno
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from typing import Any, Protocol, Self

from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.errors import AdapterStartError, QuizError

log = logging.getLogger(__name__)

ADAPTER_GROUP = "quizbot.adapters"


class Adapter(Protocol):
    """A running platform connection. It registers its ChatPlatform and serves until the host's `stopping` is set.

    An adapter whose `run` returns on its own (the terminal at end of input) stops the whole bot.
    """

    name: str

    async def run(self) -> None:
        """Serve until told to stop (or until the platform's input ends)."""
        ...


@dataclass(frozen=True, slots=True)
class Finding:
    """One check's result: ok, warn or fail, what was seen, and what to do about it."""

    level: str
    subject: str
    detail: str
    fix: str = ""

    def line(self) -> str:
        """The finding as one printable line."""
        text = f"{self.level.upper():<4} {self.subject}: {self.detail}"
        return f"{text}\n     fix: {self.fix}" if self.fix else text


class AdapterSettings(BaseSettings):
    """An adapter's own settings: `QUIZBOT_<NAME>` environment variables, and whatever the core `Settings` was
    given for them (keyword arguments and `.env` keys, which the core keeps as extras without reading them)."""

    model_config = SettingsConfigDict(env_prefix="QUIZBOT_", env_file=None, extra="ignore", validate_default=True)

    @classmethod
    def of(cls, settings: BaseSettings) -> Self:
        """This adapter's settings as the core's `settings` and the environment give them."""
        extras = settings.model_extra or {}
        return cls(**{name: value for name, value in extras.items() if name in cls.model_fields})

    def configured(self) -> bool:
        """Whether credentials are present, so the adapter runs without being named in QUIZBOT_ADAPTERS."""
        return False

    def findings(self) -> list[Finding]:
        """`quizbot doctor`'s checks of these settings."""
        return []

    async def online_findings(self) -> list[Finding]:
        """`quizbot doctor --online`'s checks against the platform itself, with these credentials: what the platform
        says the token is, what it was granted, what is missing (each one line with its fix). Asked only when the
        offline `findings` have no failure; an exception is explained by `start_failure`."""
        return []

    def start_refusal(self) -> str | None:
        """Why `quizbot run` must not start this adapter with these settings, in one line that names the setting
        and the fix (None: start). For mistakes the platform would accept but that would misbehave (a person's
        token where the bot's belongs)."""
        return None

    def clock_url(self) -> str | None:
        """An endpoint of the platform that answers without a token: `quizbot doctor` compares the `Date` of its
        answer with this host's clock (None: the doctor does not ask this platform)."""
        return None


@dataclass(frozen=True, slots=True)
class StartWords:
    """How an operator is told that the platform would not let the bot in."""

    platform: str
    setting: str
    refused_fix: str
    unreachable_fix: str


@dataclass(frozen=True, slots=True)
class StartFailure:
    """What a platform library's exception means: `refused` (credentials), `unreachable`, `answered` (an error) or
    `listen` (the adapter cannot listen on its port; `detail` is then the whole line).

    `detail` replaces the exception's text and `setting` the setting to check, where the library says better.
    """

    kind: str
    detail: str | None = None
    setting: str | None = None
    fix: str | None = None
    """The fix, where the plugin's words say better than its StartWords (a port in use names the port's setting)."""


@dataclass(frozen=True)
class AdapterPlugin:
    """An installed adapter as the core sees it: how to build it, its settings, and its words for a failed start."""

    name: str
    settings: type[AdapterSettings]
    factory: Callable[[Any], Adapter]
    """Builds the adapter from an AdapterHost (bot/service/facade.py); imports the platform library."""
    words: StartWords | None = None
    classify: Callable[[BaseException], StartFailure | None] | None = None
    """Recognises the platform library's own exceptions (by class name, so the core imports none of them)."""
    order: int = 100
    """Where the adapter is listed among those that run (lower first): entry points come in no fixed order."""

    def __call__(self, host: Any) -> Adapter:
        return self.factory(host)


@cache
def installed_plugins() -> Mapping[str, AdapterPlugin]:
    """The installed adapter plugins by name, in the order the entry points list them."""
    plugins: dict[str, AdapterPlugin] = {}
    for entry_point in entry_points(group=ADAPTER_GROUP):
        try:
            plugin = entry_point.load()
        except Exception:  # a broken plugin must not stop the others; `run` names it if it is asked for
            log.warning("adapter plugin %s could not be loaded", entry_point.name, exc_info=True)
            continue
        if isinstance(plugin, AdapterPlugin):
            plugins[entry_point.name] = plugin
    return dict(sorted(plugins.items(), key=lambda item: (item[1].order, item[0])))


def adapter_settings_fields() -> dict[str, type[AdapterSettings]]:
    """Every installed adapter's setting field names, with the settings class that reads each."""
    return {name: plugin.settings for plugin in installed_plugins().values() for name in plugin.settings.model_fields}


def _classes(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def causes(exc: BaseException) -> list[BaseException]:
    """The exception and its causes, outermost first."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def _failure(plugin: AdapterPlugin | None, exc: BaseException) -> StartFailure | None:
    """What the exception chain means, outermost cause first: a 401, the plugin's own library errors, the network."""
    for cause in causes(exc):
        if getattr(cause, "status", None) == 401:
            return StartFailure("refused")
        if plugin is not None and plugin.classify is not None and (found := plugin.classify(cause)) is not None:
            return found
        if isinstance(cause, OSError | TimeoutError) or "ClientConnectionError" in _classes(cause):
            return StartFailure("unreachable")
        if "ClientResponseError" in _classes(cause):
            return StartFailure("answered")
    return None


LISTEN_ERRORS = frozenset({errno.EADDRINUSE, errno.EACCES, errno.EADDRNOTAVAIL})
"""What binding a listening socket fails with when the port is taken, privileged, or the host is not this one's."""


def cannot_listen(exc: BaseException) -> OSError | None:
    """The OSError of a listening socket that could not be bound, if that is what `exc` is."""
    return exc if isinstance(exc, OSError) and exc.errno in LISTEN_ERRORS else None


def one_line(exc: BaseException) -> str:
    """The exception's text on one line, at most 300 characters."""
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:297] + "..."


def start_failure(plugin_name: str, exc: BaseException) -> QuizError | None:
    """One line for an adapter (or an adapter's command) that failed: what the platform did, the setting, what to do.

    An AdapterStartError with a fix is the adapter's own words; a QuizError from the adapter gets the fix added; a
    platform library's error is named by kind (the plugin recognises its library's classes); None for anything else.
    """
    if isinstance(exc, AdapterStartError) and exc.fix:
        return exc
    plugin = installed_plugins().get(plugin_name)
    words = (plugin.words if plugin else None) or StartWords(
        plugin_name, "its settings", f"check the {plugin_name} settings", "check the network"
    )
    failure = _failure(plugin, exc)
    setting = (failure.setting if failure else None) or words.setting
    fixes = {
        "refused": words.refused_fix,
        "unreachable": words.unreachable_fix,
        "answered": f"try again; if it persists check {setting}",
    }
    fix = (failure.fix or fixes.get(failure.kind)) if failure else None
    if isinstance(exc, QuizError):
        return AdapterStartError(str(exc), setting=setting, fix=fix)
    if failure is None:
        return None
    detail = failure.detail or one_line(exc) or type(exc).__name__
    text = {
        "refused": f"{words.platform} refused {setting}: {detail}",
        "unreachable": f"cannot reach {words.platform}: {detail}",
        "answered": f"{words.platform} answered with an error: {detail}",
        "listen": detail,
    }[failure.kind]
    return AdapterStartError(text, setting=setting, fix=fix)


def failed_finding(plugin_name: str, subject: str, exc: BaseException) -> Finding:
    """A failed online check as a doctor finding: the platform's refusal, the network or the error, with the fix
    `start_failure` gives (the exception's class and text when it is none of those)."""
    explained = start_failure(plugin_name, exc)
    if explained is None:
        return Finding("fail", subject, f"{type(exc).__name__}: {one_line(exc)}")
    fix = explained.fix if isinstance(explained, AdapterStartError) else None
    text = str(explained)
    if fix and text.endswith(f"; {fix}"):
        text = text[: -len(fix) - 2]
    return Finding("fail", subject, text, fix or "")


def split_commas(value: object) -> object:
    """`a, b,c` from an environment variable as a list (lists pass through), for list settings."""
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


def names_phrase(names: Sequence[str]) -> str:
    """`'a', 'b' or 'c'`."""
    quoted = [repr(name) for name in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
