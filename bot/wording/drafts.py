"""Drafts and workspace packs: `/quiz write` (the form and its problems), `/quiz drafts` (the review queue, approve,
edit, reject), the author's private word of the outcome, and a team pack's refusals."""

from __future__ import annotations

from collections.abc import Sequence

from bot.domain.drafts import Draft
from bot.ports import Message
from bot.wording.i18n import echo, plural, shorten
from bot.wording.i18n import translate as _

# --- workspace packs --------------------------------------------------------------------------------------------


def bad_pack_slug(slug: str) -> str:
    """A team pack name that is no slug."""
    return _(
        "`{slug}` cannot name a pack: use lower-case letters, digits and dashes (at most 48), "
        "e.g. `team` or `runbooks`.",
        slug=echo(slug),
    )


def shipped_pack(slug: str) -> str:
    """A team pack name that is a shipped pack's id."""
    return _(
        "`{slug}` is a shipped pack: your team's questions go in a pack of its own; pick another name, e.g. `team`.",
        slug=echo(slug),
    )


def team_mark() -> str:
    """What `/quiz packs` says after a pack of the team's own."""
    return _("your team's")


def team_pack_line(slug: str, title: str, questions: str) -> str:
    """A team pack in `/quiz packs`."""
    return _("{id} — {title} ({questions}, {mark})", id=slug, title=title, questions=questions, mark=team_mark())


def new_pack_title(slug: str) -> str:
    """The title of a team pack created by its first approved question."""
    return _("Our {slug} questions", slug=slug)


# --- the write form ---------------------------------------------------------------------------------------------

DESCRIBE_WRITE = "Write a question for your team's pack (a lead reviews it)"
OPTION_WRITE_PACK = "Your team's pack (default: team)"
DESCRIBE_DRAFTS_LIST = "The questions waiting for review (leads)"
DESCRIBE_DRAFTS_APPROVE = "Approve a draft: it joins its team pack (leads)"
DESCRIBE_DRAFTS_REJECT = "Reject a draft, with a reason for its author (leads)"
DESCRIBE_DRAFTS_EDIT = "Open a draft in the write form to change it (leads)"
OPTION_DRAFT = "The draft's number, from /quiz drafts"
OPTION_REJECT_REASON = "Why, for its author"
DRAFTS_USAGE = "/quiz drafts | drafts approve N | drafts edit N | drafts reject N [reason]"


def write_title() -> str:
    """The write form's title (at most 24 characters)."""
    return _("Write a question")


def edit_title(draft_id: int) -> str:
    """The edit form's title (at most 24 characters)."""
    return _("Edit draft {id}", id=draft_id)


def submit_label() -> str:
    """The write form's submit button."""
    return _("Submit for review")


def save_label() -> str:
    """The edit form's submit button."""
    return _("Save")


def label(key: str) -> str:
    """A form field's label (at most 45 characters), by its key."""
    labels = {
        "prompt": _("Question"),
        "choices": _("Choices, one a line, the right one with *"),
        "explanation": _("Explanation: why it is right"),
        "references": _("References: links, one a line"),
        "details": _("Tags and difficulty"),
    }
    return labels[key]


def hint(key: str) -> str:
    """A form field's placeholder, by its key."""
    hints = {
        "prompt": _("Which collective sums gradients across ranks?"),
        "choices": "*all-reduce\nbroadcast\nscatter",
        "explanation": _("All-reduce sums and shares the result. Broadcast only copies one rank's tensor."),
        "references": "https://pytorch.org/docs/stable/distributed.html",
        "details": "tags: ddp, nccl; difficulty: medium",
    }
    return hints[key]


def form_opened(pack: str) -> str:
    """The words beside the write form, for a platform that cannot show it: how to fill it in."""
    return _("Write a question for the `{pack}` pack; a lead reviews it before it is asked.", pack=pack)


def form_refused(count: int) -> str:
    """The words beside a form sent back with problems."""
    return _("Not saved yet: {count} to fix, shown in the form.", count=plural(count, "problem"))


def no_choice_marked(mark: str) -> str:
    """No choice marked as the correct one."""
    return _("Mark the correct choice with a leading `{mark}`, e.g. `{mark}all-reduce`.", mark=mark)


