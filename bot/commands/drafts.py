"""`/quiz write [pack]` and the `drafts` group (`/quiz drafts | drafts approve|edit|reject N`): their grammar and
their one declaration each (`DRAFT_SPECS`, added to SPECS in specs.py; the group itself is in groups.py). The forms
and buttons that stand for these commands are registered at the end (bot/commands/forms.py)."""

from __future__ import annotations

from collections.abc import Mapping

from bot.commands.forms import ACTION_COMMANDS, FORM_COMMANDS
from bot.commands.types import (
    ApproveDraft,
    Command,
    EditDraft,
    ListDrafts,
    RejectDraft,
    SaveDraft,
    SubmitDraft,
    WriteQuestion,
)
from bot.commandspec import Access, CommandSpec, Example, Option, OptionKind, Permission
from bot.domain.drafts import DEFAULT_PACK
from bot.domain.forms import FormKind
from bot.domain.text import whole_number
from bot.errors import CommandError
from bot.ports import ActionKind
from bot.wording import drafts as words
from bot.wording import help as help_words

REASON_MAX = 300
"""A rejection's reason at most, in characters (it is sent to the author)."""


def draft_number(text: str) -> int:
    """A draft's number as typed (`3`, `#3`), or CommandError."""
    number = whole_number(text.strip().removeprefix("#"), digits=16)
    if number is None or not 0 < number < 2**53:
        raise CommandError(words.not_a_draft_number, word=text)
    return number


def _parse_write(args: list[str]) -> Command:
    if len(args) > 1:
        raise CommandError(words.write_takes_one_pack)
    return WriteQuestion(args[0].casefold() if args else None)


def _parse_list(args: list[str]) -> Command:
    if args:
        raise CommandError(words.list_takes_nothing)
    return ListDrafts()


def _one_number(action: str, args: list[str]) -> int:
    if len(args) != 1:
        raise CommandError(words.drafts_usage, action=action)
    return draft_number(args[0])


def _parse_approve(args: list[str]) -> Command:
    return ApproveDraft(_one_number("approve", args))


def _parse_edit(args: list[str]) -> Command:
    return EditDraft(_one_number("edit", args))


def _parse_reject(args: list[str]) -> Command:
    if not args:
        raise CommandError(words.drafts_usage, action="reject")
    return RejectDraft(draft_number(args[0]), " ".join(args[1:]).strip()[:REASON_MAX])


_LEAD = Permission.LEAD
_DRAFT = Option("draft", words.OPTION_DRAFT, draft_number, kind=OptionKind.INTEGER, required=True, min_value=1)

DRAFT_SPECS: tuple[CommandSpec, ...] = (
    CommandSpec(
        ("write",),
        (Access(WriteQuestion), Access(SubmitDraft)),
        help_words.summary("write"),
        _parse_write,
        lambda pack: WriteQuestion(pack.casefold() if pack else None),
        options=(Option("pack", words.OPTION_WRITE_PACK),),
        example=Example("write runbooks", {"pack": "runbooks"}),
    ),
    CommandSpec(
        ("drafts", "list"),
        (Access(ListDrafts, _LEAD, "review drafts"),),
        words.DESCRIBE_DRAFTS_LIST,
        _parse_list,
        ListDrafts,
        aliases=("ls", "show"),
        example=Example("drafts list"),
    ),
    CommandSpec(
        ("drafts", "approve"),
        (Access(ApproveDraft, _LEAD, "approve drafts"),),
        words.DESCRIBE_DRAFTS_APPROVE,
        _parse_approve,
        lambda draft: ApproveDraft(draft_id=draft),
        options=(_DRAFT,),
        aliases=("accept",),
        example=Example("drafts approve 3", {"draft": 3}),
    ),
    CommandSpec(
        ("drafts", "edit"),
        (Access(EditDraft, _LEAD, "edit drafts"), Access(SaveDraft, _LEAD, "edit drafts")),
        words.DESCRIBE_DRAFTS_EDIT,
        _parse_edit,
        lambda draft: EditDraft(draft_id=draft),
        options=(_DRAFT,),
        example=Example("drafts edit 3", {"draft": 3}),
    ),
    CommandSpec(
        ("drafts", "reject"),
        (Access(RejectDraft, _LEAD, "reject drafts"),),
        words.DESCRIBE_DRAFTS_REJECT,
        _parse_reject,
        lambda draft, reason: RejectDraft(draft, (reason or "").strip()[:REASON_MAX]),
        options=(_DRAFT, Option("reason", words.OPTION_REJECT_REASON)),
        aliases=("decline",),
        example=Example("drafts reject 3 duplicate", {"draft": 3, "reason": "duplicate"}),
    ),
)
"""`/quiz write` (anyone) and `/quiz drafts ...` (leads and admins)."""


def _values(values: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple((str(key), str(value)) for key, value in values.items())


def _submit(state: str, values: Mapping[str, str]) -> Command:
    return SubmitDraft(state or DEFAULT_PACK, _values(values))


def _save(state: str, values: Mapping[str, str]) -> Command:
    return SaveDraft(draft_number(state), _values(values))


FORM_COMMANDS[FormKind.WRITE_QUESTION] = _submit
FORM_COMMANDS[FormKind.EDIT_DRAFT] = _save
ACTION_COMMANDS[ActionKind.APPROVE_DRAFT] = lambda value: ApproveDraft(draft_number(value))
ACTION_COMMANDS[ActionKind.EDIT_DRAFT] = lambda value: EditDraft(draft_number(value))
ACTION_COMMANDS[ActionKind.REJECT_DRAFT] = lambda value: RejectDraft(draft_number(value))
