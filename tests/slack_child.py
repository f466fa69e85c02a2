"""`python -m tests.slack_child ARGS...`: the `quizbot` command line itself (`bot.cli.main`), with the Slack adapter's
ack deadline out of a loaded machine's reach (tests/patient_adapters.py).

Under load, a storm of clicks took 1.8-3 s to commit some of them: such a click was acked late at the 2 s deadline,
and a SIGKILL before its commit then lost it untold (tests/e2e/slack/test_slack_kill.py, whose promise is about
clicks acked as committed). A test that starts the bot through this module (`running_bot(..., patient_acks=True)`)
has every click acked once its answer is committed, however slow the machine. Everything else is the real
command's.
"""

from __future__ import annotations

import sys

from bot.cli import main
from tests.patient_adapters import patient_slack

if __name__ == "__main__":
    patient_slack()
    raise SystemExit(main(sys.argv[1:]))
