"""Drafts: `/quiz write` (anyone writes a question in a form), `/quiz drafts` (leads review the queue: approve,
edit, reject), and the author's private word of the outcome.

A submitted form is checked by the pack rules (bot/content/written.py, the rules of `quizbot content check
--strict`); a refusal is the same form again with a line per field, keeping what was typed. An approved draft joins
its workspace pack (created by the first approval) in the same unit of work, so `/quiz now PACK` asks it at once.
The author is told after the commit, through the platform's DirectMessages capability; when they cannot be
reached, the lead's reply says so.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping

from bot.clock import Clock
from bot.commands import ApproveDraft, EditDraft, ListDrafts, RejectDraft, SaveDraft, SubmitDraft, WriteQuestion
from bot.content import Catalog
from bot.content.written import FIELDS, as_question, check_draft, form_values, question_key, read_form
from bot.domain import Pack, UserRef
from bot.domain.drafts import DEFAULT_PACK, Draft, DraftContent, DraftStatus, is_workspace_slug
from bot.domain.forms import Form, FormField, FormKind
from bot.errors import NotFound, UserInputError
from bot.ports import Action, ActionKind, DirectMessages, Line, Message, Page, PlatformError, PlatformRegistry, Section
from bot.service.facade import Context, Reply
from bot.service.handlers.routing import handles
from bot.service.uow import UnitOfWork
from bot.wording import drafts as words

log = logging.getLogger(__name__)

PAGE_DRAFTS = 8
"""Drafts shown with buttons on one page of the queue: three buttons each, within a Slack actions block's 25 and
Discord's five rows of five."""


async def _workspace(context: Context, uow: UnitOfWork, clock: Clock) -> int:
    return await uow.places.workspace_id(context.channel.platform, context.channel.workspace_id, clock.now())


def _refuse_shipped(slug: str, catalog: Catalog) -> None:
    if not is_workspace_slug(slug):
        raise UserInputError(words.bad_pack_slug(slug))
    if any(pack.id == slug for pack in catalog.packs):
        raise UserInputError(words.shipped_pack(slug))


def question_form(kind: FormKind, state: str, values: Mapping[str, str] | None = None) -> Form:
    """The write form (or a draft's edit form, prefilled with `values`)."""
    values = values or {}
    multiline = {"choices", "explanation", "references"}
    fields = tuple(
        FormField(
            key,
            words.label(key),
            values.get(key, ""),
            words.hint(key),
            multiline=key in multiline,
            required=key != "details",  # a reference is a rule of every draft (no-reference): not optional
        )
        for key in FIELDS
    )
    if kind is FormKind.EDIT_DRAFT:
        return Form(kind, words.edit_title(int(state)), words.save_label(), fields, state)
    return Form(kind, words.write_title(), words.submit_label(), fields, state)


async def _team_pack(uow: UnitOfWork, workspace: int, slug: str) -> Pack | None:
    found = await uow.workspace_packs.get(workspace, slug)
    return None if found is None else await uow.workspace_packs.as_pack(found)


async def _rules(content: DraftContent, pack: Pack | None, catalog: Catalog) -> dict[str, str]:
    """The pack rules on a draft, in a worker thread: the near-duplicate search over every shipped question and the
    team pack's takes tens of milliseconds (measured: 47 ms against 232 shipped questions, 170 ms with a team pack
    of 500), which the event loop should not wait out. The thread reads the request's language (a copied context)."""
    return await asyncio.to_thread(check_draft, content, pack=pack, others=catalog.packs)


async def _checked(
    uow: UnitOfWork, workspace: int, slug: str, values: Mapping[str, str], catalog: Catalog
) -> tuple[DraftContent, dict[str, str]]:
    content, errors = read_form(values)
    if not errors:
        errors = await _rules(content, await _team_pack(uow, workspace, slug), catalog)
    return content, errors


def _refused_form(form: Form, values: Mapping[str, str], errors: Mapping[str, str]) -> Reply:
    return Reply(
        Message(words.form_refused(len(errors)), tuple(errors.values())),
        ok=False,
        form=form.with_values(values, errors),
    )


