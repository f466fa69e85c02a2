"""Socket Mode's handler: Bolt's, guarded (adapters/slack/adapter.py serves with it when an app token is set).

Its own module so that an HTTP-mode start does not import Bolt's and slack_sdk's Socket Mode clients (bench section 9,
start-up); it logs as the adapter does.
"""

from __future__ import annotations

import asyncio
import logging

from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_sdk.errors import SlackApiError
from slack_sdk.socket_mode.aiohttp import SocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse

from adapters.slack.platform import PLATFORM
from adapters.slack.settings import AUTH_ERRORS

log = logging.getLogger("adapters.slack.adapter")


class GuardedSocketModeHandler(AsyncSocketModeHandler):
    """Bolt's Socket Mode handler, except that an envelope it cannot handle is logged and acked, never dropped,
    and a refused app token stops it instead of being retried for ever (slack_sdk logs the refusal and asks again
    every few seconds, so `quizbot run` would neither connect nor exit)."""

    def __init__(self, app: AsyncApp, *, app_token: str) -> None:
        super().__init__(app, app_token=app_token)
        self.refused: SlackApiError | None = None
        self.refusal = asyncio.Event()
        client = self.client

        async def issue_or_stop() -> str:
            # slack_sdk's own issue_new_wss_url, but a refusal is ours to report (once, in the words of `quizbot
            # run`), not a logged traceback followed by a retry.
            try:
                response = await client.web_client.apps_connections_open(app_token=client.app_token)
            except SlackApiError as exc:
                error = exc.response.get("error")
                if error == "ratelimited":
                    await asyncio.sleep(int(exc.response.headers.get("Retry-After", "30")))
                    return await issue_or_stop()
                if error in AUTH_ERRORS:
                    self.refused = exc
                    self.refusal.set()
                    client.closed = True  # the client's connect loop returns instead of retrying
                else:
                    log.warning("Slack refused a Socket Mode connection: %s", error, extra={"platform": PLATFORM})
                raise
            return str(response["url"])

        self.client.issue_new_wss_url = issue_or_stop  # type: ignore[method-assign]

    async def handle(self, client: SocketModeClient, req: SocketModeRequest) -> None:  # type: ignore[override]
        """Dispatch one envelope to the app; on an unexpected failure ack it so Slack does not resend it."""
        try:
            await super().handle(client, req)
        except Exception:
            log.exception("a Socket Mode %s envelope could not be handled; acked it anyway", req.type)
            await client.send_socket_mode_response(SocketModeResponse(envelope_id=req.envelope_id))
