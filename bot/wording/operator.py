"""What the `quizbot` command line says to an operator when something is in the way: one line that names the
setting or the path, and the fix."""

from __future__ import annotations

from collections.abc import Sequence

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


def not_a_platform(platform: str, platforms: Sequence[str]) -> str:
    """`forget-user irc ...`."""
    return _(
        "{platform!r} is not a platform; give one of: {names}", platform=platform, names=", ".join(sorted(platforms))
    )


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
