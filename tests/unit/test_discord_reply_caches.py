"""What the Discord adapter keeps between clicks to answer them cheaply: escaped reply texts and the "Report a
problem" view of each recent post. Each must give what building it afresh gives, for the post and text at hand."""

from __future__ import annotations

import discord

from adapters.discord.buttons import FlagViews, flag_view
from adapters.discord.embeds import escape, escape_kept, message_embed
from bot.ports import Message


def _custom_ids(view: discord.ui.View) -> list[str]:
    return [c["custom_id"] for row in view.to_components() for c in row["components"]]


def test_kept_escapes_are_the_escapes_of_each_text() -> None:
    texts = ["*bold* <@123> `code` [x](https://e.com)", "# heading\n- item\n1. one", "plain", "**", ""]
    for _ in range(2):  # the second round is answered from what was kept
        assert [escape_kept(t) for t in texts] == [escape(t) for t in texts]


def test_a_reply_shows_its_own_texts_after_others_were_kept() -> None:
    first = message_embed(Message("Right! *All-reduce*", ("It sums gradients.",)))
    second = message_embed(Message("Right! *All-reduce*", ("It averages _gradients_ now.",)))  # an edited pack
    closed = message_embed(Message("This question is closed; answers are no longer recorded.", ("It sums.",)))
    assert first.title == second.title == escape("Right! *All-reduce*")
    assert first.description == escape("It sums gradients.")
    assert second.description == escape("It averages _gradients_ now.")
    assert closed.title == "This question is closed; answers are no longer recorded."


async def test_the_report_view_is_built_once_a_post_and_each_post_gets_its_own() -> None:
    views = FlagViews(kept=2)
    first = views.of(1)
    assert views.of(1) is first  # the same post: reused
    assert first.is_finished()  # finished, so discord.py never stores or times it out when sent
    second = views.of(2)
    assert second is not first
    assert _custom_ids(first) == ["quiz:flag:1"] and _custom_ids(second) == ["quiz:flag:2"]
    assert _custom_ids(views.of(3)) == ["quiz:flag:3"]  # a new post: its own view; the least recent (1) goes
    again = views.of(1)
    assert again is not first and _custom_ids(again) == ["quiz:flag:1"]
    assert views.of(3) is views.of(3)
    assert [c for row in again.to_components() for c in row["components"]] == [
        c for row in flag_view(1).to_components() for c in row["components"]
    ]
