"""The project's own errors: one base, four categories, so every edge maps a category, never a class.

    QuizError                 anything quizbot raises on purpose; its message is safe to show to a user
    ├── UserInputError        what was typed or clicked cannot be used (CommandError, InvalidChoice, ...)
    ├── NotAllowed            the user may not do this; nothing was changed
    ├── NotFound              a pack, post, cohort, schedule ... that does not exist here
    ├── Unavailable           try again later: the database is down, the bot is restarting (an operator's
    │                         command gets DatabaseNotReady: what is wrong with the database, and the fix)
    └── ConfigError           an operator's setting is missing or malformed, or a platform refused it at start
                              (AdapterStartError); never reaches a chat user

Adapters and the CLI turn a category into one friendly line (bot/wording/errors.py); the layering follows
discord.py's ext/commands/errors.py (CommandError -> UserInputError -> BadArgument).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence


class QuizError(Exception):
    """Base of every error quizbot raises on purpose; its message is safe to show to a user."""


class UserInputError(QuizError):
    """What the user typed or clicked cannot be used; the message says what to do instead."""


class NotAllowed(QuizError):
    """The user may not do this (e.g. only admins manage schedules); nothing was changed."""


class NotFound(QuizError):
    """Something the user named does not exist here; the message lists what there is."""


class Unavailable(QuizError):
    """The bot cannot do this right now; nothing was recorded and the user may retry."""


class ConfigError(QuizError):
    """A setting is missing or malformed."""


class Problem:
    """What is wrong with some content, as data: the key of its words, their values, and where it is.

    Content (bot/content: loading, the schema, the import formats, the quality rules) finds problems; their words
    are built at the edge, in the reader's language, by `worded()`: `words` is the wording function (in
    bot/wording/content.py, imports.py or formats.py) and `values` what it takes, checked against its signature
    where the problem is made. `where` says where, outermost first (a file, then `line 12` or a question, then a
    field); each part is text that is no sentence (a path, a field's name) or a Problem of its own
    (`content.line`). `as_data()` is the problem as plain JSON-ready data (its key, values and where);
    bot/wording/problems.py `from_data` reads it back.
    """

    __slots__ = ("values", "where", "words")

    def __init__(self, words: Callable[..., str], /, *, where: Sequence[str | Problem] = (), **values: object) -> None:
        inspect.signature(words).bind(**values)  # a wrong value's name fails where the problem is made
        self.words = words
        self.values = values
        self.where = tuple(where)

    @property
    def key(self) -> str:
        """The key of its words: `content.blank` for bot/wording/content.py's `blank`."""
        return f"{self.words.__module__.rpartition('.')[2]}.{self.words.__name__}"

    def at(self, *where: str | Problem) -> Problem:
        """The same problem, placed inside `where` (a file around a line, a line around a field)."""
        return Problem(self.words, where=(*where, *self.where), **self.values)

    def worded(self) -> str:
        """The problem in the reader's language, built now: `WHERE: WHAT` (the edge calls this)."""
        values = {name: value.worded() if isinstance(value, Problem) else value for name, value in self.values.items()}
        places = [part.worded() if isinstance(part, Problem) else part for part in self.where]
        return ": ".join([*places, self.words(**values)])

    def as_data(self) -> dict[str, object]:
        """The problem as plain data: `{"key": ..., "values": {...}, "where": [...]}` (nested problems likewise)."""

        def plain(value: object) -> object:
            if isinstance(value, Problem):
                return value.as_data()
            if isinstance(value, tuple | list):
                return [plain(item) for item in value]
            return value

        return {
            "key": self.key,
            "values": {name: plain(value) for name, value in self.values.items()},
            "where": [plain(part) for part in self.where],
        }

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Problem) and self.as_data() == other.as_data()

    def __hash__(self) -> int:
        return hash(self.key)

    def __str__(self) -> str:
        return self.worded()

    def __repr__(self) -> str:
        return f"Problem({self.as_data()!r})"


