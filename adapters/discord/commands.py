"""The `/quiz` application command group.

Each subcommand builds the core's command object (`PostNow`, `ShowLeaderboard`, `AddSchedule`, ...) straight
from its typed options and hands it to the adapter, which runs it with `QuizApp.execute`: nothing is turned
back into text for a parser to split again. Options are checked at the edge, as discord.py's transformers do,
by the same validators the `/quiz` text grammar uses (`bot/commands.py`), so a mistake in an option gets the
grammar's own one-line message. `/quiz schedule ...` and `/quiz cohort ...` are nested groups, so Discord shows
each action with its own typed options.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any, Protocol

import discord
from discord import app_commands

from bot.commands import (
    SUBCOMMANDS,
    AddCohortSchedule,
    AddSchedule,
    AddToCohort,
    AnswerReview,
    ClearFlags,
    Command,
    CreateCohort,
    DeleteCohort,
    EndSeason,
    FlagQuestion,
    JoinCohort,
    LeaveCohort,
    ListCohorts,
    ListFlags,
    ListPacks,
    ListSchedules,
    ListSeasons,
    NextSchedule,
    PauseSchedule,
    PostCohortQuestion,
    PostNow,
    RemindCohort,
    RemoveFromCohort,
    RemoveSchedule,
    ResumeSchedule,
    Reveal,
    SetCohort,
    ShowCohort,
    ShowHelp,
    ShowLeaderboard,
    ShowMe,
    ShowReport,
    StartReview,
    StartSeason,
    close_after,
    cohort_name,
    curriculum,
    delivery_mode,
    help_topic,
    leaderboard_cohort,
    leaderboard_scope,
    leaderboard_window,
    members_usage,
    question_ref,
    schedule_id,
    schedule_packs,
    season_name,
    season_until,
    start_date,
    user_ids,
)
from bot.domain import Delivery, QuestionKey
from bot.domain.flags import REASON_MAX, flag_reason
from bot.domain.schedules import Rule
from bot.domain.windows import Scope, Window
from bot.errors import CommandError
from bot.schedule_rules import parse_rule, parse_timezone
from bot.wording import help as help_words
from bot.wording.boards import window_words

DESCRIPTION_LIMIT = 100
AUTOCOMPLETE_LIMIT = 25
CHOICE_LIMIT = 100
"""Discord's limit on an autocomplete choice's name and value."""

_LAST_ITEM = re.compile(r"(?P<head>.*[,\s])?(?P<last>[^,\s]*)", re.DOTALL)
_ITEM_SEPARATORS = re.compile(r"[,\s]+")


class CommandHandler(Protocol):
    """What the command group hands its work to (the adapter)."""

    async def run_command(self, interaction: discord.Interaction[discord.Client], command: Command) -> None:
        """Run a command object for this interaction and answer it."""
        ...

    def pack_choices(self, current: str) -> list[app_commands.Choice[str]]:
        """Packs matching what the user typed so far, for autocomplete."""
        ...


def _summary(name: str) -> str:
    """A subcommand's description, from the core's command table (so every platform says the same)."""
    summary = next(sub.summary for sub in SUBCOMMANDS if sub.name == name)
    return help_words.description(summary)[:DESCRIPTION_LIMIT]


def _items(text: str) -> list[str]:
    """A list option (`a, b c`) as its items: commas and spaces both separate."""
    return [item for item in _ITEM_SEPARATORS.split(text) if item]


def _members(action: str) -> Callable[[str], tuple[str, ...]]:
    """The validator of `/quiz cohort add|remove`'s `members`: mentions or ids, at least one."""

    def members(text: str) -> tuple[str, ...]:
        users = user_ids(text.split())
        if not users:
            raise CommandError(members_usage(action))
        return users

    return members


OptionChoices = list[app_commands.Choice[Any]]


