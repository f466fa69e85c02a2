"""`quizbot doctor --online` for Slack: what Slack makes of the configured tokens.

- auth.test with the bot token: is it a bot's token, of which bot user, in which workspace;
- the scopes the installed app was granted (Slack's `x-oauth-scopes` response header) against the manifest's;
- in Socket Mode, apps.connections.open with the app-level token (it hands out a connection URL; nothing connects).

Loaded (with slack_sdk) only when the doctor goes online.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.settings import SlackSettings
from bot.plugins import Finding, failed_finding
from bot.wording import operator as words
from bot.wording import slack as slack_words

MANIFEST = Path(__file__).with_name("manifest.yaml")
SLACK_API = "https://slack.com/api/"
TIMEOUT = 10
"""Seconds one Web API call may take."""


def manifest_scopes(path: Path = MANIFEST) -> list[str]:
    """The bot scopes the shipped app manifest asks for, in its order (each once)."""
    manifest: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    return list(dict.fromkeys(manifest["oauth_config"]["scopes"]["bot"]))


def granted_scopes(headers: Any) -> set[str] | None:
    """The scopes in Slack's `x-oauth-scopes` header (None: the header is missing)."""
    value = next((v for k, v in dict(headers or {}).items() if k.lower() == "x-oauth-scopes"), None)
    if isinstance(value, list):  # slack_sdk keeps each header as a list of its values
        value = ",".join(value)
    if value is None:
        return None
    return {scope.strip() for scope in str(value).split(",") if scope.strip()}


def scope_findings(granted: set[str] | None, wanted: list[str]) -> list[Finding]:
    """One finding per scope of the manifest the app lacks, or one that says all were granted."""
    if granted is None:
        return [Finding("warn", "Slack scopes", words.slack_scopes_unknown())]
    missing = [scope for scope in wanted if scope not in granted]
    if not missing:
        return [Finding("ok", "Slack scopes", words.slack_scopes_granted(len(wanted)))]
    return [Finding("fail", "Slack scopes", *words.slack_scope_missing(scope)) for scope in missing]


async def online_findings(settings: SlackSettings) -> list[Finding]:
    """auth.test, the granted scopes, and (Socket Mode) the app-level token, each a finding with its fix."""
    assert settings.slack_bot_token is not None  # asked only when the adapter is configured
    base_url = settings.slack_api_url or SLACK_API
    bot = AsyncWebClient(token=settings.slack_bot_token.get_secret_value(), base_url=base_url, timeout=TIMEOUT)
    findings: list[Finding] = []
    try:
        identity = await bot.auth_test()
    except Exception as exc:
        return [failed_finding("slack", slack_words.check_bot_token(), exc)]
    if identity.get("bot_id"):
        detail = words.slack_identity(
            str(identity.get("user")), str(identity.get("user_id")), str(identity.get("team")), str(identity["team_id"])
        )
        findings.append(Finding("ok", slack_words.check_bot_token(), detail))
    else:
        findings.append(
            Finding("fail", slack_words.check_bot_token(), *words.slack_not_a_bot_token(str(identity.get("user_id"))))
        )
    findings.extend(scope_findings(granted_scopes(identity.headers), manifest_scopes()))
    if settings.slack_app_token is not None:
        app = AsyncWebClient(token=settings.slack_app_token.get_secret_value(), base_url=base_url, timeout=TIMEOUT)
        try:
            await app.apps_connections_open(app_token=settings.slack_app_token.get_secret_value())
        except Exception as exc:
            found = failed_finding("slack", slack_words.check_app_token(), exc)
            findings.append(Finding(found.level, found.subject, found.detail, words.slack_app_token_fix()))
        else:
            findings.append(Finding("ok", slack_words.check_app_token(), words.slack_socket_mode_ok()))
    return findings
