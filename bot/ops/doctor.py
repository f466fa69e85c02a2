"""`quizbot doctor`: check settings, database, migrations, content and tokens, and say what to fix.

`--online` also asks each enabled platform what it makes of the credentials (the adapter's `online_findings`):
Slack's auth.test and granted scopes, Discord's application and guild permissions.
"""

from __future__ import annotations

import asyncio

from bot.clock import Clock
from bot.clock_skew import SKEW_LIMIT, probe
from bot.config import Settings, unknown_variables
from bot.content.curricula import load_curricula
from bot.content.loader import holds_packs, validate_paths
from bot.db import Database
from bot.db.migrate import current_revision, head_revision, is_known_revision
from bot.db.problems import explain, masked_url, require_existing
from bot.domain.settings import FROM_ENVIRONMENT, KEYS
from bot.errors import DatabaseNotReady
from bot.plugins import Finding, failed_finding, installed_plugins
from bot.service.repositories.settings import settings_census
from bot.wording import chat_settings as chat_words
from bot.wording import clock as clock_words
from bot.wording import database as database_words
from bot.wording import operator as operator_words


def _adapter_findings(settings: Settings) -> list[Finding]:
    """Each installed adapter checks its own settings (tokens, mode)."""
    return [finding for adapter in settings.adapter_settings().values() for finding in adapter.findings()]


ONLINE_TIMEOUT = 20.0
"""Seconds one platform's online checks may take before the doctor says it had no answer."""


async def _online_findings(settings: Settings, seconds: float = ONLINE_TIMEOUT) -> list[Finding]:
    """Each enabled platform whose settings are sound, asked about its credentials (in turn, each bounded)."""
    findings: list[Finding] = []
    enabled = settings.enabled_adapters()
    for name, adapter in settings.adapter_settings().items():
        if name not in enabled or any(f.level == "fail" for f in adapter.findings()):
            continue
        try:
            async with asyncio.timeout(seconds):
                findings.extend(await adapter.online_findings())
        except TimeoutError:
            plugin = installed_plugins().get(name)
            platform = plugin.words.platform if plugin is not None and plugin.words is not None else name
            findings.append(Finding("fail", platform, *operator_words.online_no_answer(platform, seconds)))
        except Exception as exc:  # the platform's refusal, the network: one finding with its fix
            findings.append(failed_finding(name, name, exc))
    return findings


async def _clock_findings(settings: Settings, clock: Clock | None = None) -> list[Finding]:
    """This host's clock against each enabled platform's whose settings are sound (the `Date` of one answer):
    Slack refuses every request more than five minutes off."""
    findings = []
    enabled = settings.enabled_adapters()
    for name, adapter in settings.adapter_settings().items():
        url = adapter.clock_url()
        if name not in enabled or url is None or any(f.level == "fail" for f in adapter.findings()):
            continue
        offset = await probe(name, url, clock=clock)
        if offset is None:
            findings.append(Finding("warn", "clock", clock_words.skew_unknown(name)))
        elif abs(offset) > SKEW_LIMIT:
            findings.append(Finding("fail", "clock", clock_words.skew_problem(name, offset), clock_words.SKEW_FIX))
        else:
            findings.append(Finding("ok", "clock", clock_words.skew_within(name, offset)))
    return findings


async def _database_findings(settings: Settings) -> list[Finding]:
    """Reachable, and at the newest schema; never creates a SQLite file (doctor changes nothing)."""
    url = settings.database_url
    try:
        require_existing(url)
    except DatabaseNotReady as exc:
        return [Finding("fail", "database", *database_words.explained(exc))]
    db = Database.from_url(url, timeouts=settings.database_timeouts())
    try:
        current = await current_revision(db)
    except Exception as exc:
        problem = explain(url, exc)
        if problem is None:
            return [
                Finding(
                    "fail",
                    "database",
                    *database_words.doctor_cannot_connect(" ".join(str(exc).split()), masked_url(url)),
                )
            ]
        return [Finding("fail", "database", *database_words.explained(problem))]
    finally:
        await db.dispose()
    findings = [Finding("ok", "database", database_words.doctor_reachable(db.dialect))]
    head = head_revision()
    if current == head:
        findings.append(Finding("ok", "migrations", database_words.doctor_at_newest(head)))
    elif current is not None and not is_known_revision(current):
        findings.append(Finding("fail", "migrations", *database_words.newer_schema(current=current, head=head)))
    else:
        findings.append(Finding("fail", "migrations", *database_words.doctor_behind(masked_url(url), current, head)))
    return findings


async def _chat_settings_findings(settings: Settings, workspace: tuple[str, str] | None) -> list[Finding]:
    """Each setting changed in chat (`/quiz settings`): its environment default and how many workspaces and channels
    set their own; with `workspace`, the value that workspace has and where it comes from, and what each of its
    channels sets. Only on a database at the newest schema (the migrations' finding says otherwise)."""
    defaults = settings.setting_defaults()
    try:
        require_existing(settings.database_url)  # doctor creates no SQLite file
    except DatabaseNotReady:
        return []
    db = Database.from_url(settings.database_url, timeouts=settings.database_timeouts())
    try:
        if await current_revision(db) != head_revision():
            return []
        census = await settings_census(db, workspace)
    except Exception:  # the database's findings already say what is wrong with it
        return []
    finally:
        await db.dispose()
    if workspace is not None and census.workspace is None:
        return [Finding("warn", "chat settings", chat_words.doctor_no_workspace(*workspace))]
    findings = []
    for key in KEYS:
        default = defaults.values[key]
        if census.workspace is None:
            detail = chat_words.doctor_setting(
                key, default, FROM_ENVIRONMENT.get(key), census.workspaces[key], census.channels[key]
            )
        else:
            own = census.workspace.workspace.get(key)
            channels = {channel: values[key] for channel, values in census.channel_values.items() if key in values}
            detail = chat_words.doctor_workspace_setting(key, default, FROM_ENVIRONMENT.get(key), own, channels)
        findings.append(Finding("ok", "chat settings", detail))
    return findings


async def diagnose(
    settings: Settings, *, online: bool = False, workspace: tuple[str, str] | None = None
) -> list[Finding]:
    """Run every check (with `online`, ask the platforms too; with `workspace` (platform, id), say where each of its
    settings comes from); nothing is changed."""
    findings = [Finding("ok", "settings", operator_words.doctor_adapters(settings.enabled_adapters()))]
    findings.extend(
        Finding("warn", "settings", warning, operator_words.doctor_unknown_variable_fix())
        for warning in unknown_variables()
    )
    packs, problems = validate_paths([settings.content_dir])
    problems += load_curricula(settings.content_dir, {pack.id for pack in packs})[1]
    if problems:
        fix = (
            operator_words.doctor_content_fix()
            if holds_packs(settings.content_dir)
            else operator_words.content_dir_fix()  # no pack to edit: the setting is what to fix
        )
        findings.extend(Finding("fail", "content", problem, fix) for problem in problems)
    else:
        total = sum(len(p.questions) for p in packs)
        findings.append(
            Finding("ok", "content", operator_words.doctor_content_ok(len(packs), total, settings.content_dir))
        )
    findings.extend(await _database_findings(settings))
    findings.extend(await _chat_settings_findings(settings, workspace))
    findings.extend(_adapter_findings(settings))
    findings.extend(await _clock_findings(settings))
    if online:
        findings.extend(await _online_findings(settings))
    return findings
