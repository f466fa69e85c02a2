"""What the `quizbot` command line says to an operator when something is in the way: one line that names the
setting or the path, and the fix."""

from __future__ import annotations

from collections.abc import Sequence

from bot.wording.i18n import plural
from bot.wording.i18n import translate as _


def cannot_listen(host: str, port: int, reason: str) -> str:
    """The health and metrics port cannot be had (another process holds it, or it is privileged)."""
    return _(
        "cannot serve /healthz and /metrics on {host}:{port} ({reason}): another process may be using the port; "
        "set QUIZBOT_HTTP_PORT to a free one (or stop the other process)",
        host=host,
        port=port,
        reason=reason,
    )


def unknown_command(prog: str, word: str, suggestions: Sequence[str], commands: Sequence[str]) -> str:
    """`quizbot runn`: the nearest command, else the list (`prog` is `quizbot`, or `quizbot db` for its own)."""
    if suggestions:
        return _(
            "unknown command {word!r}; did you mean {names}? (`{prog} --help` lists them)",
            word=word,
            names=" or ".join(f"`{prog} {name}`" for name in suggestions),
            prog=prog,
        )
    return _("unknown command {word!r}; the commands are: {names}", word=word, names=", ".join(commands))


def unrecognized_arguments(prog: str, extras: Sequence[str]) -> str:
    """`quizbot run --bogus`: what the command does not take."""
    return _(
        "unrecognized arguments: {extras} (`{prog} --help` lists what it takes)", extras=" ".join(extras), prog=prog
    )


def missing_command(prog: str, commands: Sequence[str]) -> str:
    """`quizbot db` without its command: the commands (not argparse's `required: db_command`)."""
    return _("give a command: {names} (`{prog} --help` says what each does)", names=", ".join(commands), prog=prog)


def not_a_platform(platform: str, platforms: Sequence[str]) -> str:
    """`forget-user irc ...`."""
    return _(
        "{platform!r} is not a platform; give one of: {names}", platform=platform, names=", ".join(sorted(platforms))
    )


def json_needs_out() -> str:
    """`export --json` without --out: stdout is for the JSON summary, so the data needs a file."""
    return _("--json prints a summary of what was written on stdout: give the export a file or folder with --out")


def cannot_write(path: str, reason: str, option: str) -> str:
    """An output file or folder that cannot be written."""
    return _(
        "cannot write {path} ({reason}); choose a place you may write with {option}",
        path=path,
        reason=reason,
        option=option,
    )


def cannot_listen_for(what: str, reason: str) -> str:
    """An adapter's own listening port cannot be had (`what`: whose requests it would serve)."""
    return _("cannot listen for {what} ({reason})", what=what, reason=reason)


def free_port_fix(setting: str) -> str:
    """What to do about a port another process holds (or that needs privileges)."""
    return _(
        "another process may be using the port; set {setting} to a free one (or stop the other process)",
        setting=setting,
    )


# --- `quizbot doctor --online`: what the platforms make of the credentials --------------------------------------


def online_no_answer(platform: str, seconds: float) -> tuple[str, str]:
    """A platform that did not answer the doctor's online checks in time: (detail, fix)."""
    return (
        _("no answer from {platform} within {seconds:g} s", platform=platform, seconds=seconds),
        _("check the network and the proxy variables (HTTPS_PROXY), then run `quizbot doctor --online` again"),
    )


def slack_identity(user: str, user_id: str, team: str, team_id: str) -> str:
    """auth.test accepted the bot token."""
    return _(
        "a bot token of @{user} ({user_id}) in the workspace {team} ({team_id})",
        user=user,
        user_id=user_id,
        team=team,
        team_id=team_id,
    )


def slack_not_a_bot_token(user_id: str) -> tuple[str, str]:
    """auth.test names a person, not a bot: (detail, fix)."""
    return (
        _("QUIZBOT_SLACK_BOT_TOKEN is not a bot token: Slack says it acts as the person {user_id}", user_id=user_id),
        _("copy the Bot User OAuth Token (xoxb-...) from your Slack app's OAuth & Permissions page"),
    )


def slack_scopes_granted(count: int) -> str:
    """Every scope of the manifest was granted."""
    return _("the app was granted every scope the manifest asks for ({count})", count=count)


def slack_scope_missing(scope: str) -> tuple[str, str]:
    """One scope of the manifest that the installed app was not granted: (detail, fix)."""
    return (
        _("the app was not granted {scope}, which adapters/slack/manifest.yaml asks for", scope=scope),
        _(
            "add {scope} under OAuth & Permissions > Scopes (or update the app from the manifest), reinstall the app "
            "to the workspace, and copy the new Bot User OAuth Token into QUIZBOT_SLACK_BOT_TOKEN",
            scope=scope,
        ),
    )


def slack_scopes_unknown() -> str:
    """Slack's answer did not list the granted scopes (no x-oauth-scopes header)."""
    return _("Slack did not say which scopes the app was granted (no x-oauth-scopes header); not checked")


def slack_socket_mode_ok() -> str:
    """apps.connections.open accepted the app-level token."""
    return _("QUIZBOT_SLACK_APP_TOKEN opens Socket Mode connections (apps.connections.open)")


