"""Fault run: the bot SIGKILLed after about half of 8,000 clicks, 200 in flight, on Slack (HTTP mode) and Discord.

    python -m bench.kill_clicks [--quick] [--platform slack|discord|both] [--db sqlite|postgresql|both]
                                [--clicks 8000] [--concurrency 200] [--kill-after 4000]

The bot is a child process; this one plays the platform and kills the bot once `--kill-after` clicks were
answered. Targets (issue 13), per platform and database: 0 clicks acknowledged, not stored and not told to retry;
0 told "recorded" but not stored. Before acknowledge-after-commit the Slack run lost 39% (PostgreSQL) and 89%
(SQLite) of the acknowledged clicks. --quick: 1,000 clicks, SIGKILL after 500 (still 2.5 times the clicks in
flight at the kill), and the deferring Discord run on SQLite only.

Slack: `quizbot run` in HTTP mode; each click's ack (its X-Quizbot-Answer header), its private reply and the
database are compared (tests/click_storm.py).

Discord: the bot as `quizbot run` serves it (bot.runtime.serve, the Discord adapter) with discord.py pointed at
the loopback fake gateway and REST API (tests/discord_storm.py); clicks arrive as INTERACTION_CREATE events, 200
waiting for their interaction response at a time. It runs twice: at the default QUIZBOT_DISCORD_ACK_DEADLINE, where
a click is answered with its committed verdict, and at 0.05 s, where nearly every click is deferred first (the path
a slow database takes). What counts on Discord:
- acknowledged: the bot sent an interaction response, the verdict itself (type 4) or a defer (type 5,
  "thinking...");
- told to retry: our words ("busy", "could not record ... try again") as the response or as the deferred
  response's edit, or Discord's own: a click with no response shows "This interaction failed", and a deferred
  response never edited ends as "The application did not respond" (the platform shows the failure, so the person
  clicks again; the first answer counts, if it was stored);
- so a click acknowledged only by a defer and never edited is no loss whether or not it is stored: it told nobody
  "recorded". It would be one only if the defer itself claimed the answer was recorded, which it never does (the
  deferred response is empty until the edit, and the edit is sent only after the commit).
- told "recorded": "Correct!" / "Not quite." as the response or as the deferred edit; every such click must be
  stored.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from bench.common import Check, quick_or_full, run, scratch_database, write_section
from tests.click_storm import VERDICT_WORDS, audit, post_cards, running_bot, storm
from tests.discord_storm import Outcome, plan_clicks, settle, start_bot, stop_bot
from tests.discord_storm import audit as discord_audit
from tests.discord_storm import storm as discord_storm
from tests.discord_support import card_messages, slash
from tests.fakes.discord_api import FakeDiscord
from tests.fakes.slack_api import FakeSlack

CARDS = 20
"""Cards open at once, all in one channel, as in bench/slack_path.py."""
DEFERRING = 0.05
"""The Discord acknowledgement deadline of the second Discord run: nearly every click is deferred first."""


@dataclass
class KillRun:
    """One run's table row, note and checks."""

    row: str
    note: str
    checks: list[Check]


def _checks(label: str, untold: int, acknowledged: int, told_recorded: int, recorded: int) -> list[Check]:
    return [
        Check(
            f"SIGKILL: acknowledged, not stored, not told to retry ({label})",
            "0",
            f"{untold:,} of {acknowledged:,} acknowledged",
            untold == 0,
        ),
        Check(
            f"SIGKILL: told recorded, not stored ({label})",
            "0",
            f"{told_recorded:,} of {recorded:,} told recorded",
            told_recorded == 0,
        ),
    ]


