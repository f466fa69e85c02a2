"""Every sentence a user sees goes through the one translation hook (bot/wording/i18n.py).

A translator that upper-cases every template (leaving its `{fields}` alone) is installed, real commands run
through the core, and every line of each reply must come out upper-case once the interpolated values (names,
pack ids and titles, typed words) are taken out. A sentence written with a plain f-string, or in a handler or a
service, keeps its lower-case letters and fails here.
"""

from __future__ import annotations

import asyncio
import re
import string
from collections.abc import Iterable, Iterator

import pytest

from bot.domain import ChannelRef
from bot.runtime import Runtime
from bot.service.facade import Invocation, Reply
from bot.wording import use_translator
from bot.wording.cards import card_about, card_footer
from tests.conftest import make_user
from tests.fakes.fake_platform import FakePlatform


def shout(template: str) -> str:
    """The template upper-cased outside its `{fields}` (so `.format` still finds them)."""
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError:
        return template.upper()
    if all(field is None for _, field, _, _ in parsed):
        return template.upper()  # filled only when it has values, so its braces are not escaped
    out = []
    for literal, field, spec, conversion in parsed:
        out.append(literal.upper().replace("{", "{{").replace("}", "}}"))
        if field is not None:
            out.append("{" + field + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}")
    return "".join(out)


@pytest.fixture
def shouting() -> Iterator[None]:
    use_translator(shout)
    try:
        yield
    finally:
        use_translator(None)


def untranslated(reply: Reply, values: Iterable[str]) -> list[str]:
    """The lines of a reply that still have lower-case letters once the interpolated `values` are taken out."""
    found = []
    for line in (reply.message.title, *reply.message.lines):
        rest = line
        for value in sorted(values, key=len, reverse=True):
            rest = rest.replace(value, "")
        if rest != rest.upper():
            found.append(line)
    return found


def test_shout_keeps_fields() -> None:
    assert shout("Cohort {name} has {count:.1f} pts, {x!r}") == "COHORT {name} HAS {count:.1f} PTS, {x!r}"
    assert shout("No cohorts yet.") == "NO COHORTS YET."


async def run(runtime: Runtime, channel: ChannelRef, who: str, text: str, *, admin: bool = False) -> Reply:
    return await runtime.app.handle_command(Invocation(channel, make_user(who), text, is_admin=admin))


def content_values(runtime: Runtime) -> set[str]:
    """Pack ids and titles: interpolated, never translated."""
    packs = runtime.app.packs
    return {p.id for p in packs} | {p.title for p in packs}


async def test_cohort_replies_and_errors_go_through_the_hook(
    runtime: Runtime, channel: ChannelRef, shouting: None
) -> None:
    values = content_values(runtime) | {"lead", "ann", "zz", "U-ann"}
    replies = [
        await run(runtime, channel, "lead", "cohort create Q1 packs:data-parallelism start:2026-01-05"),
        await run(runtime, channel, "ann", "cohort join Q1"),
        await run(runtime, channel, "ann", "cohort list"),
        await run(runtime, channel, "ann", "cohort show Q1"),
        await run(runtime, channel, "ann", "cohort show zz"),
        await run(runtime, channel, "ann", "cohort leave Q1"),
        await run(runtime, channel, "ann", "cohort add Q1 <@U-ann>"),
    ]
    assert [reply.ok for reply in replies] == [True, True, True, True, False, True, False]
    assert "NO COHORT NAMED `zz`" in replies[4].message.title
    assert "ONLY LEADS, ADMINS AND THE CREATOR OF COHORT Q1 CAN ADD MEMBERS." in replies[6].message.title
    for reply in replies:
        assert untranslated(reply, values) == [], reply.message.text