def slack_app_token_fix() -> str:
    """What to do about an app-level token Slack refused."""
    return _(
        "generate an app-level token with the connections:write scope on your Slack app's Basic Information page "
        "(App-Level Tokens) and copy it (xapp-...) into QUIZBOT_SLACK_APP_TOKEN; Socket Mode must be on"
    )


def slack_user_token(setting: str) -> str:
    """`quizbot run` refuses a user token where the bot token belongs."""
    return _(
        "{setting} is a user token (xoxp-...): the bot would post as that person; copy the Bot User OAuth Token "
        "(xoxb-...) from your Slack app's OAuth & Permissions page into {setting}",
        setting=setting,
    )


def discord_identity(name: str, user_id: str) -> str:
    """/users/@me accepted the token."""
    return _("logged in as the bot {name} ({user_id})", name=name, user_id=user_id)


def discord_not_a_bot(name: str) -> tuple[str, str]:
    """/users/@me names an account that is no bot: (detail, fix)."""
    return (
        _("QUIZBOT_DISCORD_TOKEN logs in as {name}, which is not a bot account", name=name),
        _("copy the token from the Bot page of your application in the Discord Developer Portal"),
    )


def discord_no_privileged_intents(intents: str) -> str:
    """The bot asks for no privileged intent, so the application's intent switches do not matter."""
    return _("the bot uses no privileged intent ({intents})", intents=intents)


def discord_intent_enabled(intent: str) -> str:
    """A privileged intent the bot uses is enabled for the application."""
    return _("the {intent} intent the bot uses is enabled", intent=intent)


def discord_intent_missing(intent: str, switch: str) -> tuple[str, str]:
    """A privileged intent the bot uses is not enabled for the application: (detail, fix)."""
    return (
        _("the bot uses the privileged {intent} intent, which the application does not have enabled", intent=intent),
        _(
            "turn on {switch} under Bot > Privileged Gateway Intents in the Discord Developer Portal",
            switch=switch,
        ),
    )


def discord_no_guilds() -> tuple[str, str]:
    """The bot is in no server: (detail, fix)."""
    return (
        _("the bot is in no server yet"),
        _("add it with the link `quizbot discord invite` prints"),
    )


def discord_guild_permissions_ok(guild: str, guild_id: str) -> str:
    """The bot has every permission it needs in one server."""
    return _("in {guild} ({guild_id}) the bot has every permission it needs", guild=guild, guild_id=guild_id)


def discord_guild_permissions_missing(guild: str, guild_id: str, missing: Sequence[str]) -> tuple[str, str]:
    """The bot lacks permissions in one server: (detail, fix)."""
    return (
        _(
            "in {guild} ({guild_id}) the bot lacks {missing}",
            guild=guild,
            guild_id=guild_id,
            missing=", ".join(missing),
        ),
        _(
            "give the bot's role {missing} in that server's Settings > Roles, or add the bot again with the link "
            "`quizbot discord invite` prints",
            missing=", ".join(missing),
        ),
    )


def discord_guild_not_joined(guild_id: int) -> tuple[str, str]:
    """QUIZBOT_DISCORD_GUILD_ID names a server the bot is not in: (detail, fix)."""
    return (
        _("QUIZBOT_DISCORD_GUILD_ID is {guild_id}, a server the bot is not in", guild_id=guild_id),
        _("add the bot to that server with the link `quizbot discord invite` prints, or correct the setting"),
    )


def doctor_adapters(names: Sequence[str]) -> str:
    """`quizbot doctor`: the adapters that would run."""
    return _("adapters: {names}", names=", ".join(names))


def doctor_unknown_variable_fix() -> str:
    """`quizbot doctor`: what to do about a QUIZBOT_ variable that is no setting."""
    return _("rename or remove it")


def doctor_content_fix() -> str:
    """`quizbot doctor`: what to do about a problem in a pack."""
    return _("edit the pack, then run `quizbot content check`")


def content_dir_fix() -> str:
    """What to do when QUIZBOT_CONTENT_DIR names no folder, or one without packs (`quizbot doctor`, `quizbot run`)."""
    return _("point QUIZBOT_CONTENT_DIR at a folder of pack files (*.yaml), or unset it to use the shipped packs")


def doctor_content_ok(packs: int, questions: int, folder: object) -> str:
    """`quizbot doctor`: the packs loaded, and from where."""
    return _(
        "{packs}, {questions} in {folder}",
        packs=plural(packs, "pack"),
        questions=plural(questions, "question"),
        folder=folder,
    )


def adapter_not_installed(name: str, installed: Sequence[str]) -> str:
    """QUIZBOT_ADAPTERS names an adapter whose package is not installed."""
    return _(
        "adapter {name!r} is not installed (have: {installed})",
        name=name,
        installed=", ".join(installed) or _("none"),
    )


def unknown_user(platform: str, user_id: str, workspace: str | None) -> str:
    """`quizbot forget-user` for a user the database does not know (in that workspace, when one is given)."""
    if workspace:
        return _(
            "No {platform} user {user_id} in workspace {workspace} is known; nothing was deleted.",
            platform=platform,
            user_id=user_id,
            workspace=workspace,
        )
    return _("No {platform} user {user_id} is known; nothing was deleted.", platform=platform, user_id=user_id)
