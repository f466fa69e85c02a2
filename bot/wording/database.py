"""What an operator reads when the database is not there: what is wrong, naming QUIZBOT_DATABASE_URL (password
masked) or the SQLite path, and what to do.

bot/db/problems.py finds the cause and raises DatabaseNotReady with the key of its words here and their values
(bot/db sits beside bot/wording and does not import it); the edge (the command line, `quizbot doctor`) words it
with `explained` or `line`. Each function gives both halves, `(problem, fix)`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from bot.errors import DatabaseNotReady
from bot.wording.i18n import translate as _

Explained = tuple[str, str]
"""What is wrong, and what to do."""


def upgrade() -> str:
    """The fix for a database that is behind (or empty): migrate it."""
    return _("run `quizbot db upgrade`")


def _check(setting: str, url: str) -> str:
    return _("check {setting} ({url})", setting=setting, url=url)


def sqlite_folder_missing(*, folder: Path, path: Path, named: str, setting: str) -> Explained:
    """A SQLite file in a folder that does not exist (SQLite itself would only say "unable to open")."""
    return (
        _(
            "the folder {folder} of the SQLite database {path} does not exist ({named})",
            folder=folder,
            path=path,
            named=named,
        ),
        _("create the folder, or point {setting} at a file in an existing one", setting=setting),
    )


def no_database(*, path: Path, named: str, setting: str) -> Explained:
    """A command that only reads, run before the SQLite database exists (it is never created by reading)."""
    return (
        _("there is no database at {path} ({named})", path=path, named=named),
        _("{upgrade} to create it, or fix {setting}", upgrade=upgrade(), setting=setting),
    )


def sqlite_cannot_open(*, where: str, reason: str, setting: str, url: str) -> Explained:
    """SQLite could not open the file (unable to open, not a database, locked, read-only)."""
    return (
        _("cannot open the SQLite database {where}: {reason}", where=where, reason=reason),
        _("{check}, that its folder exists and that this user may write there", check=_check(setting, url)),
    )


def postgres_no_database(
    *, name: str, server: str, named: str, host: str, port: int, user: str | None, setting: str
) -> Explained:
    """The PostgreSQL server runs, but the database named in the URL does not exist: the createdb command line that
    makes it (on `host`:`port`, as `user` when the URL names one)."""
    role = f" -U {user}" if user else ""
    create = f"createdb -h {host} -p {port}{role} {name}"
    return (
        _(
            'database "{name}" does not exist on the PostgreSQL server at {server} ({named})',
            name=name,
            server=server,
            named=named,
        ),
        _(
            "create it ({create}) or fix the name in {setting}, then {upgrade}",
            create=create,
            setting=setting,
            upgrade=upgrade(),
        ),
    )


def postgres_refused_user(*, server: str, user: str | None, reason: str, setting: str, url: str) -> Explained:
    """The PostgreSQL server refused the role or its password."""
    return (
        _("the PostgreSQL server at {server} refused user {user!r}: {reason}", server=server, user=user, reason=reason),
        _("fix the user or password in {setting} ({url})", setting=setting, url=url),
    )


def postgres_unknown_host(*, host: str | None, reason: str | None, setting: str, url: str) -> Explained:
    """The host in the URL does not resolve."""
    return (
        _("cannot connect to PostgreSQL: the host {host!r} is unknown ({reason})", host=host, reason=reason),
        _("fix the host in {setting} ({url})", setting=setting, url=url),
    )


def postgres_refused(*, server: str, setting: str, url: str) -> Explained:
    """Nothing listens at the host and port of the URL."""
    return (
        _("cannot connect to PostgreSQL at {server}: connection refused (nothing listens there)", server=server),
        _("{check}, and that the server runs and listens on that host and port", check=_check(setting, url)),
    )


def postgres_timed_out(*, server: str, setting: str, url: str) -> Explained:
    """The host did not answer in time."""
    return (
        _("cannot connect to PostgreSQL at {server}: no answer in time", server=server),
        _("{check}, that the server runs and that no firewall is in the way", check=_check(setting, url)),
    )


def postgres_unreachable(*, server: str, reason: str, setting: str, url: str) -> Explained:
    """Any other network failure on the way to the server."""
    return (
        _("cannot connect to PostgreSQL at {server}: {reason}", server=server, reason=reason),
        _("{check}, and that the server runs and listens on that host and port", check=_check(setting, url)),
    )


def not_at_newest(*, url: str, current: str | None, head: str | None) -> Explained:
    """The database is empty or behind the newest schema."""
    if current is None:
        state = _("empty (no quizbot schema yet)")
    else:
        state = _("at revision {current}, the newest is {head}", current=current, head=head)
    return _("the database at {url} is {state}", url=url, state=state), upgrade()


def newer_schema(*, current: str, head: str | None) -> Explained:
    """The database is at a revision this quizbot does not know: a newer quizbot migrated it."""
    return (
        _(
            "the database is at schema revision {current}, which this quizbot does not know (its newest is {head}): "
            "a newer quizbot has upgraded it",
            current=current,
            head=head,
        ),
        _(
            "run that newer quizbot again, or restore the backup taken before the upgrade; `quizbot db upgrade` "
            "cannot take a schema back"
        ),
    )


def doctor_cannot_connect(reason: str, url: str) -> Explained:
    """`quizbot doctor`: the database failed in a way no explanation above knows."""
    return (
        _("cannot connect: {reason}", reason=reason),
        _("check QUIZBOT_DATABASE_URL ({url}), that the server runs, and that the user may connect", url=url),
    )


def doctor_reachable(dialect: str) -> str:
    """`quizbot doctor`: the database answered."""
    return _("reachable ({dialect})", dialect=dialect)


def doctor_at_newest(head: str | None) -> str:
    """`quizbot doctor`: the schema is at the newest revision."""
    return _("at the newest revision ({head})", head=head)


def doctor_behind(url: str, current: str | None, head: str | None) -> Explained:
    """`quizbot doctor`: the schema is empty or behind, and the bot would upgrade it on start."""
    return (
        _(
            "the database at {url} is at {current}, newest is {head}",
            url=url,
            current=current or _("an empty schema"),
            head=head,
        ),
        _("run `quizbot db upgrade` (the bot also upgrades on start)"),
    )


WORDS: Mapping[str, Callable[..., Explained]] = {
    function.__name__: function
    for function in (
        sqlite_folder_missing,
        no_database,
        sqlite_cannot_open,
        postgres_no_database,
        postgres_refused_user,
        postgres_unknown_host,
        postgres_refused,
        postgres_timed_out,
        postgres_unreachable,
        not_at_newest,
        newer_schema,
    )
}
"""DatabaseNotReady's keys and the functions that word them."""


def explained(error: DatabaseNotReady) -> Explained:
    """What is wrong with the database, and what to do, in the reader's language."""
    return WORDS[error.key](**error.values)


def line(error: DatabaseNotReady) -> str:
    """Both on one line, as the command line prints them."""
    problem, fix = explained(error)
    return f"{problem}; {fix}"
