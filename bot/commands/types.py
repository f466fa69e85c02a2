"""The `/quiz` commands as values: one frozen dataclass per command, their `Command` union, and a `Subcommand`
(one first word of the text grammar)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from bot.domain import Delivery
from bot.domain.roles import Role
from bot.domain.schedules import Rule
from bot.domain.windows import Scope, Window


@dataclass(frozen=True, slots=True)
class PostNow:
    """`/quiz now [pack]`: post a question here now."""

    pack: str | None = None


@dataclass(frozen=True, slots=True)
class Reveal:
    """`/quiz reveal`: close the current question and show the answer and the distribution."""


@dataclass(frozen=True, slots=True)
class ShowLeaderboard:
    """`/quiz leaderboard [week|month|season [NAME]|all] [channel|workspace|cohort NAME|cohorts]`.

    `cohort` is set for COHORT; `season` names a season for the SEASON window (None: the one running now).
    """

    window: Window = Window.ALL
    scope: Scope = Scope.CHANNEL
    cohort: str | None = None
    season: str | None = None


@dataclass(frozen=True, slots=True)
class ShowMe:
    """`/quiz me`: your own record."""


@dataclass(frozen=True, slots=True)
class ListPacks:
    """`/quiz packs`: the packs there are."""


@dataclass(frozen=True, slots=True)
class ShowHelp:
    """`/quiz help [command]`."""

    topic: str | None = None


@dataclass(frozen=True, slots=True)
class AddSchedule:
    """`/quiz schedule add <when> [pack...] [tz:Area/City] [close:DURATION]`: post questions here on a rule.

    No packs means every pack; no timezone means the channel's; no close means until the next fire (at most 24 h).
    """

    rule: Rule
    packs: tuple[str, ...] = ()
    timezone: str | None = None
    close_after: timedelta | None = None


@dataclass(frozen=True, slots=True)
class AddCohortSchedule:
    """`/quiz schedule add <when> cohort:NAME [tz:Area/City] [close:DURATION]` (leads, admins and the cohort's creator):
    each fire delivers the cohort's next curriculum question, here or to each member privately (its delivery)."""

    rule: Rule
    name: str
    """The cohort (named `name`, as every command the cohort's creator may run)."""
    timezone: str | None = None
    close_after: timedelta | None = None


@dataclass(frozen=True, slots=True)
class ListSchedules:
    """`/quiz schedule list [all]`: this channel's schedules, or the whole workspace's."""

    everywhere: bool = False


@dataclass(frozen=True, slots=True)
class RemoveSchedule:
    """`/quiz schedule remove ID`; asks its runner to confirm first (`confirmed` is set only by that click)."""

    schedule_id: int
    confirmed: bool = False


@dataclass(frozen=True, slots=True)
class PauseSchedule:
    """`/quiz schedule pause ID`."""

    schedule_id: int


@dataclass(frozen=True, slots=True)
class ResumeSchedule:
    """`/quiz schedule resume ID`."""

    schedule_id: int


@dataclass(frozen=True, slots=True)
class NextSchedule:
    """`/quiz schedule next`: what fires next in this channel."""


ScheduleCommand = (
    AddSchedule | AddCohortSchedule | ListSchedules | RemoveSchedule | PauseSchedule | ResumeSchedule | NextSchedule
)


class CohortCommand:
    """Base of the `/quiz cohort ...` commands (handled together by the cohort service)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class CreateCohort(CohortCommand):
    """`/quiz cohort create NAME [start:YYYY-MM-DD] [packs:a,b]`: a cohort on a curriculum (default: every pack)."""

    name: str
    start: date | None = None
    packs: tuple[str, ...] = ()
    delivery: Delivery = Delivery.CHANNEL
    """`deliver:dm`: its schedules send each member the curriculum privately (default `channel`)."""


@dataclass(frozen=True, slots=True)
class JoinCohort(CohortCommand):
    """`/quiz cohort join NAME`."""

    name: str


@dataclass(frozen=True, slots=True)
class LeaveCohort(CohortCommand):
    """`/quiz cohort leave NAME`."""

    name: str


@dataclass(frozen=True, slots=True)
class AddToCohort(CohortCommand):
    """`/quiz cohort add NAME @user...` (leads, admins and the cohort's creator); `users` are platform user ids."""

    name: str
    users: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RemoveFromCohort(CohortCommand):
    """`/quiz cohort remove NAME @user...` (leads, admins and the cohort's creator)."""

    name: str
    users: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ListCohorts(CohortCommand):
    """`/quiz cohort list` (or `/quiz cohorts`)."""


@dataclass(frozen=True, slots=True)
class ShowCohort(CohortCommand):
    """`/quiz cohort show NAME`: members and progress through the curriculum."""

    name: str


@dataclass(frozen=True, slots=True)
class PostCohortQuestion(CohortCommand):
    """`/quiz cohort next NAME`: post the cohort's next curriculum question here (admins and the creator)."""

    name: str


@dataclass(frozen=True, slots=True)
class RemindCohort(CohortCommand):
    """`/quiz cohort remind NAME` (admins and the creator): privately nudge each member who is behind."""

    name: str


@dataclass(frozen=True, slots=True)
class SetCohort(CohortCommand):
    """`/quiz cohort set NAME deliver:dm|channel` (admins and the creator): how its schedules deliver."""

    name: str
    delivery: Delivery


@dataclass(frozen=True, slots=True)
class DeleteCohort(CohortCommand):
    """`/quiz cohort delete NAME` (admins and the creator); answers stay, the cohort and its board go.

    Asks its runner to confirm first; `confirmed` is set only when they do (bot/service/confirmations.py).
    """

    name: str
    confirmed: bool = False


@dataclass(frozen=True, slots=True)
class StartReview:
    """`/quiz review`: privately get the missed question that has been due longest."""


@dataclass(frozen=True, slots=True)
class AnswerReview:
    """`/quiz review N`: answer the review question with the number of a choice."""

    number: int


@dataclass(frozen=True, slots=True)
class ShowReport:
    """`/quiz report [cohort NAME]`: a short summary of the workspace or one cohort."""

    cohort: str | None = None


@dataclass(frozen=True, slots=True)
class FlagQuestion:
    """`/quiz flag [reason]`: report a problem with a question (one flag per person and question).

    Without `post_id` it is the question you last answered in this channel, else the channel's newest one. A
    "Report a problem" button sets `post_id` to the post it was shown under; the text grammar never does.
    """

    reason: str | None = None
    post_id: int | None = None


@dataclass(frozen=True, slots=True)
class ListFlags:
    """`/quiz flags`: the flagged questions, with how many flagged them, their reasons and accuracy (admins)."""


@dataclass(frozen=True, slots=True)
class ClearFlags:
    """`/quiz flags clear PACK/QUESTION`: clear a question's flags, putting it back in rotation (admins)."""

    pack_id: str
    question_key: str


FlagCommand = FlagQuestion | ListFlags | ClearFlags


@dataclass(frozen=True, slots=True)
class StartSeason:
    """`/quiz season start NAME [until:YYYY-MM-DD]` (admins): a season of the workspace from now (through `until`)."""

    name: str
    until: date | None = None


@dataclass(frozen=True, slots=True)
class EndSeason:
    """`/quiz season end` (admins): end the running season and post its final boards; asks to confirm first."""

    confirmed: bool = False


@dataclass(frozen=True, slots=True)
class ListSeasons:
    """`/quiz season list`: the workspace's seasons, the running one first."""


SeasonCommand = StartSeason | EndSeason | ListSeasons


@dataclass(frozen=True, slots=True)
class GrantRole:
    """`/quiz role grant @user lead|admin` (admins): give a person (or, on Discord, a server role) a role here."""

    user: str
    """Their platform id (a server role's id when `platform_role`)."""
    role: Role
    name: str = ""
    """Their name when the mention carried one (`<@U123|ann>`, a Discord member), else empty."""
    platform_role: bool = False


@dataclass(frozen=True, slots=True)
class RevokeRole:
    """`/quiz role revoke @user lead|admin` (admins): take a role back."""

    user: str
    role: Role
    name: str = ""
    platform_role: bool = False


@dataclass(frozen=True, slots=True)
class ListRoles:
    """`/quiz role list` (admins): who has a role here."""


RoleCommand = GrantRole | RevokeRole | ListRoles


@dataclass(frozen=True, slots=True)
class WriteQuestion:
    """`/quiz write [pack]` (anyone): open the form to write a question for the workspace's pack (`team` when none
    is named); it becomes a draft for a lead to review."""

    pack: str | None = None


@dataclass(frozen=True, slots=True)
class SubmitDraft:
    """The write form sent back (FormKind.WRITE_QUESTION): the pack's slug (the form's state) and what was typed, by
    field key (bot/content/written.py FIELDS)."""

    pack: str
    values: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class ListDrafts:
    """`/quiz drafts` (leads): the drafts waiting for review, with Approve, Edit and Reject buttons."""


@dataclass(frozen=True, slots=True)
class ApproveDraft:
    """`/quiz drafts approve N` or its button (leads): the draft joins its workspace pack; its author hears so."""

    draft_id: int


@dataclass(frozen=True, slots=True)
class RejectDraft:
    """`/quiz drafts reject N [reason]` or its button (leads): the draft is set aside; its author hears why."""

    draft_id: int
    reason: str = ""


@dataclass(frozen=True, slots=True)
class EditDraft:
    """`/quiz drafts edit N` or its button (leads): open the write form prefilled with the draft."""

    draft_id: int


@dataclass(frozen=True, slots=True)
class SaveDraft:
    """The edit form sent back (FormKind.EDIT_DRAFT): the draft's id (the form's state) and what was typed."""

    draft_id: int
    values: tuple[tuple[str, str], ...]


DraftCommand = WriteQuestion | SubmitDraft | ListDrafts | ApproveDraft | RejectDraft | EditDraft | SaveDraft


Command = (
    PostNow
    | Reveal
    | ShowLeaderboard
    | ShowMe
    | ListPacks
    | ShowHelp
    | CreateCohort
    | JoinCohort
    | LeaveCohort
    | AddToCohort
    | RemoveFromCohort
    | ListCohorts
    | ShowCohort
    | PostCohortQuestion
    | RemindCohort
    | SetCohort
    | DeleteCohort
    | StartReview
    | AnswerReview
    | ShowReport
    | ScheduleCommand
    | FlagCommand
    | SeasonCommand
    | RoleCommand
    | DraftCommand
)


@dataclass(frozen=True, slots=True)
class Subcommand:
    """One subcommand of `/quiz`: its usage line, a summary, and how to parse its arguments."""

    name: str
    usage: str
    summary: str
    parse: Callable[[list[str]], Command]
    free_text: bool = False
    """Its argument is free text (a reason), handed over whole and unsplit: quotes and apostrophes are just text."""
