"""The composition root: builds the engine, the services and the adapters from settings, and runs them.

Adapters are found through the `quizbot.adapters` entry-point group, so the core never imports them.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import signal
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import timedelta

from aiohttp import web

from bot.clock import Clock, SystemClock
from bot.clock_skew import ClockSkew
from bot.config import Settings
from bot.content import Catalog, load_catalog
from bot.content.upload_limits import UploadLimits
from bot.db import Database, DatabaseTimeouts
from bot.db.migrate import upgrade
from bot.domain.attention import AttentionRules
from bot.errors import ConfigError
from bot.ops.http import OpsServer, ops_routes
from bot.ops.metrics import Metrics
from bot.plugins import Adapter, installed_plugins
from bot.ports import PlatformRegistry
from bot.scheduling.fanout import FanOut
from bot.scheduling.ticker import Ticker
from bot.service.answers import AnswerRecorder
from bot.service.app import QuizApp, sync_content
from bot.service.cards import CardRefresher
from bot.service.cohorts import CohortService
from bot.service.confirmations import Confirmations
from bot.service.facade import AdapterHost
from bot.service.flags import FlagService
from bot.service.handlers.questions import NowLimits
from bot.service.quiz import QuizService
from bot.service.report import ReportService
from bot.service.repositories.directory import Directory
from bot.service.review import ReviewService
from bot.service.schedules import ScheduleService
from bot.service.seasons import SeasonService
from bot.service.stats import Stats
from bot.service.uow import UnitOfWorkFactory, unit_of_work_factory
from bot.supervision import AdapterFailed, AdapterStatus, supervise
from bot.wording import operator as operator_words

log = logging.getLogger(__name__)


@dataclass
class Runtime:
    """Everything the bot is made of, built once by `build_runtime`."""

    settings: Settings
    db: Database
    catalog: Catalog
    clock: Clock
    platforms: PlatformRegistry
    quiz: QuizService
    stats: Stats
    cards: CardRefresher
    app: QuizApp
    metrics: Metrics
    schedules: ScheduleService
    ticker: Ticker
    directory: Directory
    uow: UnitOfWorkFactory
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    adapter_status: dict[str, AdapterStatus] = field(default_factory=dict)
    """Each running adapter's supervision state (bot/supervision.py), shown in /healthz."""
    clock_skew: ClockSkew = field(default_factory=ClockSkew)
    """How far this host's clock is from the platforms' (from their responses' Date headers), shown in /healthz."""

    def ops_routes(self) -> list[web.RouteDef]:
        """/healthz and /metrics of this bot, to serve beside an adapter's own routes."""
        return ops_routes(self)

    async def warm_up(self) -> None:
        """Before serving: the click path's statements compiled and prepared, so the first clicks do not wait for
        that (`AnswerRecorder.warm_up`); and prepared again on each connection the pool opens later
        (`Database.kept_warm`), so no batch of clicks on a new connection does."""
        with self.db.kept_warm():
            await self.app.answers.warm_up()

    async def aclose(self) -> None:
        """Stop the scheduler, finish pending card edits and close the database."""
        try:
            await self.ticker.stop()
            await self.app.aclose()
        finally:
            await self.db.dispose()


AdapterFactory = Callable[[AdapterHost], Adapter]


async def migrate_database(url: str, timeouts: DatabaseTimeouts) -> None:
    """Upgrade the schema through an engine of its own, whose statements have no time limit (a migration may
    rewrite a big table; the bot's short statement timeout is for clicks)."""
    maintenance = Database.from_url(url, timeouts=timeouts.unbounded_statements())
    try:
        await upgrade(maintenance)
    finally:
        await maintenance.dispose()


