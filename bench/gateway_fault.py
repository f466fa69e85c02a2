"""Fault run: the gateway closed with a code discord.py gives up on (4012: `Client.connect()` raises) under the bot
as `quizbot run` serves it; is the process alive and answering the next interaction? (The bad frame this run used
first, a click with a partial channel object from an uncached guild, is now answered and fails nothing:
tests/e2e/discord/test_discord_partial.py.)

    python -m bench.gateway_fault [--quick] [--db sqlite|postgresql|both]

The real discord.py client of the Discord adapter, run by bot.runtime.serve (supervised adapters, the scheduler),
against the loopback fake Discord; the figure is yes/no, with the time the adapter took to be back.
--quick changes nothing: one frame on each database takes seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

from adapters.discord.adapter import DiscordAdapter
from bench.common import Check, quick_or_full, run, scratch_database, write_section
from bot.config import Settings
from bot.runtime import build_runtime, serve
from bot.supervision import AdapterFailed
from tests.discord_support import ANSWER_ID, answer_rows, card_messages, custom_ids, slash
from tests.fakes.discord_api import FakeDiscord


async def _one(kind: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        async with scratch_database(kind, Path(tmp)) as url, FakeDiscord() as fake:
            settings = Settings(  # type: ignore[call-arg]
                database_url=url, discord_token="fake-bot-token", card_update_interval=0.0, _env_file=None
            )
            runtime = await build_runtime(settings, migrate=False)
            adapter = DiscordAdapter(runtime)
            adapter.client._connection.guild_ready_timeout = 0.05
            process = asyncio.create_task(serve(runtime, [adapter]))
            try:
                await fake.wait_for(lambda: adapter.ready.is_set() or process.done(), timeout=30, what="ready")
                await slash(fake, "now", {"pack": "data-parallelism"}, user_name="alice")
                message = (await fake.wait_for(lambda: card_messages(fake), what="the card"))[0]
                button = custom_ids(message)[0]
                post_id = int(ANSWER_ID.fullmatch(button).group(1))  # type: ignore[union-attr]
                start = time.monotonic()
                await fake.drop_connection(code=4012)
                await fake.wait_for(lambda: not adapter.ready.is_set() or process.done(), timeout=30, what="down")
                await fake.wait_for(lambda: adapter.ready.is_set() or process.done(), timeout=60, what="back")
                back_after = time.monotonic() - start
                alive = not process.done()
                answered = False
                if alive:
                    data = fake.component_interaction(message, button, user_id=1001, user_name="alice")
                    reply = await fake.send_interaction(data, timeout=10)
                    rows = await answer_rows(runtime)
                    answered = reply is not None and reply.type == 4 and (post_id, "1001") in [r[:2] for r in rows]
                restarts = runtime.adapter_status["discord"].restarts
            finally:
                if not process.done():
                    os.kill(os.getpid(), signal.SIGTERM)
                exit_ok = True
                try:
                    await asyncio.wait_for(process, 60)
                except AdapterFailed:
                    exit_ok = False
    return {"alive": alive, "answered": answered, "back": back_after, "restarts": restarts, "clean_stop": exit_ok}


async def main() -> None:
    """Each database in turn."""
    parser = argparse.ArgumentParser()
    quick_or_full(parser)
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"], default="both")
    args = parser.parse_args()
    kinds = ["sqlite", "postgresql"] if args.db == "both" else [args.db]
    rows = [
        "| database | process alive | next interaction answered and recorded | adapter back after | restarts |",
        "|---|---|---|---|---|",
    ]
    verdicts = []
    checks = []
    for kind in kinds:
        r = await _one(kind)
        ok = r["alive"] and r["answered"]
        verdicts.append(ok)
        checks.append(
            Check(
                f"gateway given up on: process alive and answering the next interaction ({kind})",
                "yes",
                f"{'yes' if ok else 'no'} (alive: {'yes' if r['alive'] else 'no'}, next interaction answered and "
                f"recorded: {'yes' if r['answered'] else 'no'}; adapter back after {r['back']:.2f} s)",
                ok,
            )
        )
        yes = {True: "yes", False: "**no**"}
        rows.append(f"| {kind} | {yes[r['alive']]} | {yes[r['answered']]} | {r['back']:.2f} s | {r['restarts']} |")
    rows += [
        "",
        "- gateway given up on: process alive and answering the next interaction: "
        f"**{'yes' if all(verdicts) else 'no'}**",
    ]
    print("\n".join(rows))
    write_section(
        "14. Fault: a gateway discord.py gives up on (Discord)",
        f"python -m bench.gateway_fault --db {args.db}",
        "\n".join(rows),
        checks,
    )


if __name__ == "__main__":
    run(main)
