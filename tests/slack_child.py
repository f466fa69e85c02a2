"""`python -m tests.slack_child ARGS...`: the `quizbot` command line itself (`bot.cli.main`), with the Slack adapter's
ack deadline out of a loaded machine's reach.

The setting allows at most 2.8 s (Slack's window is 3 s), and a storm of clicks on a machine busy with other work
takes about that long to commit some of them: such a click is acked late, and a SIGKILL before its commit then loses
it untold (tests/e2e/slack/test_slack_kill.py, whose promise is about clicks acked as committed). A test that starts
the bot through this module (`running_bot(..., patient_acks=True)`) has every click acked once its answer is
committed, however slow the machine, as the in-process tests have (tests/slack_harness.py's PATIENT_ACK); the fake
Slack has no 3 s window. Everything else is the real command's.
"""

from __future__ import annotations

import sys
from typing import Any

from adapters.slack.adapter import SlackAdapter
from bot.cli import main

PATIENT_ACK = 60.0
"""The ack deadline of the child's Slack adapter (tests/slack_harness.py's PATIENT_ACK)."""


def patient_acks() -> None:
    """Every SlackAdapter built from now on acks a click (or a form) only after PATIENT_ACK seconds."""
    build = SlackAdapter.__init__

    def patient(self: SlackAdapter, *args: Any, **kwargs: Any) -> None:
        build(self, *args, **kwargs)
        self.listeners.ack_deadline = PATIENT_ACK

    SlackAdapter.__init__ = patient  # type: ignore[method-assign]


if __name__ == "__main__":
    patient_acks()
    raise SystemExit(main(sys.argv[1:]))
