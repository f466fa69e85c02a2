"""Answer buttons, and the "Report a problem" button under an answer reply, that keep working after a restart.

Each button's custom_id carries the post and the choice (`quiz:answer:{post_id}:{choice_id}`), or the post an
answer reply is about (`quiz:flag:{post_id}`). The client registers `FlagButton` (and the other buttons here) as
dynamic items: discord.py rebuilds the button from any message's custom_id that matches the template. An answer
button is answered by the client itself from its custom_id (`QuizClient.on_interaction`: the busiest button, it
skips the View of the clicked message discord.py builds per dynamic item). Either way no view has to be kept in
memory and buttons posted before a restart still work.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any, Protocol

import discord

from adapters.discord import limits
from adapters.discord.card_pages import button_labels, labels_fit
from adapters.discord.custom_ids import (
    CONFIRM_TEMPLATE,
    FLAG_TEMPLATE,
    REVIEW_ID,
    REVIEW_TEMPLATE,
    answer_custom_id,
    confirm_custom_id,
    flag_custom_id,
)
from adapters.discord.forms import action_buttons
from adapters.text_safety import plain
from bot.domain import QuestionCard
from bot.domain.views import ConfirmationRequest
from bot.ports import ActionKind, Page
from bot.wording.flags import report_button

MAX_ROWS = 5


def _label_of(item: discord.ui.Item[Any]) -> str:
    """The label of the clicked message's button a dynamic item is rebuilt from ("?" if it has none)."""
    return (item.label if isinstance(item, discord.ui.Button) else None) or "?"


def answer_button(post_id: int, choice: int, *, label: str = "?", row: int | None = None) -> discord.ui.Button[Any]:
    """One answer button of a question card. Not a dynamic item: the client answers a click on it from its
    custom_id (`QuizClient.on_interaction`), which spares the View of the clicked message that discord.py builds for
    every dynamic item it dispatches."""
    return discord.ui.Button(
        label=label, style=discord.ButtonStyle.secondary, custom_id=answer_custom_id(post_id, choice), row=row
    )


class FlagHandler(Protocol):
    """What a "Report a problem" click is handed to (the adapter)."""

    async def flag_click(self, interaction: discord.Interaction[discord.Client], post_id: int) -> None:
        """Record the flag and answer the clicker privately."""
        ...


class FlagButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=FLAG_TEMPLATE):
    """The "Report a problem" button under a private answer reply."""

    def __init__(self, post_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=plain(report_button())[: limits.BUTTON_LABEL],
                style=discord.ButtonStyle.secondary,
                custom_id=flag_custom_id(post_id),
            )
        )
        self.post_id = post_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[discord.Client],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> FlagButton:
        """Rebuild the button from a clicked message's custom_id (the template guarantees the digits)."""
        return cls(int(match["post_id"]))

    async def callback(self, interaction: discord.Interaction[discord.Client]) -> None:
        """Hand the click to the adapter that owns this client."""
        handler: FlagHandler | None = getattr(interaction.client, "adapter", None)
        if handler is not None:
            await handler.flag_click(interaction, self.post_id)


class ConfirmHandler(Protocol):
    """What a Confirm or Cancel click is handed to (the adapter)."""

    async def confirm_click(self, interaction: discord.Interaction[discord.Client], token: str, accept: bool) -> None:
        """Answer the pending confirmation through the core and tell the clicker."""
        ...


class ConfirmButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=CONFIRM_TEMPLATE):
    """Confirm or Cancel under a destructive command's private question; only the token travels in the custom_id."""

    def __init__(self, token: str, accept: bool, *, label: str = "?") -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.danger if accept else discord.ButtonStyle.secondary,
                custom_id=confirm_custom_id(token, accept=accept),
            )
        )
        self.token = token
        self.accept = accept

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[discord.Client],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> ConfirmButton:
        """Rebuild the button from a clicked message's custom_id (the template bounds the token)."""
        return cls(match["token"], match["answer"] == "yes", label=_label_of(item))

    async def callback(self, interaction: discord.Interaction[discord.Client]) -> None:
        """Hand the click to the adapter that owns this client."""
        handler: ConfirmHandler | None = getattr(interaction.client, "adapter", None)
        if handler is not None:
            await handler.confirm_click(interaction, self.token, self.accept)


