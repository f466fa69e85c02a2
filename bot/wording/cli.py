"""The `quizbot` command line's own words (bot/cli.py, cli_commands.py, cli_parser.py): the help of each command
and option, what `db`, `healthcheck` and `run` report, and the refusals of an output that cannot be written.

`quizbot content ...` words its own (bot/wording/content_cli.py), and each adapter its commands'
(bot/wording/discord.py); what is in the way of a command in general (a port, a platform) is in operator.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.wording.i18n import plural
from bot.wording.i18n import translate as _

DESCRIPTION = "A quiz bot for team chat."
"""What `quizbot --help` says the program is."""

HELP: Mapping[str, str] = {
    "--json": "print the result as one JSON object on stdout (schema: docs/json.md)",
    "run": "run the bot (the terminal adapter unless a platform is configured)",
    "db": "database schema",
    "db upgrade": "migrate the database to the newest schema",
    "db current": "show the schema revision of the database",
    "content flags": "questions people reported as wrong, with pack and question ids to edit",
    "content flags --platform": "the platform (an adapter's name; default: every platform)",
    "content flags --workspace": "the platform's workspace id (default: every one)",
    "doctor": "check settings, database, migrations, content and tokens",
    "doctor --online": "also ask each platform about the tokens: scopes, intents, permissions",
    "doctor --workspace": "say where each chat setting of this workspace comes from (e.g. slack:T0123, console:local)",
    "healthcheck": "exit 0 if the running bot's /healthz says healthy",
    "healthcheck --url": "default: http://127.0.0.1:$QUIZBOT_HTTP_PORT/healthz",
    "export": "export answers, posts and leaderboards",
    "export --since": "only answers and posts from this date (YYYY-MM-DD, UTC) on",
    "export --out": "file (json) or folder (csv; required); json defaults to stdout",
    "export --force": "overwrite existing files",
    "export --json": "print the result as one JSON object on stdout (schema: docs/json.md); needs --out",
    "forget-user": "delete one person's answers and identity",
    "forget-user platform": "the platform: an installed adapter's name (slack, discord, console)",
    "forget-user user_id": "the platform's user id (Slack U..., Discord snowflake, console name)",
    "forget-user --workspace": "only in this workspace (Slack team id, Discord guild id)",
    "forget-user --yes": "do not ask first (needed without a terminal)",
    "report": "write an HTML report with charts: participation, accuracy, most-missed, leaderboard",
    "report --cohort": "report on this cohort (default: the whole workspace)",
    "report --workspace": "workspace id: Slack team, Discord guild, `local` for the terminal",
    "report --platform": "the platform, when a workspace id is ambiguous (an adapter's name)",
    "report --out": "default: report.html",
    "report --force": "overwrite the -o file if it exists",
    "completion": "print a shell completion script (bash, zsh or fish)",
    "completion shell": "the shell to complete in",
}
"""The help of each command (`db upgrade`) and of its options (`export --since`), by the words that name them."""


def description() -> str:
    """What `quizbot --help` says the program is."""
    return _(DESCRIPTION)


def help_for(command: str, option: str = "") -> str:
    """The help text of a command (`export`, `db upgrade`) or of one of its options or arguments (`export`,
    `--since`)."""
    return _(HELP[f"{command} {option}" if option else command])


def not_a_workspace(text: str) -> str:
    """`doctor --workspace` that is not PLATFORM:ID."""
    return _("{text!r} is not a workspace: write PLATFORM:ID, e.g. slack:T0123 or console:local", text=text)


def not_a_date(text: str) -> str:
    """`--since` that is not a date."""
    return _("{text!r} is not a date like 2026-01-31", text=text)


def plugin_commands_unavailable(name: str, error: object) -> str:
    """An adapter's commands could not be loaded (the rest of the command line still works)."""
    return _("quizbot: the {name} commands are unavailable: {error}", name=name, error=error)


# --- output files --------------------------------------------------------------------------------------------------


def no_such_folder(path: object, folder: object, flag: str) -> str:
    """An output file in a folder that does not exist."""
    return _(
        "cannot write {path}: the folder {folder} does not exist; create it or give another {flag}",
        path=path,
        folder=folder,
        flag=flag,
    )


def is_a_folder(path: object, flag: str) -> str:
    """An output file that is a folder."""
    return _("cannot write {path}: it is a folder; give a file name with {flag}", path=path, flag=flag)


def exists(path: object, flag: str, *, can_force: bool) -> str:
    """An output file that exists (and `--force` was not given, or the command has none)."""
    remedy = _("pass --force to overwrite it") if can_force else _("remove it first")
    return _("{path} exists; {remedy}, or give another {flag}", path=path, remedy=remedy, flag=flag)


def csv_no_such_folder(folder: object, parent: object) -> str:
    """A CSV export's folder whose parent does not exist."""
    return _(
        "cannot write into {folder}: the folder {parent} does not exist; create it or give another --out",
        folder=folder,
        parent=parent,
    )


def csv_is_a_file(folder: object) -> str:
    """A CSV export's folder that is a file."""
    return _("cannot write into {folder}: it is a file; --format csv needs a folder with --out", folder=folder)