async def build_runtime(
    settings: Settings,
    *,
    clock: Clock | None = None,
    rng: random.Random | None = None,
    migrate: bool = True,
) -> Runtime:
    """Load content, migrate and connect the database, sync packs, and wire the services."""
    catalog = load_catalog(settings.content_dir)
    timeouts = settings.database_timeouts()
    db = Database.from_url(settings.database_url, timeouts=timeouts)
    try:
        if migrate:
            await migrate_database(settings.database_url, timeouts)
        clock = clock or SystemClock()
        metrics = Metrics()
        platforms = PlatformRegistry()
        directory = Directory(default_timezone=settings.timezone)
        uow = unit_of_work_factory(db, directory)
        quiz = QuizService(
            uow=uow,
            catalog=catalog,
            platforms=platforms,
            clock=clock,
            rng=rng,
            metrics=metrics,
            pause_threshold=settings.flag_pause_threshold,
        )
        await sync_content(uow, quiz)
    except BaseException:
        await db.dispose()
        raise
    stats = Stats(uow)
    cohort_rules = AttentionRules(
        behind_after=settings.cohort_behind_after, inactive_days=settings.cohort_inactive_days
    )
    cards = CardRefresher(platforms=platforms, interval=settings.card_update_interval)
    schedules = ScheduleService(catalog=catalog, clock=clock)
    cohorts = CohortService(catalog=catalog, clock=clock, quiz=quiz, rules=cohort_rules)
    answers = AnswerRecorder(uow=uow, directory=directory, clock=clock)
    fanout = FanOut()  # one limiter for scheduled posts, reveals and season boards alike
    seasons = SeasonService(clock=clock, stats=stats, platforms=platforms, fanout=fanout)
    app = QuizApp(
        uow=uow,
        quiz=quiz,
        answers=answers,
        stats=stats,
        cards=cards,
        clock=clock,
        metrics=metrics,
        cohorts=cohorts,
        review=ReviewService(clock=clock, rng=rng),
        reports=ReportService(
            uow=uow,
            stats=stats,
            clock=clock,
            flag_threshold=settings.flag_pause_threshold,
            cohort_rules=cohort_rules,
        ),
        schedules=schedules,
        flags=FlagService(clock=clock, threshold=settings.flag_pause_threshold),
        max_pending_clicks=settings.max_pending_clicks,
        seasons=seasons,
        confirmations=Confirmations(clock=clock, ttl=timedelta(seconds=settings.confirm_seconds)),
        now_limits=NowLimits(timedelta(seconds=settings.now_cooldown_seconds), settings.now_open_limit),
        setting_defaults=settings.setting_defaults(),
        upload_limits=UploadLimits(max_bytes=settings.upload_max_bytes),
    )
    ticker = Ticker(
        uow=uow,
        post_question=quiz.post_question,
        post_cohort=cohorts.post_next_question,
        send_privately=cohorts.send_next_privately,
        reveal_post=app.reveal,
        platforms=platforms,
        clock=clock,
        fanout=fanout,
        announce_season=app.announce_season,
        grace=settings.schedule_grace,
        lease=timedelta(seconds=settings.schedule_lease_seconds),
        interval=settings.schedule_tick_seconds,
        observe_lag=metrics.scheduler_lag.set,
        settle_checkpoints=stats.settle_checkpoints,
    )
    return Runtime(
        settings=settings,
        db=db,
        catalog=catalog,
        clock=clock,
        platforms=platforms,
        quiz=quiz,
        stats=stats,
        cards=cards,
        app=app,
        metrics=metrics,
        schedules=schedules,
        ticker=ticker,
        directory=directory,
        uow=uow,
    )


def adapter_factories() -> dict[str, AdapterFactory]:
    """The installed adapters, by name (each an AdapterPlugin: callable with the host)."""
    return dict(installed_plugins())


def build_adapters(runtime: Runtime) -> list[Adapter]:
    """Build the adapters the settings ask for."""
    factories = adapter_factories()
    adapters = []
    for name in runtime.settings.enabled_adapters():
        if name not in factories:
            raise ConfigError(operator_words.adapter_not_installed(name, sorted(factories)))
        adapters.append(factories[name](runtime))
    return adapters


async def serve(runtime: Runtime, adapters: list[Adapter]) -> None:
    """Run adapters until one ends on its own or SIGINT/SIGTERM arrives, then shut down gracefully.

    Each adapter runs supervised (bot/supervision.py): one that fails while serving is restarted with backoff and
    the others go on; one that cannot start at all, or whose credentials are refused, ends the process: serve
    raises AdapterFailed once everything has stopped.

    Shutdown order: stop taking clicks and let those in flight commit (adapters are still connected, so
    their replies go out), then stop the adapters, flush pending card edits and close the database.
    A second signal exits at once.
    """
    loop = asyncio.get_running_loop()
    stop_requested = asyncio.Event()

    def on_signal() -> None:
        if stop_requested.is_set():
            log.warning("second stop signal: exiting now")
            os._exit(1)
        log.info("stop signal received: finishing in-flight work")
        stop_requested.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        with suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, on_signal)
    ops = None
    if runtime.settings.http_port is not None:
        ops = OpsServer(runtime, host=runtime.settings.http_host, port=runtime.settings.http_port)
        await ops.start()
    tasks = [
        asyncio.create_task(
            supervise(
                adapter,
                runtime.adapter_status.setdefault(adapter.name, AdapterStatus()),
                stopping=runtime.stopping,
                metrics=runtime.metrics,
                first_delay=runtime.settings.adapter_restart_seconds,
            ),
            name=f"adapter-{adapter.name}",
        )
        for adapter in adapters
    ]
    # Scheduled questions run with any adapter; a tick skips platforms whose adapter has not registered yet.
    runtime.ticker.start()
    stop_wait = asyncio.create_task(stop_requested.wait(), name="stop-signal")
    try:
        done, _ = await asyncio.wait([*tasks, stop_wait], return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            if task is not stop_wait and not task.cancelled() and (exc := task.exception()) is not None:
                log.debug("%s failed", task.get_name(), exc_info=exc)  # raised below as AdapterFailed
        await runtime.ticker.stop()  # no new scheduled posts; claims cut short are recovered by any replica
        await runtime.app.drain()
        runtime.stopping.set()
        # Adapters watch `stopping` and return; give them a moment, then cancel what is left.
        _, pending = await asyncio.wait(tasks, timeout=10)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
    finally:
        runtime.stopping.set()
        stop_wait.cancel()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(sig)
        if ops is not None:
            await ops.stop()
        await runtime.aclose()
    for adapter, task in zip(adapters, tasks, strict=True):
        if task.done() and not task.cancelled() and isinstance(error := task.exception(), Exception):
            raise AdapterFailed(adapter.name, error) from error


async def run(settings: Settings) -> None:
    """`quizbot run`: build everything and serve."""
    runtime = await build_runtime(settings)
    try:
        adapters = build_adapters(runtime)
    except BaseException:
        await runtime.aclose()
        raise
    log.info("quizbot running with %s", ", ".join(a.name for a in adapters))
    await serve(runtime, adapters)
