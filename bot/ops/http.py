"""The operator's HTTP endpoints: /healthz (process, database, migrations) and /metrics (Prometheus)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any, NamedTuple, Protocol

from aiohttp import web

from bot.clock_skew import ClockSkew
from bot.db import Database
from bot.db.database import describe_failure, is_unavailable
from bot.db.migrate import current_revision, head_revision
from bot.errors import ConfigError, StorageUnavailable
from bot.ops.metrics import CONTENT_TYPE_LATEST, Metrics
from bot.ports import PlatformRegistry
from bot.supervision import AdapterStatus, overall_state
from bot.wording import operator as ops_words


class RunningBot(Protocol):
    """What the endpoints read of the running bot (bot.runtime.Runtime has it; this module never imports it)."""

    @property
    def db(self) -> Database: ...
    @property
    def platforms(self) -> PlatformRegistry: ...
    @property
    def metrics(self) -> Metrics: ...
    @property
    def stopping(self) -> asyncio.Event: ...
    @property
    def adapter_status(self) -> Mapping[str, AdapterStatus]: ...
    @property
    def clock_skew(self) -> ClockSkew: ...


log = logging.getLogger(__name__)


class Health(NamedTuple):
    """Whether the bot is healthy, and what /healthz reports."""

    healthy: bool
    report: dict[str, Any]


DATABASE_UNREACHABLE = "database unreachable"
DATABASE_ERROR = "database check failed"
SCHEMA_BEHIND = "the database schema is not at the newest revision"
SHUTTING_DOWN = "shutting down"


async def health(runtime: RunningBot) -> Health:
    """Whether the bot is healthy, and the details: database reachable, schema at the newest migration.

    The report says what is wrong in quizbot's words (`problems`); the driver's own text, which may name hosts,
    users or internals, goes to the log only (this endpoint may be on a public port, beside Slack's).
    """
    report: dict[str, Any] = {"status": "ok", "adapters": runtime.platforms.names()}
    if runtime.adapter_status:
        # An adapter restarting does not make the process unhealthy: the others serve, and restarting the process
        # would take them down too. It is shown, and counted in quizbot_adapter_restarts_total.
        report["supervision"] = {name: status.report() for name, status in runtime.adapter_status.items()}
        report["state"] = overall_state(runtime.adapter_status)  # `starting` until every adapter has been up
    problems: list[str] = []
    try:
        await runtime.db.ping()
        report["database"] = "ok"
        current, head = await current_revision(runtime.db), head_revision()
        report["migrations"] = {"current": current, "head": head}
        if current != head:
            report["migrations"]["problem"] = SCHEMA_BEHIND
            problems.append(SCHEMA_BEHIND)
    except StorageUnavailable as exc:
        log.warning("health check: database unreachable: %s", describe_failure(exc.__cause__ or exc))
        report["database"] = "unreachable"
        problems.append(DATABASE_UNREACHABLE)
    except Exception as exc:  # a health check must answer, whatever broke
        if is_unavailable(exc):  # a timeout or a lost connection outside a transaction (the schema check)
            log.warning("health check: database unreachable: %s", describe_failure(exc))
            report["database"] = "unreachable"
            problems.append(DATABASE_UNREACHABLE)
        else:
            log.error("health check: database check failed: %s", exc, exc_info=exc)
            report["database"] = "error"
            problems.append(DATABASE_ERROR)
    if runtime.stopping.is_set():
        report["shutting_down"] = True
        problems.append(SHUTTING_DOWN)
    healthy = not problems
    if problems:
        report["problems"] = problems
    report["status"] = "ok" if healthy else "unhealthy"
    _report_clock(runtime.clock_skew, report)
    return Health(healthy, report)


def _report_clock(skew: ClockSkew, report: dict[str, Any]) -> None:
    """A host clock far from the platforms' makes a healthy bot `degraded` (still 200: restarting the process
    would not fix the clock), with the offset in seconds and the fix."""
    clock = skew.report()
    if clock is not None:
        report["clock"] = clock
        if report["status"] == "ok":
            report["status"] = "degraded"


def ops_routes(runtime: RunningBot) -> list[web.RouteDef]:
    """The /healthz and /metrics routes, to serve on their own or beside another aiohttp app."""

    async def healthz(_request: web.Request) -> web.Response:
        healthy, report = await health(runtime)
        return web.json_response(report, status=200 if healthy else 503)

    async def metrics(_request: web.Request) -> web.Response:
        response = web.Response(body=runtime.metrics.render())
        response.headers["Content-Type"] = CONTENT_TYPE_LATEST
        return response

    return [web.get("/healthz", healthz), web.get("/metrics", metrics)]


class OpsServer:
    """Serves the ops routes on their own host and port."""

    def __init__(self, runtime: RunningBot, *, host: str, port: int) -> None:
        self.runtime = runtime
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        """Start listening; `port` is updated to the real port when 0 was asked for."""
        app = web.Application()
        app.add_routes(ops_routes(self.runtime))
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        try:
            await site.start()
        except OSError as exc:
            await self._runner.cleanup()
            self._runner = None
            raise ConfigError(ops_words.cannot_listen(self.host, self.port, exc.strerror or str(exc))) from exc
        server = getattr(site, "_server", None)
        sockets = getattr(server, "sockets", None) or []
        if sockets:
            self.port = sockets[0].getsockname()[1]
        log.info("health and metrics on http://%s:%s/healthz and /metrics", self.host, self.port)

    async def stop(self) -> None:
        """Stop listening."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