async def slack(kind: str, clicks: int, concurrency: int, kill_after: int) -> KillRun:
    """One Slack run on one database."""
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        async with scratch_database(kind, workdir) as url, FakeSlack() as fake:
            async with running_bot(fake, url, workdir) as bot:
                cards = await post_cards(bot, fake, CARDS)

                def kill_midway(acks: int) -> None:
                    if acks == kill_after and bot.process.returncode is None:
                        bot.process.send_signal(signal.SIGKILL)

                result = await storm(bot, fake, cards, clicks=clicks, concurrency=concurrency, on_ack=kill_midway)
                await bot.process.wait()
            await asyncio.sleep(0.5)  # replies already on their way land at the fake
            found = await audit(result, fake, url)
    kinds = result.kinds()
    acked = len(result.acked())
    untold, told = len(found.acked_not_stored_not_told_retry), len(found.told_recorded_not_stored)
    row = (
        f"| {kind} | {clicks:,} | {acked:,} ({kinds.get('recorded', 0):,} recorded, {kinds.get('late', 0)} late, "
        f"{kinds.get('busy', 0)} busy) | {kinds.get('no_response', 0):,} | {len(found.stored):,} | "
        f"**{untold}** | **{told}** | "
        f"{len(found.acked_committed_not_stored)} | {len(found.stored_not_acked)} | {len(found.stored_wrongly)} |"
    )
    note = (
        f"- Slack, {kind}: killed after {kill_after:,} acks ({result.elapsed:.1f} s of clicking); "
        f"acked, not stored, not told to retry: {untold} (target 0); told recorded but not stored: {told} (target 0)"
    )
    told_recorded = sum(1 for r in fake.ephemeral if str(r["text"]).startswith(VERDICT_WORDS))
    return KillRun(row, note, _checks(f"Slack, {kind}", untold, acked, told, told_recorded))


async def discord(kind: str, clicks: int, concurrency: int, kill_after: int, deadline: float | None) -> KillRun:
    """One Discord run on one database, at the default acknowledgement deadline or at `deadline`."""
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        async with scratch_database(kind, workdir) as url, FakeDiscord(validate_payloads=False) as fake:
            extra = {"QUIZBOT_DISCORD_ACK_DEADLINE": str(deadline)} if deadline is not None else {}
            bot = await start_bot(fake, url, workdir / "bot.log", env=extra)
            killed = False
            try:
                for _ in range(CARDS):
                    await slash(fake, "now", {}, user_name="host")
                planned = plan_clicks(card_messages(fake), clicks)

                def kill_midway(responses: int) -> None:
                    nonlocal killed
                    if responses == kill_after and bot.returncode is None:
                        bot.send_signal(signal.SIGKILL)
                        killed = True

                result = await discord_storm(
                    fake, planned, concurrency=concurrency, on_response=kill_midway, gone=lambda: killed
                )
                await bot.wait()
            finally:
                await stop_bot(bot)
            await asyncio.sleep(0.5)  # responses and edits already on their way land at the fake
            settle(fake, result)
            found = await discord_audit(result, url)
    outcomes = result.outcomes()
    deferred = Counter(c.outcome for c in result.deferred())
    untold, told = len(found.acknowledged_not_stored_not_told_retry), len(found.told_recorded_not_stored)
    stored = sum(1 for c in result.clicks if c.key in found.stored)
    setting = f"{deadline:g} s" if deadline is not None else "default"
    row = (
        f"| {kind} | {setting} | {clicks:,} | {len(result.acknowledged()):,} "
        f"({outcomes[Outcome.RECORDED]:,} told recorded, {outcomes[Outcome.BUSY]:,} told busy, "
        f"{outcomes[Outcome.RETRY]:,} told not recorded) | {sum(deferred.values()):,} "
        f"({deferred[Outcome.RECORDED]:,} then recorded, {deferred[Outcome.BUSY]:,} then busy, "
        f"{deferred[Outcome.DEFERRED_UNFINISHED]:,} never edited) | {outcomes[Outcome.NO_RESPONSE]:,} | "
        f"{outcomes[Outcome.NOT_SENT]:,} | {stored:,} | **{untold}** | **{told}** | {len(found.stored_twice)} | "
        f"{len(found.stored_never_told)} | {len(found.stored_wrongly)} |"
    )
    note = (
        f"- Discord, {kind}, deadline {setting}: killed after {kill_after:,} interaction responses "
        f"({result.elapsed:.1f} s of clicking); acknowledged, not stored, not told to retry: {untold} (target 0); "
        f"told recorded but not stored: {told} (target 0)"
    )
    label = f"Discord {setting}, {kind}"
    return KillRun(row, note, _checks(label, untold, len(result.acknowledged()), told, outcomes[Outcome.RECORDED]))


