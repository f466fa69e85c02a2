"""`/quiz import` with its attachment option: the file Discord stores on its CDN, read and handed to the core.

Discord sends an attachment option as the attachment's id, with its name, size and CDN URL in the interaction's
resolved data; discord.py makes it a `discord.Attachment`. Its size is checked against QUIZBOT_UPLOAD_MAX_BYTES
before a byte is read (`attachment.size`), then `attachment.read()` fetches it, inside the interaction's answer (so
a slow download is deferred like any slow command), and the core runs `ImportPack(filename, bytes)` with the
permission checked as for a typed command. The core decides everything else (type, zip bomb, formulas...).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import discord

from bot.commands import Command
from bot.service.facade import AdapterHost, Context, Reply
from bot.wording import uploads as words


class UploadRunner(Protocol):
    """What the upload needs of the adapter (DiscordInteractions): the core, who asked, and how to answer."""

    runtime: AdapterHost

    def context_of(self, interaction: discord.Interaction[discord.Client]) -> Context:
        """Who runs the command, and where."""
        ...

    async def _answer_with(
        self, interaction: discord.Interaction[discord.Client], reply_of: Callable[[], Awaitable[Reply]]
    ) -> None: ...


def attached(value: Any) -> discord.Attachment | None:
    """The attachment an option carries, if it is one."""
    return value if isinstance(value, discord.Attachment) else None


async def run_import(
    runner: UploadRunner,
    interaction: discord.Interaction[discord.Client],
    attachment: discord.Attachment,
    build: Callable[[str, bytes], Command],
) -> None:
    """Answer `/quiz import` with a file: refused by its size before it is read, else read and run by the core."""
    limit = runner.runtime.settings.upload_max_bytes
    context = runner.context_of(interaction)
    name = attachment.filename

    async def reply() -> Reply:
        if attachment.size > limit:
            return Reply(words.refused_line(name, words.too_large(attachment.size, limit)), ok=False)
        try:
            data = await attachment.read()
        except (discord.HTTPException, discord.NotFound, OSError):
            return Reply(words.download_failed(), ok=False)
        return await runner.runtime.app.execute(build(name, data), context)

    await runner._answer_with(interaction, reply)