def choices_marked_twice(mark: str, count: int) -> str:
    """More than one choice marked."""
    return _("{count} choices are marked with `{mark}`: mark only the correct one.", count=count, mark=mark)


def bad_difficulty(value: str, allowed: Sequence[str]) -> str:
    """A difficulty that is none of the known ones."""
    return _("`{value}` is no difficulty: say {allowed}.", value=echo(value), allowed=", ".join(allowed))


def bad_details(part: str) -> str:
    """A details part that is neither tags nor difficulty."""
    return _("`{part}` is not understood: write `tags: a, b; difficulty: medium`.", part=echo(part))


def bad_reference(url: str) -> str:
    """A reference that is not a web address."""
    return _("`{url}` is not a link: give http(s) addresses, one a line.", url=echo(url))


def draft_saved(draft_id: int, pack: str) -> Message:
    """A draft stored for review."""
    return Message(
        _("Draft {id} saved for review by a lead.", id=draft_id),
        (_("It joins the `{pack}` pack once approved; you will hear the outcome privately.", pack=pack),),
    )


def draft_updated(draft_id: int) -> Message:
    """A draft changed by a lead's Edit."""
    return Message(_("Draft {id} updated; approve it when it is ready.", id=draft_id))


# --- the review queue -------------------------------------------------------------------------------------------


def queue_title() -> str:
    """The review queue's title."""
    return _("Drafts waiting for review")


def queue_empty() -> str:
    """No draft waits."""
    return _("No drafts are waiting for review.")


def queue_line(draft: Draft) -> str:
    """A draft in the queue: its number, pack, author and prompt."""
    return _(
        "{id}. [{pack}] {prompt} (by {author})",
        id=draft.id,
        pack=draft.pack,
        prompt=shorten(" ".join(draft.content.prompt.split()), 120),
        author=draft.author_name or draft.author_id,
    )


def queue_incomplete() -> str:
    """What a draft that lacks something says in the queue."""
    return _("needs an explanation or a marked answer: Edit it first")


def queue_hint() -> str:
    """How to act without buttons."""
    return _("Type `/quiz drafts approve N`, `edit N` or `reject N [reason]`, or use the buttons.")


def approve_label(draft_id: int) -> str:
    """The Approve button of a draft."""
    return _("Approve {id}", id=draft_id)


def edit_label(draft_id: int) -> str:
    """The Edit button of a draft."""
    return _("Edit {id}", id=draft_id)


def reject_label(draft_id: int) -> str:
    """The Reject button of a draft."""
    return _("Reject {id}", id=draft_id)


def unknown_draft(draft_id: int) -> str:
    """A draft id that is not one of this workspace's."""
    return _("There is no draft {id} here; `/quiz drafts` lists the ones waiting.", id=draft_id)


def already_decided(draft_id: int, status: str, by: str) -> str:
    """A draft that was approved or rejected before."""
    return _("Draft {id} was already {status} by {by}; nothing changed.", id=draft_id, status=status, by=by)


def status_word(status: str) -> str:
    """`approved` / `rejected`, as a sentence says it."""
    return {"approved": _("approved"), "rejected": _("rejected")}.get(status, status)


def incomplete(draft_id: int) -> str:
    """Approving a draft that lacks an explanation or a marked answer."""
    return _("Draft {id} is not complete: `/quiz drafts edit {id}` to finish it, then approve it.", id=draft_id)


def fails_rules(draft_id: int, problem: str) -> str:
    """Approving a draft that the pack rules refuse (it changed, or the pack did)."""
    return _("Draft {id} does not pass the pack rules: {problem} Edit it first.", id=draft_id, problem=problem)


def approved(draft_id: int, pack: str, key: str, *, told: bool) -> Message:
    """A lead's approval: where the question went, and whether its author heard."""
    lines = [_("Ask it now with `/quiz now {pack}`.", pack=pack)]
    if not told:
        lines.append(_("Its author could not be told privately here; let them know."))
    return Message(
        _("Draft {id} approved: it is question {key} of `{pack}`.", id=draft_id, key=key, pack=pack), tuple(lines)
    )


