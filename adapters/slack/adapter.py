"""The Slack adapter: a slack-bolt AsyncApp served over HTTP (signing secret) or Socket Mode (app token).

HTTP mode is stateless, so several replicas can sit behind any load balancer; Socket Mode needs no public URL.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import aiohttp
from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_bolt.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.errors import SlackApiError

from adapters.slack.admins import AdminDirectory
from adapters.slack.home import HomePublisher
from adapters.slack.intake import SlackIntake
from adapters.slack.listeners import ACKED_AS, ANSWER_HEADER, RECEIVED, QuizListeners
from adapters.slack.platform import PLATFORM, SlackPlatform, make_client
from adapters.slack.settings import SlackSettings
from bot.errors import AdapterStartError, ConfigError
from bot.service.facade import AdapterHost
from bot.wording import slack as slack_words

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
DRAIN_TIMEOUT = 5.0
"""Seconds a stop waits for commands and clicks that were acked but are still being worked on."""


class SlackAdapter:
    """Registers the Slack platform and serves Slack's requests until `runtime.stopping` is set."""

    name = PLATFORM

    def __init__(self, runtime: AdapterHost) -> None:
        settings = self.settings = SlackSettings.of(runtime.settings)
        if settings.slack_bot_token is None:
            raise ConfigError(slack_words.adapter_needs_bot_token())
        if settings.slack_app_token is None and settings.slack_signing_secret is None:
            raise ConfigError(slack_words.adapter_needs_mode())
        self.runtime = runtime
        self.mode = "socket" if settings.slack_app_token is not None else "http"
        self.client = make_client(token=settings.slack_bot_token.get_secret_value(), base_url=settings.slack_api_url)
        self.platform = SlackPlatform(self.client, runtime.settings.content_dir)
        admins = AdminDirectory(self.client, admin_user_ids=settings.slack_admin_user_ids or ())
        self.home = HomePublisher(self.client, runtime.app)
        self.listeners = QuizListeners(
            runtime, self.platform, admins, self.home, ack_deadline=settings.slack_ack_deadline
        )
        signing_secret = settings.slack_signing_secret.get_secret_value() if settings.slack_signing_secret else ""
        # HTTP mode: the intake verifies each request on its raw bytes before anything parses it, so Bolt's own
        # check (which parses first, and logs bad requests' bodies) is replaced by the intake's cheap one, in the
        # same place of Bolt's middleware chain (adapters/slack/intake.py).
        self.intake = SlackIntake(signing_secret) if signing_secret else None
        self.app = AsyncApp(
            name="quizbot",
            client=self.client,
            signing_secret=signing_secret,
            request_verification_enabled=self.intake is None,
            before_authorize=self.intake.bolt_guard if self.intake else None,
            # The response goes out when the listener returns: a click is acked once its answer is committed
            # (listeners.py); what follows an ack runs in a task of its own.
            process_before_response=True,
        )
        self.listeners.install(self.app)
        self.ready = asyncio.Event()
        self.http_port: int | None = None

    async def run(self) -> None:
        """Check the bot token, register the platform, then serve in Socket Mode or HTTP mode until stopped."""
        # One connection pool for every Web API call while serving: a click's chat.postEphemeral then reuses a
        # kept-alive TLS connection instead of opening its own.
        # Every response's Date tells how far this host's clock is from Slack's (bot/clock_skew.py).
        trace = self.runtime.clock_skew.trace_config(PLATFORM)
        async with aiohttp.ClientSession(trace_configs=[trace]) as session:
            self.client.session = session
            try:
                await self._check_token()
                self.runtime.platforms.register(self.platform)
                try:
                    if self.mode == "socket":
                        await self._serve_socket_mode()
                    else:
                        await self._serve_http()
                finally:
                    await self.listeners.drain(DRAIN_TIMEOUT)
                    await self.home.close()
            finally:
                # Card edits flushed at shutdown (after this returns) open their own connections again.
                self.client.session = None

    async def _check_token(self) -> None:
        try:
            auth = await self.client.auth_test()
        except SlackApiError as exc:
            error = str(exc.response.get("error"))
            raise ConfigError(slack_words.token_refused("QUIZBOT_SLACK_BOT_TOKEN", error)) from exc
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise ConfigError(slack_words.slack_unreachable(self.client.base_url, str(exc))) from exc
        log.info(
            "Slack bot %s connected to workspace %s (%s)",
            auth.get("user"),
            auth.get("team"),
            auth.get("team_id"),
            extra={"platform": PLATFORM, "workspace": auth.get("team_id")},
        )

    # --- Socket Mode -------------------------------------------------------------------------------

    async def _serve_socket_mode(self) -> None:
        settings = self.settings
        assert settings.slack_app_token is not None
        from adapters.slack.socket_mode import GuardedSocketModeHandler  # noqa: PLC0415 - Socket Mode's only

        handler = GuardedSocketModeHandler(self.app, app_token=settings.slack_app_token.get_secret_value())
        try:
            await handler.connect_async()  # type: ignore[no-untyped-call]
            if handler.refused is None:
                self.ready.set()
                log.info("Slack Socket Mode connected", extra={"platform": PLATFORM})
                stop = asyncio.ensure_future(self.runtime.stopping.wait())
                refused = asyncio.ensure_future(handler.refusal.wait())
                await asyncio.wait({stop, refused}, return_when=asyncio.FIRST_COMPLETED)
                stop.cancel()
                refused.cancel()
            if handler.refused is not None:
                error = handler.refused.response.get("error")
                raise AdapterStartError(
                    slack_words.token_refused("QUIZBOT_SLACK_APP_TOKEN", str(error)),
                    setting="QUIZBOT_SLACK_APP_TOKEN",
                    fix=slack_words.app_token_fix(),
                ) from handler.refused
        finally:
            await handler.close_async()  # type: ignore[no-untyped-call]
            log.info("Slack Socket Mode closed", extra={"platform": PLATFORM})

    # --- HTTP mode ---------------------------------------------------------------------------------

    def web_app(self) -> web.Application:
        """The aiohttp application: Slack's commands and interactivity on /slack/events, with the operator's
        /healthz (database and migrations) and /metrics beside them for the load balancer and Prometheus."""
        app = web.Application()
        assert self.intake is not None  # HTTP mode has a signing secret
        app.router.add_post(EVENTS_PATH, self.intake.guard(self.handle_http), expect_handler=self.intake.expect)
        app.add_routes(self.runtime.ops_routes())
        return app

    async def _serve_http(self) -> None:
        settings = self.settings
        runner = web.AppRunner(self.web_app(), access_log=None, shutdown_timeout=DRAIN_TIMEOUT)
        await runner.setup()
        try:
            site = web.TCPSite(runner, settings.slack_host, settings.slack_port)
            await site.start()
            server: Any = site._server  # aiohttp keeps the bound sockets there; needed when port 0 was asked for
            self.http_port = server.sockets[0].getsockname()[1] if server and server.sockets else settings.slack_port
            self.ready.set()
            log.info(
                "Slack HTTP mode listening on http://%s:%s%s",
                settings.slack_host,
                self.http_port,
                EVENTS_PATH,
                extra={"platform": PLATFORM},
            )
            await self.runtime.stopping.wait()
        finally:
            await runner.cleanup()

    async def handle_http(self, request: web.Request, raw: bytes) -> web.Response:
        """One request from Slack, its signature already checked on `raw` by the intake: Bolt dispatches it; a
        body Bolt cannot parse gets 400."""
        assert self.intake is not None
        received = asyncio.get_running_loop().time()
        try:
            body = raw.decode("utf-8")
            context = self.intake.verified_context()
            context[RECEIVED] = received  # a click's ack deadline counts from here
            bolt_request = AsyncBoltRequest(
                body=body,
                query=request.query_string,
                headers=dict(request.headers),
                context=context,
            )
        except Exception as exc:
            log.warning("malformed signed request from Slack: %s", exc, extra={"platform": PLATFORM})
            return web.Response(status=400, text="malformed request")
        response = await self.app.async_dispatch(bolt_request)
        reply = await to_aiohttp_response(response)
        acked_as = bolt_request.context.get(ACKED_AS)
        if isinstance(acked_as, str):
            reply.headers[ANSWER_HEADER] = acked_as
        return reply
