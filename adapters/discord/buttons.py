"""Answer buttons that keep working after a restart.

Each button's custom_id carries the post and the choice (`quiz:answer:{post_id}:{choice_id}`), and the client
registers `AnswerButton` as a dynamic item: discord.py rebuilds the button from any message's custom_id that
matches the template, so no view has to be kept in memory and buttons posted before a restart still work.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import discord

from adapters.discord.embeds import ANSWER_TEMPLATE, answer_custom_id, button_labels, labels_fit
from bot.domain import QuestionCard

MAX_ROWS = 5


class AnswerHandler(Protocol):
    """What a click is handed to (the adapter)."""

    async def answer_click(self, interaction: discord.Interaction[discord.Client], post_id: int, choice: int) -> None:
        """Record the click and answer the clicker privately."""
        ...


class AnswerButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=ANSWER_TEMPLATE):
    """One answer button of a question card."""

    def __init__(self, post_id: int, choice: int, *, label: str = "?", row: int | None = None) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                custom_id=answer_custom_id(post_id, choice),
                row=row,
            )
        )
        self.post_id = post_id
        self.choice = choice

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[discord.Client],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> AnswerButton:
        """Rebuild the button from a clicked message's custom_id (the template guarantees the digits)."""
        label = (item.label if isinstance(item, discord.ui.Button) else None) or "?"
        return cls(int(match["post_id"]), int(match["choice"]), label=label)

    async def callback(self, interaction: discord.Interaction[discord.Client]) -> None:
        """Hand the click to the adapter that owns this client."""
        handler: AnswerHandler | None = getattr(interaction.client, "adapter", None)
        if handler is not None:
            await handler.answer_click(interaction, self.post_id, self.choice)


def answer_view(card: QuestionCard) -> discord.ui.View:
    """One button per shown choice, in the shown order; each carries the pack's own index of its choice."""
    view = discord.ui.View(timeout=None)
    labels = button_labels(card)
    # Full-text labels read best one to a row; numbers sit side by side.
    one_per_row = labels_fit(card) and len(labels) <= MAX_ROWS
    for position, (label, choice_id) in enumerate(zip(labels, card.choice_ids, strict=True)):
        view.add_item(AnswerButton(card.post_id, choice_id, label=label, row=position if one_per_row else None))
    return view
