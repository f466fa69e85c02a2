"""Flagging questions: flag, list the flagged ones, clear."""

from __future__ import annotations

from bot.commands import ClearFlags, FlagQuestion, ListFlags
from bot.service.facade import Context, Reply
from bot.service.flags import FlagService
from bot.service.handlers.routing import handles
from bot.service.uow import UnitOfWork
from bot.wording import flags


@handles(FlagQuestion)
async def flag_question(command: FlagQuestion, context: Context, uow: UnitOfWork, *, flags_: FlagService) -> Reply:
    """`/quiz flag [reason]` and the "Report a problem" buttons: record the caller's flag, or update its reason."""
    result = await flags_.flag(uow, context.channel, context.user, post_id=command.post_id, reason=command.reason)
    await uow.commit()
    return Reply(flags.flag_message(result))


@handles(ListFlags)
async def list_flags(command: ListFlags, context: Context, uow: UnitOfWork, *, flags_: FlagService) -> Reply:
    """`/quiz flags`: the workspace's flagged questions with counts, reasons and accuracy."""
    return Reply(flags.listing_message(await flags_.flagged(uow, context.channel), threshold=flags_.threshold))


@handles(ClearFlags)
async def clear_flags(command: ClearFlags, context: Context, uow: UnitOfWork, *, flags_: FlagService) -> Reply:
    """`/quiz flags clear PACK/QUESTION`: the question's open flags cleared, so it is back in rotation."""
    cleared = await flags_.clear(uow, context.channel, context.user, pack_id=command.pack_id, key=command.question_key)
    await uow.commit()
    return Reply(flags.cleared_message(cleared))