async def test_schedule_replies_go_through_the_hook(runtime: Runtime, channel: ChannelRef, shouting: None) -> None:
    values = content_values(runtime) | {"Ada"}
    replies = [
        await run(runtime, channel, "Ada", "schedule add weekdays 09:30 close:2h", admin=True),
        await run(runtime, channel, "Ada", "schedule add mon,wed 14:00", admin=True),
        await run(runtime, channel, "Ada", "schedule list"),
        await run(runtime, channel, "Ada", "schedule list all"),
        await run(runtime, channel, "Ada", "schedule next"),
        await run(runtime, channel, "Ada", "schedule pause 1", admin=True),
        await run(runtime, channel, "Ada", "schedule remove 2", admin=True),
        await run(runtime, channel, "Ada", "schedule remove 9", admin=True),
        await run(runtime, channel, "Bob", "schedule remove 1"),
    ]
    assert all(reply.ok for reply in replies[:7]), [r.message.text for r in replies]
    assert "EVERY WEEKDAY (MON–FRI) AT 09:30" in replies[0].message.title
    assert "EVERY MONDAY AND WEDNESDAY AT 14:00" in replies[1].message.title
    for reply in replies:
        assert untranslated(reply, values) == [], reply.message.text


async def test_question_review_and_report_replies_go_through_the_hook(
    runtime: Runtime, channel: ChannelRef, shouting: None
) -> None:
    values = content_values(runtime) | {"nope"}
    report = await run(runtime, channel, "ann", "report")
    review = await run(runtime, channel, "ann", "review")
    posted = await run(runtime, channel, "ann", "now")
    unknown_pack = await run(runtime, channel, "ann", "now nope")
    revealed = await run(runtime, channel, "ann", "reveal")
    nothing_open = await run(runtime, channel, "ann", "reveal")
    no_review = await run(runtime, channel, "ann", "review 1")
    assert posted.ok and not unknown_pack.ok and not nothing_open.ok and not no_review.ok
    assert unknown_pack.message.title.startswith("THERE IS NO PACK CALLED `nope`.")
    # the revealed answer is content: take every choice out
    answers = {choice for pack in runtime.app.packs for question in pack.questions for choice in question.choices}
    for reply in (report, review, posted, unknown_pack, nothing_open, no_review):
        assert untranslated(reply, values) == [], reply.message.text
    assert untranslated(revealed, values | answers) == [], revealed.message.text
    assert revealed.message.title.startswith("REVEALED: ")


async def test_english_is_unchanged_without_a_translator(runtime: Runtime, channel: ChannelRef) -> None:
    created = await run(runtime, channel, "lead", "cohort create Q1 packs:data-parallelism start:2026-01-05")
    assert created.message.title == "Created cohort Q1, starting 2026-01-05."
    assert created.message.lines[0] == "Curriculum: data-parallelism (8 questions, in this order)."
    shown = await run(runtime, channel, "lead", "cohort show Q1")
    assert shown.message.lines[0] == "Starts 2026-01-05 · created by lead · 0 members"
    await run(runtime, channel, "ann", "cohort join Q1")
    shown = await run(runtime, channel, "lead", "cohort show Q1")
    assert shown.message.lines[0] == "Starts 2026-01-05 · created by lead · 1 member"


async def test_the_lead_view_remind_nudges_and_card_lines_go_through_the_hook(
    runtime: Runtime, platform: FakePlatform, channel: ChannelRef, shouting: None
) -> None:
    values = content_values(runtime) | {"lead", "ann", "ben", "Q1"}
    await run(runtime, channel, "lead", "cohort create Q1 packs:data-parallelism")
    await run(runtime, channel, "ann", "cohort join Q1")
    await run(runtime, channel, "ben", "cohort join Q1")
    for _ in range(3):
        await run(runtime, channel, "lead", "cohort next Q1")
    cards = [s.card for s in platform.of_kind("post_card") if s.card is not None]
    await runtime.app.answer(post_id=cards[-1].post_id, user=make_user("ann"), choice_index=0)
    platform.unreachable.add("U-ben")
    replies = [
        await run(runtime, channel, "lead", "cohort show Q1"),
        await run(runtime, channel, "lead", "report cohort Q1"),
        await run(runtime, channel, "lead", "cohort remind Q1"),
        await run(runtime, channel, "ann", "cohort remind Q1"),
    ]
    assert "BEHIND" in replies[0].message.text and "NEVER ANSWERED" in replies[0].message.text
    assert replies[2].message.title == "NUDGED 0 MEMBERS OF Q1 PRIVATELY."
    for reply in replies:
        assert untranslated(reply, values) == [], reply.message.text
    platform.unreachable.clear()
    await run(runtime, channel, "lead", "cohort remind Q1")
    [nudge] = [s.message for s in platform.of_kind("send_direct")]
    assert nudge is not None
    prompts = {" ".join(q.prompt.split())[:89] for p in runtime.app.packs for q in p.questions}
    assert untranslated(Reply(nudge), values | prompts) == [], nudge.text
    for card in cards:
        assert card_about(card) == "COHORT Q1 · OPEN UNTIL REVEALED"
        footer = card_footer(card).replace(card.pack_title, "")
        assert footer.upper() == footer