@handles(WriteQuestion)
async def write_question(command: WriteQuestion, context: Context, uow: UnitOfWork, *, catalog: Catalog) -> Reply:
    """`/quiz write [pack]`: the write form for a team pack (`team` by default; never a shipped pack's id)."""
    slug = command.pack or DEFAULT_PACK
    _refuse_shipped(slug, catalog)
    return Reply(Message(words.form_opened(slug)), form=question_form(FormKind.WRITE_QUESTION, slug))


@handles(SubmitDraft)
async def submit_draft(
    command: SubmitDraft, context: Context, uow: UnitOfWork, *, catalog: Catalog, clock: Clock
) -> Reply:
    """The write form sent back: the form again with the problems found, or a draft saved for review."""
    slug = command.pack.casefold()
    _refuse_shipped(slug, catalog)
    values = dict(command.values)
    workspace = await _workspace(context, uow, clock)
    content, errors = await _checked(uow, workspace, slug, values, catalog)
    if errors:
        return _refused_form(question_form(FormKind.WRITE_QUESTION, slug), values, errors)
    draft = await uow.drafts.add_draft(
        workspace,
        slug,
        content,
        author_id=context.user.user_id,
        author_name=context.user.display_name,
        now=clock.now(),
    )
    await uow.commit()
    log.info("draft written", extra={"platform": context.channel.platform, "workspace": context.channel.workspace_id})
    return Reply(words.draft_saved(draft.id, slug))


def queue_page(drafts: list[Draft]) -> Page:
    """The review queue: a line per draft, and Approve, Edit and Reject buttons for the first PAGE_DRAFTS."""
    lines: list[str] = []
    for draft in drafts:
        line = words.queue_line(draft)
        lines.append(line if draft.content.complete else f"{line} — {words.queue_incomplete()}")
    if not lines:
        message = Message(words.queue_title(), (words.queue_empty(),))
        return Page(words.queue_title(), (Section(words.queue_title(), (Line(words.queue_empty()),)),), message)
    actions = tuple(
        action
        for draft in drafts[:PAGE_DRAFTS]
        for action in (
            Action(ActionKind.APPROVE_DRAFT, words.approve_label(draft.id), str(draft.id)),
            Action(ActionKind.EDIT_DRAFT, words.edit_label(draft.id), str(draft.id)),
            Action(ActionKind.REJECT_DRAFT, words.reject_label(draft.id), str(draft.id)),
        )
    )
    message = Message(words.queue_title(), (*lines, words.queue_hint()))
    section = Section(words.queue_title(), tuple(Line(line) for line in lines))
    return Page(words.queue_title(), (section,), message, actions)


@handles(ListDrafts)
async def list_drafts(command: ListDrafts, context: Context, uow: UnitOfWork, *, clock: Clock) -> Reply:
    """`/quiz drafts` (leads): the drafts waiting, with their buttons."""
    page = queue_page(await uow.drafts.pending(await _workspace(context, uow, clock)))
    await uow.commit()  # the workspace's row, if this is its first command
    return Reply(page.message, page=page)


async def _pending(uow: UnitOfWork, workspace: int, draft_id: int) -> Draft:
    draft = await uow.drafts.get(workspace, draft_id)
    if draft is None:
        raise NotFound(words.unknown_draft(draft_id))
    if draft.status is not DraftStatus.PENDING:
        raise UserInputError(
            words.already_decided(draft_id, words.status_word(draft.status.value), draft.decided_by or "")
        )
    return draft


def _decider(context: Context) -> str:
    return context.user.display_name or context.user.user_id


async def _tell_author(platforms: PlatformRegistry, context: Context, draft: Draft, message: Message) -> bool:
    """Tell a draft's author privately; False when the platform cannot reach them (or has no private messages)."""
    platform: object = platforms.get(context.channel.platform)
    if not isinstance(platform, DirectMessages):
        return False
    author = UserRef(context.channel.platform, context.channel.workspace_id, draft.author_id, draft.author_name)
    try:
        await platform.send_direct(author, message)
    except PlatformError as exc:
        log.info("could not tell a draft's author: %s", exc, extra={"platform": context.channel.platform})
        return False
    return True


