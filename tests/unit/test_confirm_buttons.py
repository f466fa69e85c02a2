"""What a confirmation's buttons carry on Slack and Discord: the token and yes/no, within the platforms' limits."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from adapters.discord.custom_ids import CONFIRM_TEMPLATE, confirm_custom_id
from adapters.slack.blocks import confirm_action_id, confirm_blocks, parse_confirm_action
from bot.domain.views import ConfirmationRequest
from bot.ports import Message
from tests.fakes.slack_api import validate_blocks

TOKEN = "AbC-_0123456789xyzXYZ1"
REQUEST = ConfirmationRequest(
    token=TOKEN,
    confirm_label="Delete the cohort",
    cancel_label="Cancel",
    note="Only you can confirm, within 2 minutes.",
    asked_by="U1",
    expires_at=datetime(2026, 1, 1, tzinfo=UTC),
)


def test_slack_confirm_actions_round_trip_and_forgeries_are_not_ours() -> None:
    assert parse_confirm_action(confirm_action_id(TOKEN, accept=True)) == (TOKEN, True)
    assert parse_confirm_action(confirm_action_id(TOKEN, accept=False)) == (TOKEN, False)
    for forged in ("quiz:confirm:maybe:" + TOKEN, "quiz:confirm:yes:short", "quiz:confirm:yes:" + TOKEN + "<>"):
        assert parse_confirm_action(forged) is None


def test_slack_confirm_blocks_are_valid_block_kit_with_the_note_and_two_buttons() -> None:
    blocks = confirm_blocks(Message("Delete cohort <!channel>?", ("This can't be undone.",)), REQUEST)
    assert validate_blocks(blocks) == []
    assert "<!channel>" not in str(blocks)  # escaped like every message
    confirm, cancel = blocks[-1]["elements"]
    assert (confirm["style"], confirm["text"]["text"], cancel["text"]["text"]) == (
        "danger",
        "Delete the cohort",
        "Cancel",
    )
    assert blocks[-2]["type"] == "context" and "Only you can confirm" in str(blocks[-2])


def test_discord_confirm_custom_ids_match_the_template_within_100_characters() -> None:
    for accept in (True, False):
        custom_id = confirm_custom_id(TOKEN, accept=accept)
        match = re.fullmatch(CONFIRM_TEMPLATE, custom_id)
        assert match is not None and match["token"] == TOKEN and len(custom_id) <= 100
