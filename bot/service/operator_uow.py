"""The unit of work of the CLI's operator commands (`quizbot export`, `quizbot forget-user`, `quizbot content
flags`): the service's one transaction (bot/service/uow.py), with the operator's repository (`people`, a person's
rows) and read side (`exports`) beside the service's repositories.

The command opens it; the operation runs in the one it is given and commits when it writes::

    async with operator_unit_of_work(db) as uow:
        result = await forget_user(uow, platform=..., user_id=...)
"""

from __future__ import annotations

from typing import Self

from bot.db.database import Database
from bot.service.exports import Exports
from bot.service.repositories.directory import Directory
from bot.service.repositories.people import People
from bot.service.uow import UnitOfWork


class OperatorUnitOfWork(UnitOfWork):
    """The service's unit of work plus what only operator commands read and write through it."""

    people: People
    exports: Exports

    async def __aenter__(self) -> Self:
        await super().__aenter__()
        self.people = People(self.session)
        self.exports = Exports(self.session)
        return self


def operator_unit_of_work(db: Database) -> OperatorUnitOfWork:
    """A unit of work for one operator command on this database. Its directory caches nothing across commands, and
    an operator command creates no workspace, so the directory's default timezone is never used."""
    return OperatorUnitOfWork(db, Directory(default_timezone="UTC"))