@handles(ApproveDraft)
async def approve_draft(
    command: ApproveDraft,
    context: Context,
    uow: UnitOfWork,
    *,
    catalog: Catalog,
    clock: Clock,
    platforms: PlatformRegistry,
) -> Reply:
    """`/quiz drafts approve N` or its button: the question joins its team pack (created if need be), once."""
    workspace = await _workspace(context, uow, clock)
    draft = await _pending(uow, workspace, command.draft_id)
    if not draft.content.complete:
        raise UserInputError(words.incomplete(draft.id))
    errors = await _rules(draft.content, await _team_pack(uow, workspace, draft.pack), catalog)
    if errors:
        raise UserInputError(words.fails_rules(draft.id, next(iter(errors.values()))))
    now = clock.now()
    pack = await uow.workspace_packs.create(
        workspace, draft.pack, title=words.new_pack_title(draft.pack), by=_decider(context), now=now
    )
    key = question_key(draft.content, await uow.workspace_packs.question_keys(pack))
    # Decided first: a second lead approving at once waits on this row, then finds it decided (one line), before
    # either adds a question.
    if not await uow.drafts.decide(
        workspace, draft.id, DraftStatus.APPROVED, by=_decider(context), now=now, question_key=key
    ):
        raise UserInputError(words.decided_meanwhile(draft.id))
    question = as_question(draft.content, pack=pack.slug, key=key, extra=await uow.drafts.extra(draft.id))
    await uow.workspace_packs.add_question(pack, question, now=now)
    await uow.commit()
    told = await _tell_author(
        platforms, context, draft, words.author_approved(draft.id, draft.content.prompt, pack.slug)
    )
    return Reply(words.approved(draft.id, pack.slug, key, told=told))


@handles(RejectDraft)
async def reject_draft(
    command: RejectDraft, context: Context, uow: UnitOfWork, *, clock: Clock, platforms: PlatformRegistry
) -> Reply:
    """`/quiz drafts reject N [reason]` or its button: set aside, once; its author hears why."""
    workspace = await _workspace(context, uow, clock)
    draft = await _pending(uow, workspace, command.draft_id)
    if not await uow.drafts.decide(
        workspace, draft.id, DraftStatus.REJECTED, by=_decider(context), now=clock.now(), reason=command.reason
    ):
        raise UserInputError(words.decided_meanwhile(draft.id))
    await uow.commit()
    message = words.author_rejected(draft.id, draft.content.prompt, command.reason)
    told = await _tell_author(platforms, context, draft, message)
    return Reply(words.rejected(draft.id, told=told))


@handles(EditDraft)
async def edit_draft(command: EditDraft, context: Context, uow: UnitOfWork, *, clock: Clock) -> Reply:
    """`/quiz drafts edit N` or its button: the write form, prefilled with the draft."""
    draft = await _pending(uow, await _workspace(context, uow, clock), command.draft_id)
    form = question_form(FormKind.EDIT_DRAFT, str(draft.id), form_values(draft.content))
    return Reply(Message(words.edit_title(draft.id)), form=form)


@handles(SaveDraft)
async def save_draft(command: SaveDraft, context: Context, uow: UnitOfWork, *, catalog: Catalog, clock: Clock) -> Reply:
    """The edit form sent back: the form again with the problems found, or the draft changed (still pending)."""
    workspace = await _workspace(context, uow, clock)
    draft = await _pending(uow, workspace, command.draft_id)
    values = dict(command.values)
    content, errors = await _checked(uow, workspace, draft.pack, values, catalog)
    if errors:
        return _refused_form(question_form(FormKind.EDIT_DRAFT, str(draft.id)), values, errors)
    if not await uow.drafts.edit(workspace, draft.id, content):
        raise UserInputError(words.decided_meanwhile(draft.id))
    await uow.commit()
    return Reply(words.draft_updated(draft.id))