SLACK_HEAD = [
    "| database | clicks | acked 200 | no response (in flight or unsent at the kill) | stored | "
    "acked, not stored, not told to retry | told recorded, not stored | acked as committed, not stored | "
    "stored, ack never sent | stored wrongly |",
    "|---|---|---|---|---|---|---|---|---|---|",
]
DISCORD_HEAD = [
    "| database | ack deadline | clicks | acknowledged (verdict or defer) | of which deferred | sent, no response | "
    "not sent (bot gone) | stored | acknowledged, not stored, not told to retry | told recorded, not stored | "
    "stored twice | stored, never told | stored wrongly |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
]


async def main() -> None:
    """Run and record."""
    parser = argparse.ArgumentParser()
    quick_or_full(parser)
    parser.add_argument("--platform", choices=["slack", "discord", "both"], default="both")
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"])
    parser.add_argument("--clicks", type=int)
    parser.add_argument("--concurrency", type=int, default=200)
    parser.add_argument("--kill-after", type=int)
    args = parser.parse_args()
    db = args.db or "both"
    clicks = args.clicks or (1000 if args.quick else 8000)
    kill_after = args.kill_after or clicks // 2
    kinds = ["sqlite", "postgresql"] if db == "both" else [db]
    load_before = os.getloadavg()[0]
    slack_rows, discord_rows, notes, checks = list(SLACK_HEAD), list(DISCORD_HEAD), [], []
    for kind in kinds:
        runs: list[KillRun] = []
        if args.platform in ("slack", "both"):
            runs.append(done := await slack(kind, clicks, args.concurrency, kill_after))
            slack_rows.append(done.row)
        if args.platform in ("discord", "both"):
            # Quick: the deferring run on SQLite only (the path a slow database takes, once), to keep make bench short.
            for deadline in (None, DEFERRING) if not args.quick or kind == "sqlite" else (None,):
                runs.append(done := await discord(kind, clicks, args.concurrency, kill_after, deadline))
                discord_rows.append(done.row)
        for done in runs:
            notes.append(done.note)
            checks += done.checks
        print("\n".join([*slack_rows, "", *discord_rows, "", *notes]), flush=True)
    parts = [
        f"{clicks:,} clicks on {CARDS} cards in one channel (each user clicks each card once), "
        f"{args.concurrency} in flight; SIGKILL once {kill_after:,} were answered."
    ]
    if args.platform in ("slack", "both"):
        parts += [
            "Slack: signed clicks against `quizbot run` (HTTP mode).",
            "\n".join(slack_rows),
            '"Stored, ack never sent": the process died between the commit and the ack, so Slack showed the '
            "person the click failed; clicking again tells them the answer they gave (only the first counts).",
        ]
    if args.platform in ("discord", "both"):
        parts += [
            "Discord: INTERACTION_CREATE events against the bot as `quizbot run` serves it (bot.runtime.serve, the "
            "Discord adapter, discord.py on the loopback fake), once at the default acknowledgement deadline and "
            f"once at QUIZBOT_DISCORD_ACK_DEADLINE={DEFERRING:g} (most clicks deferred first; a defer frees its "
            "sender for the next click, so the clicks pending in the bot reach QUIZBOT_MAX_PENDING_CLICKS and the "
            'next ones are told busy at once). "Sent, no response" and "never edited" are shown by Discord as '
            'failed ("This interaction failed", "The application did not respond"): told to retry. "Stored, never '
            'told": committed, then killed before the response or the edit went out; clicking again tells them '
            "their first answer. The rule is in the docstring of bench/kill_clicks.py.",
            "\n".join(discord_rows),
        ]
    parts += [
        "\n".join(notes),
        f"Machine load (1-minute average) {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end. "
        "With 200 clicks in flight, an ack waits about 200 / (clicks recorded a second): below ~100/s (a loaded "
        "machine) that passes the deadline, and those clicks are acked late (Slack) or deferred (Discord).",
    ]
    quick = " --quick" if args.quick else ""
    write_section(
        "11. Fault: SIGKILL in the middle of a click storm",
        f"python -m bench.kill_clicks{quick} --platform {args.platform} --db {db} --clicks {clicks} "
        f"--kill-after {kill_after}",
        "\n\n".join(parts),
        checks,
    )


if __name__ == "__main__":
    run(main)