async def test_season_and_confirmation_replies_go_through_the_hook(
    runtime: Runtime, channel: ChannelRef, shouting: None
) -> None:
    from bot.service.facade import Context

    values = content_values(runtime) | {"Ada", "q1", "zz", "2026-01-05", "2026-03-31", "2026-01-04", "channel"}
    asked = [
        await run(runtime, channel, "Ada", "season start q1 until:2026-03-31", admin=True),
        await run(runtime, channel, "Ada", "season start zz", admin=True),
        await run(runtime, channel, "Ada", "season list"),
        await run(runtime, channel, "Ada", "leaderboard season"),
        await run(runtime, channel, "Ada", "leaderboard season zz"),
        await run(runtime, channel, "Ada", "season end", admin=True),
    ]
    question = asked[-1]
    assert question.confirm is not None
    clicked = [
        await runtime.app.confirm(
            token=question.confirm.token, context=Context(channel, make_user("Bob"), is_admin=True), accept=True
        ),
        await runtime.app.confirm(
            token=question.confirm.token, context=Context(channel, make_user("Ada"), is_admin=True), accept=True
        ),
        await runtime.app.confirm(
            token=question.confirm.token, context=Context(channel, make_user("Ada"), is_admin=True), accept=True
        ),
        await run(runtime, channel, "Ada", "season end", admin=True),
        await run(runtime, channel, "Ada", "season start q0 until:2026-01-04", admin=True),
    ]
    assert [reply.ok for reply in asked] == [True, False, True, True, False, True]
    assert [reply.ok for reply in clicked] == [False, True, False, False, False]
    assert question.confirm.confirm_label == "END THE SEASON" and question.confirm.note.startswith("ONLY YOU")
    for reply in asked + clicked:
        assert untranslated(reply, values) == [], reply.message.text


class _Counted:
    """A catalog of a made-up language: upper-case sentences, and three plural forms, as Polish or Russian have."""

    def gettext(self, message: str, /) -> str:
        return shout(message)

    def ngettext(self, singular: str, plural: str, n: int, /) -> str:
        if n == 1:
            return singular.upper()
        return (plural.upper() + "-FEW") if n % 10 in (2, 3, 4) else (plural.upper() + "-MANY")


async def test_each_request_is_worded_in_its_callers_language_and_plurals_take_the_count(
    runtime: Runtime, channel: ChannelRef
) -> None:
    """The hook is per request: two commands running at once, one in a language with its own catalog and one in
    English, each get their own words; a counted noun asks the catalog with its count (no `noun + "s"`)."""
    from bot.wording.i18n import _catalogs, install_catalog, plural, reading_in

    install_catalog("xx", _Counted())
    try:
        english, other = await asyncio.gather(
            runtime.app.handle_command(Invocation(channel, make_user("ann"), "help")),
            runtime.app.handle_command(Invocation(channel, make_user("ann"), "help", locale="xx-YY")),
        )
        assert untranslated(other, ()) == [] and untranslated(english, ()) != []
        with reading_in("xx"):
            assert [plural(n, "day") for n in (1, 3, 5)] == ["1 DAY", "3 DAYS-FEW", "5 DAYS-MANY"]
        assert plural(3, "day") == "3 days"  # outside the request: English
    finally:
        _catalogs.pop("xx", None)


async def test_the_terminals_own_sentences_go_through_the_hook(runtime: Runtime, shouting: None) -> None:
    """The console's greeting, prompts and marks are wording too, not text in the adapter."""
    import io

    from adapters.console import ConsoleAdapter

    out = io.StringIO()
    console = ConsoleAdapter(runtime, stdin=io.StringIO("hello\n9\n/as\n/as Bob\n"), stdout=out)
    runtime.platforms.register(console)
    await console.run()
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    spoken = [line for line in lines if not re.match(r"\S+> ", line)]  # the echo of what was typed
    assert len(spoken) >= 5 and [line for line in spoken if (rest := line.replace("Bob", "")) != rest.upper()] == [], (
        spoken
    )
