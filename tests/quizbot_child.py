"""`python -m tests.quizbot_child API_BASE GATEWAY_URL ARGS...`: the `quizbot` command line itself (`bot.cli.main`),
with discord.py pointed at a loopback fake Discord.

discord.py has no setting for its endpoints (they are module globals: see `tests.fakes.discord_api.patch_discord`),
so a `quizbot run` that is to talk to the fake needs this one step before `main`; and its adapters answer a click
itself however long a loaded machine takes to commit it, never late or deferred because of the machine's speed
(tests/patient_adapters.py). Everything else (settings from the environment, the adapters, supervision, the one
explained line and the exit status) is the real command's.
"""

from __future__ import annotations

import sys

from bot.cli import main
from tests.fakes.discord_api import patch_discord
from tests.patient_adapters import patient_discord, patient_slack

if __name__ == "__main__":
    patient_discord()
    patient_slack()
    with patch_discord(sys.argv[1], sys.argv[2]):
        raise SystemExit(main(sys.argv[3:]))
