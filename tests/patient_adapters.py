"""Deadlines out of a loaded machine's reach, for a bot a test starts as its own process.

The settings allow a Slack ack deadline of at most 2.8 s and a Discord one of at most 2 s (the platforms' windows
are 3 s), and a machine busy with other work (CI may share it) can take that long to commit a click: the click is
then acked late (Slack) or deferred (Discord), and a test that expects the answer itself, or a SIGKILL test whose
promise is about clicks acked as committed, fails for no fault of the bot. The in-process tests give such adapters
a patient deadline (tests/slack_harness.py, tests/discord_support.py); the children of tests/slack_child.py and
tests/quizbot_child.py get it from here. The fakes have no 3 s window. The benchmarks run the production deadlines.
"""

from __future__ import annotations

import math
from typing import Any

PATIENT = 60.0
"""The ack deadline (Slack) and defer threshold (Discord) of a test's child bot."""


def patient_slack() -> None:
    """Every SlackAdapter built from now on acks a click (or a form) once it is done, up to PATIENT seconds."""
    from adapters.slack.adapter import SlackAdapter

    build = SlackAdapter.__init__

    def patient(self: SlackAdapter, *args: Any, **kwargs: Any) -> None:
        build(self, *args, **kwargs)
        self.listeners.ack_deadline = PATIENT

    SlackAdapter.__init__ = patient  # type: ignore[method-assign]


def patient_discord() -> None:
    """Every DiscordAdapter built from now on answers an interaction itself for up to PATIENT seconds, however long
    ago Discord created it, instead of deferring it (as tests/discord_support.py's `serving`)."""
    import adapters.discord.interactions
    from adapters.discord.adapter import DiscordAdapter

    adapters.discord.interactions.RESPONSE_WINDOW = math.inf
    build = DiscordAdapter.__init__

    def patient(self: DiscordAdapter, *args: Any, **kwargs: Any) -> None:
        build(self, *args, **kwargs)
        self.defer_after = PATIENT

    DiscordAdapter.__init__ = patient  # type: ignore[method-assign]