def rejected(draft_id: int, *, told: bool) -> Message:
    """A lead's rejection, and whether its author heard."""
    lines = () if told else (_("Its author could not be told privately here; let them know."),)
    return Message(_("Draft {id} rejected.", id=draft_id), lines)


def author_approved(draft_id: int, prompt: str, pack: str) -> Message:
    """What an author hears privately when their draft is approved."""
    return Message(
        _("Your question was approved and joined the `{pack}` pack.", pack=pack),
        (_("Draft {id}: {prompt}", id=draft_id, prompt=shorten(" ".join(prompt.split()), 200)),),
    )


def author_rejected(draft_id: int, prompt: str, reason: str) -> Message:
    """What an author hears privately when their draft is rejected."""
    lines = [_("Draft {id}: {prompt}", id=draft_id, prompt=shorten(" ".join(prompt.split()), 200))]
    if reason:
        lines.append(_("Why: {reason}", reason=reason))
    return Message(_("Your question was not accepted this time."), tuple(lines))


def not_a_draft_number(word: str) -> str:
    """A draft number that is no number."""
    return _(
        "`{word}` is not a draft number: `/quiz drafts` lists them, e.g. `/quiz drafts approve 3`.", word=echo(word)
    )


def drafts_usage(action: str) -> str:
    """`drafts approve|edit|reject` without a number."""
    return _("Say which draft, e.g. `/quiz drafts {action} 3`.", action=action)


def list_takes_nothing() -> str:
    """`drafts list` with words after it."""
    return _("`/quiz drafts` takes nothing after it.")


def not_a_drafts_action(word: str, actions: Sequence[str]) -> str:
    """`/quiz drafts WORD` where WORD is none of its actions."""
    return _(
        "`{word}` is not something `/quiz drafts` does; say {actions}.",
        word=echo(word),
        actions=", ".join(f"`{action}`" for action in actions),
    )


def write_takes_one_pack() -> str:
    """`/quiz write` with more than one word."""
    return _("Name one pack, e.g. `/quiz write runbooks`, or none for `team`.")


# --- the operator's command line (`quizbot content export|import --workspace`) -----------------------------------


def cli_help_export_workspace() -> str:
    """`content export --workspace`'s help."""
    return _("export a workspace's own pack from the database (PACK is its name there), e.g. slack:T0123")


def cli_help_import_workspace() -> str:
    """`content import --workspace`'s help."""
    return _("store the checked pack in a workspace's own packs in the database, e.g. slack:T0123")


def cli_bad_workspace(text: str) -> str:
    """A `--workspace` that is not PLATFORM:ID."""
    return _("`{text}` is not a workspace: say PLATFORM:ID, e.g. `slack:T0123` or `console:local`.", text=echo(text))


def cli_no_such_workspace(address: str, known: Sequence[str]) -> str:
    """A `--workspace` the database has never seen."""
    return _(
        "The database has no workspace {address}. Workspaces: {known}.",
        address=address,
        known=", ".join(known) or _("none"),
    )


def cli_no_such_team_pack(slug: str, address: str, known: Sequence[str]) -> str:
    """A pack name the workspace does not have."""
    return _(
        "Workspace {address} has no pack `{slug}`. Its packs: {known}.",
        address=address,
        slug=echo(slug),
        known=", ".join(known) or _("none"),
    )


def cli_exported(path: str, fmt: str) -> str:
    """A workspace pack written to a file."""
    return _("Wrote {path} ({fmt}).", path=path, fmt=fmt)


def cli_imported(slug: str, address: str, *, created: bool, added: int, changed: int, retired: int) -> str:
    """A pack stored in a workspace."""
    return _(
        "{done} pack `{slug}` in {address}: {added} new, {changed} changed, {retired} retired.",
        done=_("Created") if created else _("Updated"),
        slug=slug,
        address=address,
        added=plural(added, "question"),
        changed=changed,
        retired=retired,
    )


def decided_meanwhile(draft_id: int) -> str:
    """A draft another lead decided at the same moment."""
    return _("Draft {id} was decided by another lead just now; nothing changed.", id=draft_id)
