"""Benchmark 3: the Discord path end to end. Button clicks as INTERACTION_CREATE events over the loopback gateway
into the real discord.py client of the Discord adapter, until the interaction callback reaches Discord's REST API
(the private verdict), 200 in flight at a time; beside a bare discord.py client that only answers each
interaction ("ok", ephemeral), sent the same clicks by the same fake, measured in the same run.

    python -m bench.discord_path [--quick] [--db sqlite|postgresql|both] [--clicks 4000] [--concurrency 200]

Targets (issue 26): clicks/s >= 90% of the same-job client's (bench/same_job.py: an INSERT, then the verdict),
p99 <= its p99 + 50 ms; the answer-only client is kept beside it as the ceiling (issue 16: >= 80%, + 50 ms).
--quick: 1,000 clicks. Both databases unless --db says one.

The bot runs in a child process, served as `quizbot run` serves it (tests/discord_storm.py: bot.runtime.serve with
the Discord adapter, discord.py pointed at the loopback fake), and so do the bare clients; this process plays
Discord. Latency is from the event leaving the fake's gateway to the callback request arriving at the fake's REST API.

Every click is followed to the words its clicker finally sees (tests/discord_storm.py): the verdict sent as the
interaction response, or, for a click deferred past QUIZBOT_DISCORD_ACK_DEADLINE, the later edit of the deferred
response; the bot is stopped only once every deferred click was edited (or a timeout passed). Then the database
is checked: every click told "recorded" is stored, none twice. Each click's event is built when it is sent: its
snowflake id is what the bot reads as the click's creation time, and events built before the storm (as this bench
once did) arrived "seconds old", had no wait budget left and were deferred at once.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.common import (
    Check,
    bound_check,
    child_env,
    harness_collector_paused,
    percentile,
    quick_or_full,
    ratio_check,
    run,
    scratch_database,
    summary_ms,
    write_section,
)
from bench.same_job import count_answers, forget_answers
from bench.scaleout import cpu_seconds
from tests.discord_storm import (
    DiscordStorm,
    Outcome,
    audit,
    follow_deferred,
    notify_callbacks,
    plan_clicks,
    start_bot,
    stop_bot,
    storm,
)
from tests.discord_support import card_messages, slash
from tests.fakes.discord_api import FakeDiscord, patch_discord

CARDS = 20


async def serve_bare(api_base: str, gateway_url: str) -> None:
    """Child: a bare discord.py client (the adapter's intents) that answers every interaction and does nothing else."""
    import discord

    with patch_discord(api_base, gateway_url):
        client = discord.Client(intents=discord.Intents(guilds=True))
        client._connection.guild_ready_timeout = 0.05

        @client.event
        async def on_interaction(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("ok", ephemeral=True)

        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(client.close()))
        await client.start("bench-token")


async def serve_same_job(api_base: str, gateway_url: str, db_url: str) -> None:
    """Child: a bare discord.py client (the adapter's intents) that does the bot's job for a click
    (bench/same_job.py): it inserts the answer with one plain INSERT through the bot's driver and pool, then
    answers the interaction with the verdict (ephemeral), and does nothing else."""
    import discord

    from bench.same_job import SameJob

    job = await SameJob.open(db_url)
    with patch_discord(api_base, gateway_url):
        client = discord.Client(intents=discord.Intents(guilds=True))
        client._connection.guild_ready_timeout = 0.05

        @client.event
        async def on_interaction(interaction: discord.Interaction) -> None:
            _, _, post_id, choice = str((interaction.data or {}).get("custom_id", "")).split(":")
            right = await job.record(int(post_id), str(interaction.user.id), int(choice))
            await interaction.response.send_message("Correct!" if right else "Not this time.", ephemeral=True)

        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(client.close()))
        await client.start("bench-token")
    await job.close()


FOLLOW_TIMEOUT = 120.0
"""How long the bench waits, after the last click's interaction response, for every deferred click's edit."""


async def _click_all(
    fake: FakeDiscord, cards: list[dict[str, Any]], clicks: int, concurrency: int, first_user: int = 10**6
) -> DiscordStorm:
    with harness_collector_paused():
        return await storm(fake, plan_clicks(cards, clicks, first_user=first_user), concurrency=concurrency)


def _per_click(cpu: float, clicks: int) -> str:
    """The process's CPU (user + system) over the measured clicks, a click: what decides its rate when the
    machine's cores are what it waits for (a shared machine), whatever share of them it got."""
    return f"{cpu / clicks * 1000:.2f} ms"


def _rate(result: DiscordStorm) -> float:
    return len(result.latencies()) / result.elapsed


