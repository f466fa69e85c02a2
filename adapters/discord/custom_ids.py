"""The custom_ids of the bot's buttons (answer, "Report a problem", "Start a review", Confirm and Cancel): how each
is built, and the patterns the dynamic buttons are matched by (bounded, so a forged id cannot overflow the database)."""

from __future__ import annotations

from adapters.discord import limits

ANSWER_PREFIX = "quiz:answer:"
# Bounded digits: a post id of up to 18 digits always fits a 64-bit database id, so a forged custom_id
# cannot make the database raise an overflow; longer ones fall to the "unknown button" reply.
ANSWER_TEMPLATE = r"quiz:answer:(?P<post_id>\d{1,18}):(?P<choice>\d{1,2})"
FLAG_PREFIX = "quiz:flag:"
FLAG_TEMPLATE = r"quiz:flag:(?P<post_id>\d{1,18})"
REVIEW_ID = "quiz:review:start"
"""The custom_id of the "Start a review" button under `/quiz me` (a fixed id: it carries nothing)."""
REVIEW_TEMPLATE = r"quiz:review:start"
"""The "Report a problem" button under a private answer reply: the post it answered (digits bounded as above)."""
CONFIRM_TEMPLATE = r"quiz:confirm:(?P<answer>yes|no):(?P<token>[A-Za-z0-9_-]{16,64})"
"""A destructive command's Confirm or Cancel button: the pending confirmation's token (bot/service/confirmations.py)."""


def answer_custom_id(post_id: int, choice_id: int) -> str:
    """The custom_id of an answer button: the post and the pack's own index of the choice."""
    return _bounded(f"{ANSWER_PREFIX}{post_id}:{choice_id}")  # 18 + 2 digits keep it far below


def confirm_custom_id(token: str, *, accept: bool) -> str:
    """The custom_id of a confirmation's Confirm (`yes`) or Cancel (`no`) button."""
    return _bounded(f"quiz:confirm:{'yes' if accept else 'no'}:{token}")  # tokens are 22 characters


def flag_custom_id(post_id: int) -> str:
    """The custom_id of the "Report a problem" button of an answer to this post."""
    return _bounded(f"{FLAG_PREFIX}{post_id}")  # 18 digits keep it far below


def _bounded(custom_id: str) -> str:
    """`custom_id`, which must fit Discord's limit (a bug in this module otherwise, never the user's input)."""
    if len(custom_id) > limits.CUSTOM_ID:  # pragma: no cover - every id above is built far below it
        raise ValueError(f"custom_id too long: {custom_id}")
    return custom_id