def _unlistened(view: discord.ui.View) -> discord.ui.View:
    """The view, finished before it is sent: every button of ours is a dynamic item, which discord.py dispatches by
    its custom_id's pattern (registered in QuizClient.setup_hook), never through a stored view. A view still
    listening is kept by discord.py in its view store, and an ephemeral one gets a 15-minute timeout task of its
    own: about 3 KB a private reply, 63 MB after 20,000 clicks, for a quarter of an hour."""
    view.stop()
    return view


def confirm_view(request: ConfirmationRequest) -> discord.ui.View:
    """A destructive command's buttons: Confirm (red) and Cancel."""
    view = discord.ui.View(timeout=None)
    view.add_item(ConfirmButton(request.token, True, label=plain(request.confirm_label)[: limits.BUTTON_LABEL]))
    view.add_item(ConfirmButton(request.token, False, label=plain(request.cancel_label)[: limits.BUTTON_LABEL]))
    return _unlistened(view)


def flag_view(post_id: int) -> discord.ui.View:
    """The view of an answer reply: one "Report a problem" button for the post."""
    view = discord.ui.View(timeout=None)
    view.add_item(FlagButton(post_id))
    return _unlistened(view)


FLAG_VIEWS_KEPT = 64
"""Posts whose "Report a problem" view `FlagViews` keeps (the posts being clicked at once are far fewer)."""


class FlagViews:
    """The "Report a problem" view of each recently answered post, built once and sent under every verdict on it.

    Building it per click (a View, a Button, their components) was ~1-2% of the bot's CPU a click. A finished view
    is only read when sent (discord.py serialises it and, as it is finished, neither stores nor changes it), so one
    serves every reply; it depends on nothing but the post, so nothing has to be forgotten but the oldest.
    """

    def __init__(self, kept: int = FLAG_VIEWS_KEPT) -> None:
        self.kept = kept
        self._views: OrderedDict[int, discord.ui.View] = OrderedDict()

    def of(self, post_id: int) -> discord.ui.View:
        """The view for an answer to `post_id`."""
        view = self._views.get(post_id)
        if view is not None and view.is_finished():
            self._views.move_to_end(post_id)
            return view
        view = flag_view(post_id)
        if view.is_finished():  # always, in the event loop (outside one discord.py cannot finish a view)
            self._views[post_id] = view
            if len(self._views) > self.kept:
                self._views.popitem(last=False)
        return view


def answer_view(card: QuestionCard) -> discord.ui.View:
    """One button per shown choice, in the shown order; each carries the pack's own index of its choice."""
    view = discord.ui.View(timeout=None)
    labels = button_labels(card)
    # Full-text labels read best one to a row; numbers sit side by side.
    one_per_row = labels_fit(card) and len(labels) <= MAX_ROWS
    for position, (label, choice_id) in enumerate(zip(labels, card.choice_ids, strict=True)):
        view.add_item(answer_button(card.post_id, choice_id, label=label, row=position if one_per_row else None))
    return _unlistened(view)


class ReviewHandler(Protocol):
    """What a "Start a review" click is handed to (the adapter)."""

    async def review_click(self, interaction: discord.Interaction[discord.Client]) -> None:
        """Ask the clicker's review question due longest, privately."""
        ...


class ReviewButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=REVIEW_TEMPLATE):
    """The "Start a review" button under `/quiz me` (the personal home)."""

    def __init__(self, *, label: str = "?") -> None:
        super().__init__(
            discord.ui.Button(
                label=plain(label)[: limits.BUTTON_LABEL], style=discord.ButtonStyle.primary, custom_id=REVIEW_ID
            )
        )

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[discord.Client],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> ReviewButton:
        """Rebuild the button from the clicked message."""
        return cls(label=_label_of(item))

    async def callback(self, interaction: discord.Interaction[discord.Client]) -> None:
        """Hand the click to the adapter that owns this client."""
        handler: ReviewHandler | None = getattr(interaction.client, "adapter", None)
        if handler is not None:
            await handler.review_click(interaction)


def page_view(page: Page) -> discord.ui.View | None:
    """The buttons under a page (the review button of the home; a page's other buttons, adapters/discord/forms.py),
    or None when it has none."""
    if not page.actions:
        return None
    view = discord.ui.View(timeout=None)
    reviews = [action for action in page.actions if action.kind is ActionKind.START_REVIEW]
    for action in reviews:
        view.add_item(ReviewButton(label=action.label))
    others = tuple(action for action in page.actions if action.kind is not ActionKind.START_REVIEW)
    for button in action_buttons(others, first_row=1 if reviews else 0):
        view.add_item(button)
    return _unlistened(view)