async def _start_bare(fake: FakeDiscord, db_url: str = "") -> asyncio.subprocess.Process:
    """The ack-only client, or the same-job client on the database at `db_url`."""
    serve = ["--serve-same", fake.api_base, fake.gateway_url, db_url] if db_url else ["--serve-bare", fake.api_base]
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.discord_path", *serve, *([] if db_url else [fake.gateway_url]), env=child_env()
    )
    identified = len(fake.identifies)
    await fake.wait_for(lambda: len(fake.identifies) > identified, timeout=60, what="the client's identify")
    await fake.wait_until_connected(timeout=60)
    await asyncio.sleep(1.0)  # let the client finish its start-up (command check, ready)
    return child


async def bench(kind: str, clicks: int, concurrency: int) -> tuple[list[str], list[str], list[Check]]:
    """Post cards, click them from many users at once through the bot, follow every deferred click to its edit,
    audit against the database; then the same clicks through the bare client."""
    with tempfile.TemporaryDirectory() as tmp:
        async with scratch_database(kind, Path(tmp)) as url, FakeDiscord(validate_payloads=False) as fake:
            notify_callbacks(fake)
            child = await start_bot(fake, url, Path(tmp) / "bot.log")
            try:
                for _ in range(CARDS):
                    await slash(fake, "now", {}, user_name="host")
                cards = card_messages(fake)
                await _click_all(fake, cards[:1], 10, 1, first_user=9 * 10**6)  # warm-up, as for the bare
                cpu_before = cpu_seconds([child.pid])
                quiz = await _click_all(fake, cards, clicks, concurrency)
                quiz_cpu = cpu_seconds([child.pid]) - cpu_before
                followed = time.monotonic()
                at_last_response = len(await follow_deferred(fake, quiz, timeout=0))
                unfinished = await follow_deferred(fake, quiz, timeout=FOLLOW_TIMEOUT)
                follow_seconds = time.monotonic() - followed
            finally:
                await stop_bot(child)
            found = await audit(quiz, url)
            await forget_answers(url)
            same_child = await _start_bare(fake, url)
            try:
                await _click_all(fake, cards[:1], 10, 1, first_user=9 * 10**6)
                cpu_before = cpu_seconds([same_child.pid])
                same = await _click_all(fake, cards, clicks, concurrency)
                same_cpu = cpu_seconds([same_child.pid]) - cpu_before
            finally:
                await stop_bot(same_child)
            same_stored = await count_answers(url) - 10
            bare_child = await _start_bare(fake)
            try:
                await _click_all(fake, cards[:1], 10, 1, first_user=9 * 10**6)
                cpu_before = cpu_seconds([bare_child.pid])
                bare = await _click_all(fake, cards, clicks, concurrency)
                bare_cpu = cpu_seconds([bare_child.pid]) - cpu_before
            finally:
                await stop_bot(bare_child)
    quiz_latencies, same_latencies, bare_latencies = quiz.latencies(), same.latencies(), bare.latencies()
    quiz_p99, same_p99, bare_p99 = (percentile(x, 99) * 1000 for x in (quiz_latencies, same_latencies, bare_latencies))
    outcomes = quiz.outcomes()
    deferred = quiz.deferred()
    deferred_outcomes = Counter(c.outcome for c in deferred)
    stored = sum(1 for c in quiz.clicks if c.key in found.stored)  # the warm-up's are not counted
    responses = len(quiz.acknowledged())
    rows = [
        f"| quiz bot (Discord adapter, {kind}) | {_rate(quiz):,.0f} | {summary_ms(quiz_latencies)} | "
        f"{responses} of {clicks} ({len(deferred)} deferred) | {stored} | {_per_click(quiz_cpu, clicks)} |",
        f"| same-job discord.py client: INSERT, then the verdict ({kind}) | {_rate(same):,.0f} | "
        f"{summary_ms(same_latencies)} | {len(same.acknowledged())} of {clicks} | {same_stored} | "
        f"{_per_click(same_cpu, clicks)} |",
        f"| bare discord.py client, answers only (the ceiling) | {_rate(bare):,.0f} | {summary_ms(bare_latencies)} | "
        f"{len(bare.acknowledged())} of {clicks} | | {_per_click(bare_cpu, clicks)} |",
    ]

    def counts(counter: Counter[Outcome]) -> str:
        return ", ".join(f"{n:,} {o.value}" for o, n in counter.most_common()) or "none"

    audit_rows = [
        f"| {kind} | {clicks:,} | {responses:,} | {counts(Counter(c.outcome for c in quiz.clicks if not c.deferred))} "
        f"| {len(deferred):,}: {counts(deferred_outcomes)} | {at_last_response:,} | {follow_seconds:.1f} s | "
        f"{stored:,} | "
        f"**{len(found.told_recorded_not_stored)}** | **{len(found.stored_twice)}** | "
        f"{len(found.acknowledged_not_stored_not_told_retry)} | {len(found.stored_never_told)} | "
        f"{len(found.stored_wrongly)} |"
    ]
    checks = [
        ratio_check(f"clicks/s ({kind})", _rate(quiz), _rate(same), 0.90, reference_name="the same-job client"),
        bound_check(
            f"p99 over the same-job client's p99 ({kind})",
            quiz_p99 - same_p99,
            50,
            "ms",
            note=f" (p99 {quiz_p99:.0f} ms vs {same_p99:.0f} ms)",
        ),
        ratio_check(
            f"clicks/s ({kind}), ceiling", _rate(quiz), _rate(bare), 0.80, reference_name="the answer-only client"
        ),
        bound_check(
            f"p99 over the answer-only client's p99 ({kind}), ceiling",
            quiz_p99 - bare_p99,
            50,
            "ms",
            note=f" (p99 {quiz_p99:.0f} ms vs {bare_p99:.0f} ms)",
        ),
    ]
    if same_stored != clicks or len(same.acknowledged()) != clicks:
        checks.append(
            Check(f"the same-job client stored and answered every click ({kind})", "all", f"{same_stored}", False)
        )
    recorded = outcomes[Outcome.RECORDED]
    lost = len(found.told_recorded_not_stored) + len(found.stored_twice) + len(unfinished)
    checks.append(
        Check(
            f"told recorded and stored, once; every deferred click finished ({kind})",
            "all",
            f"{recorded:,} told recorded, {stored:,} stored, {len(found.told_recorded_not_stored)} told recorded "
            f"not stored, {len(found.stored_twice)} stored twice, {len(unfinished)} deferred never finished",
            lost == 0,
        )
    )
    return rows, audit_rows, checks