class GrammarOption(app_commands.Transformer[discord.Client]):
    """An option checked at the edge by one of the `/quiz` grammar's validators, straight into the typed value.

    The validator's CommandError (the grammar's message for that mistake) makes discord.py raise a
    TransformerError caused by it; the adapter's tree error handler answers with that message.
    """

    def __init__(
        self,
        validate: Callable[[str], Any],
        *,
        option_type: discord.AppCommandOptionType = discord.AppCommandOptionType.string,
        choices: list[app_commands.Choice[str]] | None = None,
        min_value: int | None = None,
    ) -> None:
        self.validate = validate
        self._type = option_type
        self._choices: OptionChoices | None = list(choices) if choices is not None else None
        self._min_value = min_value

    @property
    def type(self) -> discord.AppCommandOptionType:
        """The option type Discord shows and sends (a string unless told otherwise)."""
        return self._type

    @property
    def choices(self) -> OptionChoices | None:
        """The fixed choices Discord offers, if any."""
        return self._choices

    @property
    def min_value(self) -> int | None:
        """The smallest number Discord lets a user enter (integer options)."""
        return self._min_value

    async def transform(self, interaction: discord.Interaction[discord.Client], value: Any, /) -> Any:
        """The validated value; the grammar's CommandError when it is not valid."""
        return self.validate(str(value))


WINDOW_CHOICES = [app_commands.Choice(name=window_words(w.value), value=w.value) for w in Window]
"""One choice per leaderboard window, in the words the boards use (a new Window appears here by itself)."""
SCOPE_CHOICES = [
    app_commands.Choice(name="this channel", value=Scope.CHANNEL.value),
    app_commands.Choice(name="this server", value=Scope.WORKSPACE.value),
    app_commands.Choice(name="one cohort (name it in `cohort`)", value=Scope.COHORT.value),
    app_commands.Choice(name="cohort vs cohort", value=Scope.COHORTS.value),
]
HELP_CHOICES = [app_commands.Choice(name=sub.name, value=sub.name) for sub in SUBCOMMANDS]

# The options' transformers, named like the types they stand for in `app_commands.Transform[T, Transformer]`.
# Choices keep Discord's pickers; the validator still runs, so a value from a stale client gets the grammar's reply.
WindowOption = GrammarOption(leaderboard_window, choices=WINDOW_CHOICES)
ScopeOption = GrammarOption(leaderboard_scope, choices=SCOPE_CHOICES)
HelpTopic = GrammarOption(help_topic, choices=HELP_CHOICES)
CohortName = GrammarOption(cohort_name)
SeasonName = GrammarOption(season_name)
SeasonUntil = GrammarOption(season_until)
StartDate = GrammarOption(start_date)
Curriculum = GrammarOption(lambda text: curriculum(_items(text)))
AddMembers = GrammarOption(_members("add"))
RemoveMembers = GrammarOption(_members("remove"))
When = GrammarOption(parse_rule)
SchedulePacks = GrammarOption(lambda text: schedule_packs(_items(text)))
Timezone = GrammarOption(parse_timezone)
CloseAfter = GrammarOption(close_after)
# An integer option (Discord enforces the minimum), read by the grammar's own check all the same.
ScheduleId = GrammarOption(schedule_id, option_type=discord.AppCommandOptionType.integer, min_value=1)
FlagReason = GrammarOption(flag_reason)
DELIVERY_CHOICES = [
    app_commands.Choice(name="in the channel", value=Delivery.CHANNEL.value),
    app_commands.Choice(name="by direct message to each member", value=Delivery.DM.value),
]
DeliveryOption = GrammarOption(delivery_mode, choices=DELIVERY_CHOICES)
QuestionRef = GrammarOption(question_ref)

WHEN = "When, e.g. `weekdays 09:30`, `mon,wed,fri 2pm` or cron `30 9 * * 1-5`"
PACKS = "Pack ids, separated by commas or spaces (default: every pack)"
TZ = "IANA timezone, e.g. Europe/Helsinki or America/New_York (default: the channel's)"
CLOSE = "Close each question after e.g. 30m, 2h, 1d (default: at the next one, at most 24 h)"
SCHEDULE_ID = "The schedule's id (`/quiz schedule list` shows them)"
COHORT = "The cohort's name, e.g. spring-26"
SEASON = "The season's name, e.g. 2027-q1"
DELIVER = "How its schedules deliver the curriculum: in the channel, or to each member by direct message"
MEMBERS = "Members: mentions (@ann @ben) or user ids"


