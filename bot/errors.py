"""The project's own errors: one base, so every edge can turn them into a friendly reply."""

from __future__ import annotations


class QuizError(Exception):
    """Base of every error quizbot raises on purpose; its message is safe to show to a user."""


class ConfigError(QuizError):
    """A setting is missing or malformed."""


class InvalidPack(QuizError):
    """A content pack failed validation; the message names the file, question id and field."""

    def __init__(self, message: str, *, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or [message]


class CommandError(QuizError):
    """A `/quiz` command could not be parsed; the message says what was wrong and what to type."""


class UnknownPack(QuizError):
    """A pack id that is not loaded."""


class UnknownPost(QuizError):
    """A post id that does not exist (a forged or stale button)."""


class NoOpenPost(QuizError):
    """A reveal was asked for in a channel that has no open question."""


class InvalidChoice(QuizError):
    """A choice number outside the question's choices."""


class DatabaseNotReady(QuizError):
    """The database an operator command needs is unreachable, missing or not migrated.

    `problem` says what is wrong (naming QUIZBOT_DATABASE_URL with any password masked, or the SQLite path) and
    `fix` what to do; the message is both, on one line.
    """

    def __init__(self, problem: str, fix: str) -> None:
        super().__init__(f"{problem}; {fix}")
        self.problem = problem
        self.fix = fix


class AdapterStartError(QuizError):
    """A platform adapter could not start: the platform is unreachable or refused the credentials.

    Adapters raise it from the platform library's own exception (`raise AdapterStartError(...) from exc`), so the
    command line can print one line without importing that library. `setting` names the variable to check (e.g.
    QUIZBOT_SLACK_BOT_TOKEN) and `fix` says what to do.
    """

    def __init__(self, message: str, *, setting: str | None = None, fix: str | None = None) -> None:
        super().__init__(f"{message.rstrip('.')}; {fix}" if fix else message)
        self.setting = setting
        self.fix = fix


class StorageUnavailable(QuizError):
    """The database could not be reached; nothing was recorded and the user may retry."""


class ShuttingDown(QuizError):
    """The bot is stopping and takes no new work; the user may retry once it is back."""


class NotAllowed(QuizError):
    """The user may not do this (e.g. only admins manage schedules); nothing was changed."""
