"""The Slack adapter: /quiz, answer buttons and private explanations through slack-bolt (HTTP or Socket Mode)."""

from adapters.slack.adapter import SlackAdapter, build

__all__ = ["SlackAdapter", "build"]
