"""The Slack adapter: /quiz, answer buttons and private explanations through slack-bolt (HTTP or Socket Mode).

Importing this package is cheap and loads no slack-bolt: the core loads the plugin (`build`) to read the Slack
settings; slack-bolt is imported when the adapter is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from adapters.slack.settings import START_WORDS, SlackSettings, classify
from bot.plugins import AdapterPlugin

if TYPE_CHECKING:
    from adapters.slack.adapter import SlackAdapter


def _build(host: Any) -> SlackAdapter:
    from adapters.slack.adapter import SlackAdapter

    return SlackAdapter(host)


build = AdapterPlugin(
    name="slack", settings=SlackSettings, factory=_build, words=START_WORDS, classify=classify, order=10
)
"""Entry point of the `quizbot.adapters` group."""


def __getattr__(name: str) -> object:
    if name == "SlackAdapter":  # `from adapters.slack import SlackAdapter`, loaded on first use
        from adapters.slack.adapter import SlackAdapter

        return SlackAdapter
    raise AttributeError(name)


__all__ = ["SlackAdapter", "SlackSettings", "build"]