def csv_files_exist(folder: object, existing: Sequence[str]) -> str:
    """A CSV export's folder that already has some of its files (and `--force` was not given)."""
    return _(
        "{folder} already has {files}; pass --force to overwrite, or give another --out",
        folder=folder,
        files=", ".join(existing),
    )


def csv_needs_out() -> str:
    """`export --format csv` without `--out`."""
    return _("--format csv writes answers.csv, posts.csv and leaderboard.csv: give a folder with --out")


# --- db, healthcheck, doctor, run ----------------------------------------------------------------------------------


def no_database_yet(path: object, upgrade: str) -> str:
    """`db current` where the SQLite file does not exist (it is not created)."""
    return _("empty: there is no database at {path} yet; {upgrade} to create it", path=path, upgrade=upgrade)


def upgraded(revision: str, head: str | None) -> str:
    """`db upgrade` is done."""
    return _("database upgraded to {revision} ({head})", revision=revision, head=head)


def unknown_revision(revision: str, head: str | None) -> str:
    """`db upgrade REVISION` with a revision that is none of the migrations."""
    return _(
        "there is no schema revision {revision!r}; run `quizbot db upgrade` for the newest ({head})",
        revision=revision,
        head=head,
    )


def already_past(current: str | None, revision: str) -> str:
    """`db upgrade REVISION` on a database already past it: nothing was done (an upgrade never goes back)."""
    return _(
        "the database is at {current}, already past {revision}: nothing was changed (`quizbot db upgrade` never "
        "goes back)",
        current=current,
        revision=revision,
    )


def revision_state(current: str | None, head: str | None, upgrade: str, *, known: bool = True) -> str:
    """`db current`: the revision, and whether it is the newest (or, not `known`, one a newer quizbot wrote)."""
    if current == head:
        state = _("up to date")
    elif not known:
        state = _(
            "newer than this quizbot knows (its newest is {head}): a newer quizbot upgraded this database; run that "
            "one, or restore the backup taken before the upgrade",
            head=head,
        )
    else:
        state = _("behind (newest is {head}); {upgrade}", head=head, upgrade=upgrade)
    return _("{current}: {state}", current=current or _("empty"), state=state)


def no_health_port() -> str:
    """`healthcheck` with neither `--url` nor QUIZBOT_HTTP_PORT."""
    return _("QUIZBOT_HTTP_PORT is not set, so the bot serves no /healthz; give --url")


def cannot_reach(url: str, error: object) -> str:
    """`healthcheck` could not reach the bot."""
    return _("cannot reach {url}: {error}", url=url, error=error)


def settings_fix() -> str:
    """The doctor's fix for settings that do not load."""
    return _("correct the named environment variables (or .env)")


def pack_fix(content_dir: object) -> str:
    """What to do about a pack that stops the bot from starting."""
    return _(
        "fix it (QUIZBOT_CONTENT_DIR={content_dir}), then check with `quizbot content check`", content_dir=content_dir
    )


def adapter_stopped(adapter: str, error_type: str, error: str) -> str:
    """An adapter stopped for a reason that is neither the platform's refusal nor a setting."""
    return _(
        "the {adapter} adapter stopped: {error_type}: {error}", adapter=adapter, error_type=error_type, error=error
    )


def traceback_hint() -> str:
    """After an unexpected error's one line: how to see the traceback."""
    return _(" (QUIZBOT_LOG_LEVEL=DEBUG shows the traceback)")


def doctor_summary(problems: int) -> str:
    """The doctor's last line: all good, or how many problems to fix."""
    return _("all good") if not problems else _("{problems} to fix", problems=plural(problems, "problem"))


# --- export, forget-user, report: what was done ---------------------------------------------------------------------


def wrote(path: object) -> str:
    """One file an export wrote."""
    return _("wrote {path}", path=path)


def report_written(path: object, title: str, answers: int, people: int) -> str:
    """`quizbot report` wrote its page."""
    return _(
        "wrote {path}: {title}, {answers} by {people}",
        path=path,
        title=title,
        answers=plural(answers, "answer"),
        people=plural(people, "person", "people"),
    )


def cannot_write_report(path: object, error: object) -> str:
    """The report's page could not be written."""
    return _("cannot write {path}: {error}", path=path, error=error)


def person(platform: str, user_id: str) -> str:
    """The person `forget-user` asks about (`slack user U123`)."""
    return _("{platform} user {user_id}", platform=platform, user_id=user_id)


def where_to_forget(workspace: str | None) -> str:
    """Where `forget-user` forgets: one workspace, or every one."""
    return _("workspace {workspace}", workspace=workspace) if workspace else _("every workspace")


def forgot(platform: str, user_id: str, identities: int, rows: Mapping[str, int]) -> str:
    """`forget-user` is done: the identity rows and the other rows it deleted, by table."""
    details = ", ".join(f"{n} {table}" for table, n in rows.items() if n)
    return _(
        "forgot {platform} user {user_id} ({identities}; {details})",
        platform=platform,
        user_id=user_id,
        identities=plural(identities, "identity row"),
        details=details or _("no other rows"),
    )


# --- the edge: the one line an operator reads ---------------------------------------------------------------------


def error_line(message: str) -> str:
    """What stops a command, on stderr."""
    return _("quizbot: {message}", message=message)


def warning_line(message: str) -> str:
    """A warning that does not stop the command, on stderr."""
    return _("quizbot: warning: {message}", message=message)
