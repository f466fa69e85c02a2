"""`quizbot doctor`: check settings, database, migrations, content and tokens, and say what to fix."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.config import Settings, unknown_variables
from bot.content.loader import validate_paths
from bot.db import Database
from bot.db.migrate import current_revision, head_revision
from bot.db.problems import explain, masked_url, require_existing
from bot.errors import DatabaseNotReady

_SLACK_SECRET = re.compile(r"^[0-9a-f]{32}$")
_DISCORD_TOKEN = re.compile(r"^[A-Za-z0-9_-]{18,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$")


@dataclass(frozen=True, slots=True)
class Finding:
    """One check's result: ok, warn or fail, what was seen, and what to do about it."""

    level: str
    subject: str
    detail: str
    fix: str = ""

    def line(self) -> str:
        """The finding as one printable line."""
        text = f"{self.level.upper():<4} {self.subject}: {self.detail}"
        return f"{text}\n     fix: {self.fix}" if self.fix else text


def _token_findings(settings: Settings) -> list[Finding]:
    findings = []
    if settings.slack_bot_token is not None:
        token = settings.slack_bot_token.get_secret_value()
        if token.startswith("xoxb-"):
            findings.append(Finding("ok", "Slack bot token", "looks like a bot token (xoxb-)"))
        else:
            findings.append(
                Finding(
                    "fail",
                    "Slack bot token",
                    "QUIZBOT_SLACK_BOT_TOKEN does not start with xoxb-",
                    "copy the Bot User OAuth Token from your Slack app's OAuth & Permissions page",
                )
            )
        if settings.slack_app_token is not None:
            findings.append(Finding("ok", "Slack mode", "Socket Mode (app-level token set)"))
        elif settings.slack_signing_secret is not None:
            secret = settings.slack_signing_secret.get_secret_value()
            if _SLACK_SECRET.match(secret):
                findings.append(Finding("ok", "Slack mode", f"HTTP mode on port {settings.slack_port}"))
            else:
                findings.append(
                    Finding(
                        "fail",
                        "Slack signing secret",
                        "QUIZBOT_SLACK_SIGNING_SECRET is not 32 hexadecimal characters",
                        "copy the Signing Secret from your Slack app's Basic Information page",
                    )
                )
        else:
            findings.append(
                Finding(
                    "fail",
                    "Slack mode",
                    "a bot token is set but neither an app token nor a signing secret",
                    "set QUIZBOT_SLACK_APP_TOKEN (xapp-..., Socket Mode) or QUIZBOT_SLACK_SIGNING_SECRET (HTTP mode)",
                )
            )
    if settings.discord_token is not None:
        if _DISCORD_TOKEN.match(settings.discord_token.get_secret_value()):
            findings.append(Finding("ok", "Discord token", "has the shape of a bot token"))
        else:
            findings.append(
                Finding(
                    "fail",
                    "Discord token",
                    "QUIZBOT_DISCORD_TOKEN does not look like a bot token (three dot-separated parts)",
                    "reset and copy the token on the Bot page of your application in the Discord Developer Portal",
                )
            )
    return findings


async def _database_findings(settings: Settings) -> list[Finding]:
    """Reachable, and at the newest schema; never creates a SQLite file (doctor changes nothing)."""
    url = settings.database_url
    try:
        require_existing(url)
    except DatabaseNotReady as exc:
        return [Finding("fail", "database", exc.problem, exc.fix)]
    db = Database.from_url(url)
    try:
        current = await current_revision(db)
    except Exception as exc:
        problem = explain(url, exc)
        if problem is None:
            return [
                Finding(
                    "fail",
                    "database",
                    f"cannot connect: {' '.join(str(exc).split())}",
                    f"check QUIZBOT_DATABASE_URL ({masked_url(url)}), that the server runs, and that the user may "
                    "connect",
                )
            ]
        return [Finding("fail", "database", problem.problem, problem.fix)]
    finally:
        await db.dispose()
    findings = [Finding("ok", "database", f"reachable ({db.dialect})")]
    head = head_revision()
    if current == head:
        findings.append(Finding("ok", "migrations", f"at the newest revision ({head})"))
    else:
        findings.append(
            Finding(
                "fail",
                "migrations",
                f"the database at {masked_url(url)} is at {current or 'an empty schema'}, newest is {head}",
                "run `quizbot db upgrade` (the bot also upgrades on start)",
            )
        )
    return findings


async def diagnose(settings: Settings) -> list[Finding]:
    """Run every check; nothing is changed."""
    findings = [Finding("ok", "settings", f"adapters: {', '.join(settings.enabled_adapters())}")]
    findings.extend(Finding("warn", "settings", warning, "rename or remove it") for warning in unknown_variables())
    packs, problems = validate_paths([settings.content_dir])
    if problems:
        findings.extend(
            Finding("fail", "content", problem, "edit the pack, then run `quizbot content check`")
            for problem in problems
        )
    else:
        total = sum(len(p.questions) for p in packs)
        findings.append(Finding("ok", "content", f"{len(packs)} packs, {total} questions in {settings.content_dir}"))
    findings.extend(await _database_findings(settings))
    findings.extend(_token_findings(settings))
    return findings