class QuizCommands(app_commands.Group):
    """`/quiz now|reveal|leaderboard|me|packs|review|report|flag|help` and the groups `/quiz schedule`,
    `/quiz cohort`, `/quiz flags`, `/quiz season`.

    `handler` is None when the group is built only to register it with Discord (`quizbot discord sync`).
    """

    def __init__(self, handler: CommandHandler | None) -> None:
        super().__init__(name="quiz", description="Quiz questions, answers and leaderboards")
        self.handler = handler

    async def _run(self, interaction: discord.Interaction[discord.Client], command: Command) -> None:
        if self.handler is None:  # pragma: no cover - a registration-only group never receives interactions
            await interaction.response.send_message("quizbot is not running here.", ephemeral=True)
            return
        await self.handler.run_command(interaction, command)

    def _packs(self, current: str) -> list[app_commands.Choice[str]]:
        return self.handler.pack_choices(current)[:AUTOCOMPLETE_LIMIT] if self.handler else []

    def _pack_list(self, current: str) -> list[app_commands.Choice[str]]:
        """Completes the last pack id of a list, keeping the ones already typed."""
        match = _LAST_ITEM.fullmatch(current)
        head, last = (match.group("head") or "", match.group("last")) if match else ("", current)
        return [
            app_commands.Choice(name=(head + choice.name)[:CHOICE_LIMIT], value=head + choice.value)
            for choice in self._packs(last)
            if len(head + choice.value) <= CHOICE_LIMIT
        ]

    @app_commands.command(name="now", description=_summary("now"))
    @app_commands.describe(pack="The pack to take the question from (default: any)")
    async def now(self, interaction: discord.Interaction[discord.Client], pack: str | None = None) -> None:
        """Post a question in this channel now."""
        await self._run(interaction, PostNow(pack=pack or None))

    @now.autocomplete("pack")
    async def _pack_autocomplete(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[str]]:
        return self._packs(current)

    @app_commands.command(name="reveal", description=_summary("reveal"))
    async def reveal(self, interaction: discord.Interaction[discord.Client]) -> None:
        """Close the channel's open question and show the answer."""
        await self._run(interaction, Reveal())

    @app_commands.command(name="leaderboard", description=_summary("leaderboard"))
    @app_commands.describe(
        window="Which answers count (default: all time)",
        scope="Whose answers (default: this channel)",
        cohort="The cohort to rank (picks the one-cohort scope), e.g. spring-26",
        season="A season's name, for its board (picks the season window; default: the season running now)",
    )
    async def leaderboard(
        self,
        interaction: discord.Interaction[discord.Client],
        window: app_commands.Transform[Window, WindowOption] | None = None,
        scope: app_commands.Transform[Scope, ScopeOption] | None = None,
        cohort: app_commands.Transform[str, CohortName] | None = None,
        season: app_commands.Transform[str, SeasonName] | None = None,
    ) -> None:
        """Show who leads: in the channel, the server, one cohort, or cohort vs cohort; in a window or a season."""
        window = Window.SEASON if season is not None else (window or Window.ALL)  # a season named picks its window
        if cohort is not None or scope is Scope.COHORT:  # a cohort named picks its scope; none named: which?
            board = ShowLeaderboard(window=window, scope=Scope.COHORT, cohort=leaderboard_cohort(cohort), season=season)
        else:
            board = ShowLeaderboard(window=window, scope=scope or Scope.CHANNEL, season=season)
        await self._run(interaction, board)

    @app_commands.command(name="me", description=_summary("me"))
    async def me(self, interaction: discord.Interaction[discord.Client]) -> None:
        """Show the caller's own record."""
        await self._run(interaction, ShowMe())

    @app_commands.command(name="packs", description=_summary("packs"))
    async def packs(self, interaction: discord.Interaction[discord.Client]) -> None:
        """List the packs."""
        await self._run(interaction, ListPacks())

    @app_commands.command(
        name="review", description="Privately review a question you missed; give `answer` to answer it"
    )
    @app_commands.describe(answer="The number of your choice for the question you are reviewing")
    async def review(
        self,
        interaction: discord.Interaction[discord.Client],
        answer: app_commands.Range[int, 1, 99] | None = None,
    ) -> None:
        """Ask the review question that is due, or answer it."""
        await self._run(interaction, StartReview() if answer is None else AnswerReview(answer))

    @app_commands.command(name="report", description=_summary("report"))
    @app_commands.describe(cohort="Report on one cohort (default: the whole server)")
    async def report(
        self,
        interaction: discord.Interaction[discord.Client],
        cohort: app_commands.Transform[str, CohortName] | None = None,
    ) -> None:
        """Post a short summary of the server or one cohort."""
        await self._run(interaction, ShowReport(cohort=cohort))

    @app_commands.command(name="flag", description=_summary("flag"))
    @app_commands.describe(reason=f"What is wrong with it (up to {REASON_MAX} characters)")
    async def flag(
        self,
        interaction: discord.Interaction[discord.Client],
        reason: app_commands.Transform[str, FlagReason] | None = None,
    ) -> None:
        """Report a problem with the question the caller last answered here."""
        await self._run(interaction, FlagQuestion(reason=reason or None))

    @app_commands.command(name="help", description=_summary("help"))
    @app_commands.describe(command="Explain one command")
    async def help(
        self,
        interaction: discord.Interaction[discord.Client],
        command: app_commands.Transform[str, HelpTopic] | None = None,
    ) -> None:
        """Show the commands."""
        await self._run(interaction, ShowHelp(topic=command))

    # --- /quiz schedule ... --------------------------------------------------------------------------

    schedule = app_commands.Group(name="schedule", description=_summary("schedule"))

    @schedule.command(name="add", description="Post questions in this channel on a rule (admins)")
    @app_commands.describe(
        when=WHEN, packs=PACKS, tz=TZ, close=CLOSE, cohort="Deliver this cohort's curriculum instead of packs"
    )
    async def schedule_add(
        self,
        interaction: discord.Interaction[discord.Client],
        when: app_commands.Transform[Rule, When],
        *,
        packs: app_commands.Transform[tuple[str, ...], SchedulePacks] | None = None,
        tz: app_commands.Transform[str, Timezone] | None = None,
        close: app_commands.Transform[timedelta, CloseAfter] | None = None,
        cohort: app_commands.Transform[str, CohortName] | None = None,
    ) -> None:
        """Put this channel (or a cohort's curriculum) on a schedule."""
        if cohort is not None:
            await self._run(interaction, AddCohortSchedule(rule=when, name=cohort, timezone=tz, close_after=close))
            return
        await self._run(interaction, AddSchedule(rule=when, packs=packs or (), timezone=tz, close_after=close))

    @schedule_add.autocomplete("packs")
    async def _schedule_packs_autocomplete(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[str]]:
        return self._pack_list(current)

    @schedule.command(name="list", description="This channel's schedules, or the whole server's")
    @app_commands.rename(everywhere="all")
    @app_commands.describe(everywhere="List every channel's schedules in this server")
    async def schedule_list(self, interaction: discord.Interaction[discord.Client], everywhere: bool = False) -> None:
        """List schedules."""
        await self._run(interaction, ListSchedules(everywhere=everywhere))

    @schedule.command(name="remove", description="Delete a schedule; posted questions stay (admins)")
    @app_commands.describe(id=SCHEDULE_ID)
    async def schedule_remove(
        self, interaction: discord.Interaction[discord.Client], id: app_commands.Transform[int, ScheduleId]
    ) -> None:
        """Delete a schedule."""
        await self._run(interaction, RemoveSchedule(id))

    @schedule.command(name="pause", description="Stop a schedule until it is resumed (admins)")
    @app_commands.describe(id=SCHEDULE_ID)
    async def schedule_pause(
        self, interaction: discord.Interaction[discord.Client], id: app_commands.Transform[int, ScheduleId]
    ) -> None:
        """Pause a schedule."""
        await self._run(interaction, PauseSchedule(id))

    @schedule.command(
        name="resume", description="Restart a paused schedule; missed questions are not caught up (admins)"
    )
    @app_commands.describe(id=SCHEDULE_ID)
    async def schedule_resume(
        self, interaction: discord.Interaction[discord.Client], id: app_commands.Transform[int, ScheduleId]
    ) -> None:
        """Resume a schedule."""
        await self._run(interaction, ResumeSchedule(id))

    @schedule.command(name="next", description="When the next scheduled question is due in this channel")
    async def schedule_next(self, interaction: discord.Interaction[discord.Client]) -> None:
        """Show the next scheduled question."""
        await self._run(interaction, NextSchedule())

    # --- /quiz flags ... -----------------------------------------------------------------------------

    flags = app_commands.Group(name="flags", description=_summary("flags"))

    @flags.command(name="list", description="Flagged questions: how many reported each, why, accuracy (admins)")
    async def flags_list(self, interaction: discord.Interaction[discord.Client]) -> None:
        """List the flagged questions."""
        await self._run(interaction, ListFlags())

    @flags.command(name="clear", description="Clear a question's flags, putting it back in rotation (admins)")
    @app_commands.describe(question="PACK/QUESTION, e.g. data-parallelism/dp-gpu-holds (`/quiz flags list` shows them)")
    async def flags_clear(
        self,
        interaction: discord.Interaction[discord.Client],
        question: app_commands.Transform[QuestionKey, QuestionRef],
    ) -> None:
        """Clear a question's flags."""
        await self._run(interaction, ClearFlags(pack_id=question.pack_id, question_key=question.key))

    # --- /quiz cohort ... ----------------------------------------------------------------------------

    cohort = app_commands.Group(name="cohort", description=_summary("cohort"))

    @cohort.command(name="create", description="Create a cohort with a start date and a curriculum of packs")
    @app_commands.describe(
        name=COHORT,
        start="First day, as YYYY-MM-DD (default: today)",
        packs="Curriculum: pack ids in order, separated by commas (default: every pack)",
        deliver=DELIVER,
    )
    async def cohort_create(
        self,
        interaction: discord.Interaction[discord.Client],
        name: app_commands.Transform[str, CohortName],
        start: app_commands.Transform[date, StartDate] | None = None,
        packs: app_commands.Transform[tuple[str, ...], Curriculum] | None = None,
        deliver: app_commands.Transform[Delivery, DeliveryOption] | None = None,
    ) -> None:
        """Create a cohort."""
        delivery = deliver or Delivery.CHANNEL
        await self._run(interaction, CreateCohort(name=name, start=start, packs=packs or (), delivery=delivery))

    @cohort_create.autocomplete("packs")
    async def _cohort_packs_autocomplete(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[str]]:
        return self._pack_list(current)

    @cohort.command(name="join", description="Join a cohort")
    @app_commands.describe(name=COHORT)
    async def cohort_join(
        self, interaction: discord.Interaction[discord.Client], name: app_commands.Transform[str, CohortName]
    ) -> None:
        """Join a cohort."""
        await self._run(interaction, JoinCohort(name))

    @cohort.command(name="leave", description="Leave a cohort")
    @app_commands.describe(name=COHORT)
    async def cohort_leave(
        self, interaction: discord.Interaction[discord.Client], name: app_commands.Transform[str, CohortName]
    ) -> None:
        """Leave a cohort."""
        await self._run(interaction, LeaveCohort(name))

    @cohort.command(name="add", description="Add members to a cohort (admins and its creator)")
    @app_commands.describe(name=COHORT, members=MEMBERS)
    async def cohort_add(
        self,
        interaction: discord.Interaction[discord.Client],
        name: app_commands.Transform[str, CohortName],
        members: app_commands.Transform[tuple[str, ...], AddMembers],
    ) -> None:
        """Add members to a cohort."""
        await self._run(interaction, AddToCohort(name, members))

    @cohort.command(name="remove", description="Remove members from a cohort (admins and its creator)")
    @app_commands.describe(name=COHORT, members=MEMBERS)
    async def cohort_remove(
        self,
        interaction: discord.Interaction[discord.Client],
        name: app_commands.Transform[str, CohortName],
        members: app_commands.Transform[tuple[str, ...], RemoveMembers],
    ) -> None:
        """Remove members from a cohort."""
        await self._run(interaction, RemoveFromCohort(name, members))

    @cohort.command(name="list", description="The cohorts of this server")
    async def cohort_list(self, interaction: discord.Interaction[discord.Client]) -> None:
        """List the cohorts."""
        await self._run(interaction, ListCohorts())

    @cohort.command(name="show", description="A cohort's members and their progress through its curriculum")
    @app_commands.describe(name=COHORT)
    async def cohort_show(
        self, interaction: discord.Interaction[discord.Client], name: app_commands.Transform[str, CohortName]
    ) -> None:
        """Show a cohort."""
        await self._run(interaction, ShowCohort(name))

    @cohort.command(name="next", description="Post the cohort's next curriculum question here (admins and its creator)")
    @app_commands.describe(name=COHORT)
    async def cohort_next(
        self, interaction: discord.Interaction[discord.Client], name: app_commands.Transform[str, CohortName]
    ) -> None:
        """Post a cohort's next question."""
        await self._run(interaction, PostCohortQuestion(name))

    @cohort.command(name="remind", description="Privately nudge the members who are behind (admins and its creator)")
    @app_commands.describe(name=COHORT)
    async def cohort_remind(
        self, interaction: discord.Interaction[discord.Client], name: app_commands.Transform[str, CohortName]
    ) -> None:
        """Nudge a cohort's members who are behind."""
        await self._run(interaction, RemindCohort(name))

    @cohort.command(name="set", description="How a cohort's schedules deliver its curriculum (admins and its creator)")
    @app_commands.describe(name=COHORT, deliver=DELIVER)
    async def cohort_set(
        self,
        interaction: discord.Interaction[discord.Client],
        name: app_commands.Transform[str, CohortName],
        deliver: app_commands.Transform[Delivery, DeliveryOption],
    ) -> None:
        """Change how a cohort is delivered."""
        await self._run(interaction, SetCohort(name, deliver))

    @cohort.command(name="delete", description="Delete a cohort; answers and points stay (admins and its creator)")
    @app_commands.describe(name=COHORT)
    async def cohort_delete(
        self, interaction: discord.Interaction[discord.Client], name: app_commands.Transform[str, CohortName]
    ) -> None:
        """Delete a cohort."""
        await self._run(interaction, DeleteCohort(name))

    # --- /quiz season ... ----------------------------------------------------------------------------

    season = app_commands.Group(name="season", description=_summary("season"))

    @season.command(name="start", description="Start a season: a leaderboard from zero, until it ends (admins)")
    @app_commands.describe(name=SEASON, until="Its last day, as YYYY-MM-DD (default: until an admin ends it)")
    async def season_start(
        self,
        interaction: discord.Interaction[discord.Client],
        name: app_commands.Transform[str, SeasonName],
        until: app_commands.Transform[date, SeasonUntil] | None = None,
    ) -> None:
        """Start a season."""
        await self._run(interaction, StartSeason(name=name, until=until))

    @season.command(name="end", description="End the running season; each channel gets its final board (admins)")
    async def season_end(self, interaction: discord.Interaction[discord.Client]) -> None:
        """End the running season (after a confirmation)."""
        await self._run(interaction, EndSeason())

    @season.command(name="list", description="This server's seasons, the running one first")
    async def season_list(self, interaction: discord.Interaction[discord.Client]) -> None:
        """List the seasons."""
        await self._run(interaction, ListSeasons())