class InvalidPack(UserInputError):
    """A content pack failed validation; the message names the file, question id and field.

    `problems` are every problem found (a Problem is worded when shown); without a `message` of its own, the
    message is every problem, one a line.
    """

    def __init__(
        self, message: str | Problem | None = None, *, problems: Sequence[str | Problem] | None = None
    ) -> None:
        self.problems: list[str | Problem] = list(problems or ([message] if message is not None else []))
        self.message = message
        super().__init__(message.key if isinstance(message, Problem) else message)

    def __str__(self) -> str:
        if self.message is None:
            return "\n".join(str(problem) for problem in self.problems)
        return self.message if isinstance(self.message, str) else self.message.worded()


class CommandError(UserInputError):
    """A `/quiz` command could not be parsed; the message says what was wrong and what to type.

    `lines` are shown under the message: empty for a specific mistake (its message says all), the command list
    for a command the grammar does not know at all.
    """

    def __init__(self, message: str | Callable[..., str], /, *, lines: tuple[str, ...] = (), **values: object) -> None:
        super().__init__(message if isinstance(message, str) else getattr(message, "__name__", ""))
        self.words = None if isinstance(message, str) else message
        if self.words is not None:
            inspect.signature(self.words).bind(**values)  # a wrong value's name fails where it is raised
        """The wording function (bot/wording) the message is built with, at the edge, from `values`."""
        self.values = values
        self.lines = lines

    @property
    def key(self) -> str:
        """The message's key: its wording function (`commands.not_a_cohort_name`), or the message itself."""
        if self.words is None:
            return str(self.args[0])
        return f"{self.words.__module__.rpartition('.')[2]}.{self.words.__name__}"

    def worded(self) -> str:
        """The message in the reader's language, built now from its key and values (the edge calls this)."""
        return self.words(**self.values) if self.words is not None else str(self.args[0])

    def __str__(self) -> str:
        return self.worded()


class InvalidChoice(UserInputError):
    """A choice number outside the question's choices."""


class UnknownPack(NotFound):
    """A pack id that is not loaded."""


class UnknownPost(NotFound):
    """A post id that does not exist (a forged or stale button)."""


class PostedElsewhere(NotAllowed):
    """A click on a post of another platform, workspace or channel than the click's own (a forged or misrouted
    button): nothing is recorded."""


class NotYourQuestion(NotAllowed):
    """A click on a question delivered privately to someone else (a cohort's direct message): nothing is recorded."""


class NoOpenPost(NotFound):
    """A reveal was asked for in a channel that has no open question."""


class UnknownCohort(NotFound):
    """No cohort of that name in the workspace; the message lists the cohorts there are."""


class UnknownSchedule(NotFound):
    """No schedule with that id in this workspace."""


class UnknownSeason(NotFound):
    """No season of that name in the workspace; the message lists the seasons there are."""


class NoSeasonRunning(NotFound):
    """A season board or `/quiz season end` while no season runs in the workspace."""


class UnknownWorkspace(NotFound):
    """No answers have been recorded for that workspace (or cohort) yet."""


class NoReviewPending(NotFound):
    """`/quiz review N` with no review question out for this user."""


class DatabaseNotReady(Unavailable):
    """The database an operator command needs is unreachable, missing or not migrated.

    `key` names its words in bot/wording/database.py and `values` are what they take; the edge words it there
    (`explained`: what is wrong, naming QUIZBOT_DATABASE_URL with any password masked or the SQLite path, and what
    to do; `line`: both on one line). bot/db, which raises it, sits beside bot/wording and does not import it.
    """

    def __init__(self, key: str, /, **values: object) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


class AdapterStartError(ConfigError):
    """A platform adapter could not start: the platform is unreachable or refused the credentials.

    Adapters raise it from the platform library's own exception (`raise AdapterStartError(...) from exc`), so the
    command line can print one line without importing that library. `setting` names the variable to check (e.g.
    QUIZBOT_SLACK_BOT_TOKEN) and `fix` says what to do.
    """

    def __init__(self, message: str, *, setting: str | None = None, fix: str | None = None) -> None:
        super().__init__(f"{message.rstrip('.')}; {fix}" if fix else message)
        self.setting = setting
        self.fix = fix


class StorageUnavailable(Unavailable):
    """The database could not be reached; nothing was recorded and the user may retry."""


class ShuttingDown(Unavailable):
    """The bot is stopping and takes no new work; the user may retry once it is back."""


class Busy(Unavailable):
    """Too many clicks are waiting to be committed (QUIZBOT_MAX_PENDING_CLICKS): this one was refused at once,
    nothing was recorded, and the user may click again."""