async def main() -> None:
    """Run and record."""
    parser = argparse.ArgumentParser()
    quick_or_full(parser)
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"])
    parser.add_argument("--clicks", type=int)
    parser.add_argument("--concurrency", type=int, default=200)
    parser.add_argument("--serve-bare", nargs=2, metavar=("API_BASE", "GATEWAY_URL"), help=argparse.SUPPRESS)
    parser.add_argument("--serve-same", nargs=3, metavar=("API_BASE", "GATEWAY_URL", "DB_URL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_bare:
        await serve_bare(*args.serve_bare)
        return
    if args.serve_same:
        await serve_same_job(*args.serve_same)
        return
    db = args.db or "both"
    clicks = args.clicks or (1000 if args.quick else 4000)
    rows = [
        "| server | clicks/s | event to callback | answered | answers stored | the process's CPU a click |",
        "|---|---|---|---|---|---|",
    ]
    audit_rows = [
        "| database | clicks | interaction responses | answered directly: final words | deferred: final words | "
        "deferred, not yet edited at the last response | following the deferred took | stored | "
        "told recorded, not stored | stored twice | acknowledged, not stored, not told to retry | "
        "stored, never told | stored wrongly |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    checks: list[Check] = []
    for kind in ["sqlite", "postgresql"] if db == "both" else [db]:
        kind_rows, kind_audit, kind_checks = await bench(kind, clicks, args.concurrency)
        rows += kind_rows
        audit_rows += kind_audit
        checks += kind_checks
        print("\n".join([*rows, "", *audit_rows]), flush=True)
    body = (
        f"{clicks:,} clicks on {CARDS} cards, {args.concurrency} waiting for their interaction response at a time, "
        "first into the bot (a child process), then the same clicks into two bare discord.py clients with the "
        "same intents, through the same fake, each a child process (each after 10 warm-up clicks): the same-job "
        "client (bench/same_job.py: one plain INSERT of the answer through the bot's driver and pool, then the "
        "interaction response with the verdict), run on the bot's database with its answers deleted; and a client "
        "that only answers each interaction (the ceiling). The targets are against the same-job client. "
        '"Answered" counts interaction responses: the verdict itself (type 4) or a defer (type 5, past '
        'QUIZBOT_DISCORD_ACK_DEADLINE), which frees its sender for the next click. "The process\'s CPU a click" is '
        "its user + system CPU over the measured clicks (from /proc; on PostgreSQL the server's backends are not "
        "counted, on SQLite the database work is in the process): on a shared machine, where every process waits "
        "for a core, it is the figure a rate follows.\n\n"
        + "\n".join(rows)
        + "\n\nEach click's fate: after the last interaction response the bench waits (up to "
        f"{FOLLOW_TIMEOUT:.0f} s) for every deferred click's edit of its deferred response (`PATCH "
        "/webhooks/{app}/{token}/messages/@original`) before it stops the bot, reads the final words each person "
        "saw, and compares them with the database (tests/discord_storm.py).\n\n" + "\n".join(audit_rows)
    )
    write_section(
        "3. Discord path end to end",
        f"python -m bench.discord_path --db {db} --clicks {clicks} --concurrency {args.concurrency}"
        + (" --quick" if args.quick else ""),
        body,
        checks,
    )


if __name__ == "__main__":
    run(main)
