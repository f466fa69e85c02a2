"""The groups of `/quiz` actions (`schedule`, `flags`, `cohort`, `season`): each action's one declaration
(`ACTIONS`, shaped by bot/commandspec.py) and each group's bare meaning and refusal (`GROUPS`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.commands.arguments import (
    _items,
    _members,
    close_after,
    cohort_name,
    curriculum,
    delivery_mode,
    question_ref,
    schedule_id,
    schedule_packs,
    season_name,
    season_until,
    start_date,
)
from bot.commands.parsers import (
    _cohort_named,
    _parse_clear_flags,
    _parse_create,
    _parse_list_flags,
    _parse_list_schedules,
    _parse_members,
    _parse_schedule_add,
    _parse_set,
    _parse_start_season,
    _schedule_by_id,
    _takes_nothing,
)
from bot.commands.types import (
    AddCohortSchedule,
    AddSchedule,
    AddToCohort,
    ClearFlags,
    Command,
    CreateCohort,
    DeleteCohort,
    EndSeason,
    JoinCohort,
    LeaveCohort,
    ListCohorts,
    ListDrafts,
    ListFlags,
    ListRoles,
    ListSchedules,
    ListSeasons,
    NextSchedule,
    PauseSchedule,
    PostCohortQuestion,
    RemindCohort,
    RemoveFromCohort,
    RemoveSchedule,
    ResumeSchedule,
    SetCohort,
    ShowCohort,
    ShowSettings,
    StartSeason,
)
from bot.commandspec import Access, Autocomplete, Choice, CommandSpec, Example, Option, OptionKind, Permission
from bot.domain import Delivery
from bot.domain.names import nearest
from bot.domain.settings import KEYS
from bot.errors import CommandError
from bot.schedule_rules import parse_rule, parse_timezone
from bot.wording import chat_settings as settings_words
from bot.wording import commands as words
from bot.wording import drafts as draft_words
from bot.wording import flags as flag_words
from bot.wording import help as help_words
from bot.wording import roles as role_words
from bot.wording import seasons as season_words


def _delivery_choices() -> list[Choice]:
    return [Choice(words.delivery_choice(mode.value), mode.value) for mode in (Delivery.CHANNEL, Delivery.DM)]


_COHORT_OPTION = Option("name", words.OPTION_COHORT, cohort_name, required=True)
_SCHEDULE_ID = Option("id", words.OPTION_SCHEDULE_ID, schedule_id, kind=OptionKind.INTEGER, required=True, min_value=1)
_DELIVER = Option("deliver", words.OPTION_DELIVER, delivery_mode, choices=_delivery_choices)
_LEAD = Permission.LEAD
_CREATOR = Permission.CREATOR_OR_ADMIN


ACTIONS: tuple[CommandSpec, ...] = (
    CommandSpec(
        ("schedule", "add"),
        (Access(AddSchedule, _LEAD, "add schedules"), Access(AddCohortSchedule, _CREATOR, "add schedules")),
        words.DESCRIBE_SCHEDULE_ADD,
        _parse_schedule_add,
        lambda when, packs, tz, close, cohort: (
            AddCohortSchedule(rule=when, name=cohort, timezone=tz, close_after=close)
            if cohort is not None
            else AddSchedule(rule=when, packs=packs or (), timezone=tz, close_after=close)
        ),
        options=(
            Option("when", words.OPTION_WHEN, parse_rule, required=True),
            Option(
                "packs",
                words.OPTION_PACKS,
                lambda text: schedule_packs(_items(text)),
                autocomplete=Autocomplete.PACK_LIST,
            ),
            Option("tz", words.OPTION_TZ, parse_timezone),
            Option("close", words.OPTION_CLOSE, close_after),
            Option("cohort", words.OPTION_SCHEDULE_COHORT, cohort_name),
        ),
        aliases=("new",),
        example=Example(
            "schedule add weekdays 09:30 data-parallelism", {"when": "weekdays 09:30", "packs": "data-parallelism"}
        ),
    ),
    CommandSpec(
        ("schedule", "list"),
        (Access(ListSchedules),),
        words.DESCRIBE_SCHEDULE_LIST,
        _parse_list_schedules,
        lambda all: ListSchedules(everywhere=bool(all)),
        options=(Option("all", words.OPTION_ALL, lambda text: text == "True", kind=OptionKind.BOOLEAN),),
        aliases=("ls", "show"),
        example=Example("schedule list all", {"all": True}),
    ),
    CommandSpec(
        ("schedule", "remove"),
        (Access(RemoveSchedule, _LEAD, "remove schedules", confirm=True),),
        words.DESCRIBE_SCHEDULE_REMOVE,
        _schedule_by_id(RemoveSchedule, "remove"),
        lambda id: RemoveSchedule(schedule_id=id),
        options=(_SCHEDULE_ID,),
        aliases=("rm", "delete", "del"),
        example=Example("schedule remove 3", {"id": 3}),
    ),
    CommandSpec(
        ("schedule", "pause"),
        (Access(PauseSchedule, _LEAD, "pause and resume schedules"),),
        words.DESCRIBE_SCHEDULE_PAUSE,
        _schedule_by_id(PauseSchedule, "pause"),
        lambda id: PauseSchedule(schedule_id=id),
        options=(_SCHEDULE_ID,),
        example=Example("schedule pause 3", {"id": 3}),
    ),
    CommandSpec(
        ("schedule", "resume"),
        (Access(ResumeSchedule, _LEAD, "pause and resume schedules"),),
        words.DESCRIBE_SCHEDULE_RESUME,
        _schedule_by_id(ResumeSchedule, "resume"),
        lambda id: ResumeSchedule(schedule_id=id),
        options=(_SCHEDULE_ID,),
        aliases=("unpause",),
        example=Example("schedule resume 3", {"id": 3}),
    ),
    CommandSpec(
        ("schedule", "next"),
        (Access(NextSchedule),),
        words.DESCRIBE_SCHEDULE_NEXT,
        _takes_nothing(NextSchedule(), words.schedule_next_takes_nothing),
        NextSchedule,
        example=Example("schedule next"),
    ),
    CommandSpec(
        ("flags", "list"),
        (Access(ListFlags, _LEAD, "see flagged questions"),),
        words.DESCRIBE_FLAGS_LIST,
        _parse_list_flags,
        ListFlags,
        aliases=("ls", "show"),
        example=Example("flags list"),
    ),
    CommandSpec(
        ("flags", "clear"),
        (Access(ClearFlags, _LEAD, "clear flags"),),
        words.DESCRIBE_FLAGS_CLEAR,
        _parse_clear_flags,
        lambda question: ClearFlags(pack_id=question.pack_id, question_key=question.key),
        options=(Option("question", words.OPTION_QUESTION, question_ref, required=True),),
        aliases=("resolve", "unflag"),
        example=Example("flags clear data-parallelism/dp-gpu-holds", {"question": "data-parallelism/dp-gpu-holds"}),
    ),
    CommandSpec(
        ("cohort", "create"),
        (Access(CreateCohort),),
        words.DESCRIBE_COHORT_CREATE,
        _parse_create,
        lambda name, start, packs, deliver: CreateCohort(name=name, start=start, packs=packs or (), delivery=deliver),
        options=(
            _COHORT_OPTION,
            Option("start", words.OPTION_START, start_date),
            Option(
                "packs",
                words.OPTION_CURRICULUM,
                lambda text: curriculum(_items(text)),
                autocomplete=Autocomplete.PACK_LIST,
            ),
            _DELIVER,
        ),
        aliases=("new",),
        example=Example("cohort create spring-26 start:2026-03-02", {"name": "spring-26", "start": "2026-03-02"}),
    ),
    CommandSpec(
        ("cohort", "join"),
        (Access(JoinCohort),),
        words.DESCRIBE_COHORT_JOIN,
        _cohort_named(JoinCohort, "join"),
        JoinCohort,
        options=(_COHORT_OPTION,),
        example=Example("cohort join spring-26", {"name": "spring-26"}),
    ),
    CommandSpec(
        ("cohort", "leave"),
        (Access(LeaveCohort),),
        words.DESCRIBE_COHORT_LEAVE,
        _cohort_named(LeaveCohort, "leave"),
        LeaveCohort,
        options=(_COHORT_OPTION,),
        example=Example("cohort leave spring-26", {"name": "spring-26"}),
    ),
    CommandSpec(
        ("cohort", "add"),
        (Access(AddToCohort, _CREATOR, "add members"),),
        words.DESCRIBE_COHORT_ADD,
        lambda args: AddToCohort(*_parse_members("add", args)),
        lambda name, members: AddToCohort(name=name, users=members),
        options=(_COHORT_OPTION, Option("members", words.OPTION_MEMBERS, _members("add"), required=True)),
        example=Example("cohort add spring-26 <@1002>", {"name": "spring-26", "members": "<@1002>"}),
    ),
    CommandSpec(
        ("cohort", "remove"),
        (Access(RemoveFromCohort, _CREATOR, "remove members"),),
        words.DESCRIBE_COHORT_REMOVE,
        lambda args: RemoveFromCohort(*_parse_members("remove", args)),
        lambda name, members: RemoveFromCohort(name=name, users=members),
        options=(_COHORT_OPTION, Option("members", words.OPTION_MEMBERS, _members("remove"), required=True)),
        aliases=("kick",),
        example=Example("cohort remove spring-26 1004", {"name": "spring-26", "members": "1004"}),
    ),
    CommandSpec(
        ("cohort", "list"),
        (Access(ListCohorts),),
        words.DESCRIBE_COHORT_LIST,
        _takes_nothing(ListCohorts(), words.cohort_list_takes_nothing),
        ListCohorts,
        aliases=("ls",),
        example=Example("cohort list"),
    ),
    CommandSpec(
        ("cohort", "show"),
        (Access(ShowCohort),),
        words.DESCRIBE_COHORT_SHOW,
        _cohort_named(ShowCohort, "show"),
        ShowCohort,
        options=(_COHORT_OPTION,),
        aliases=("info",),
        example=Example("cohort show spring-26", {"name": "spring-26"}),
    ),
    CommandSpec(
        ("cohort", "next"),
        (Access(PostCohortQuestion, _CREATOR, "post for it"),),
        words.DESCRIBE_COHORT_NEXT,
        _cohort_named(PostCohortQuestion, "next"),
        PostCohortQuestion,
        options=(_COHORT_OPTION,),
        example=Example("cohort next spring-26", {"name": "spring-26"}),
    ),
    CommandSpec(
        ("cohort", "remind"),
        (Access(RemindCohort, _CREATOR, "remind its members"),),
        words.DESCRIBE_COHORT_REMIND,
        _cohort_named(RemindCohort, "remind"),
        RemindCohort,
        options=(_COHORT_OPTION,),
        aliases=("nudge",),
        example=Example("cohort remind spring-26", {"name": "spring-26"}),
    ),
    CommandSpec(
        ("cohort", "set"),
        (Access(SetCohort, _CREATOR, "change how it is delivered"),),
        words.DESCRIBE_COHORT_SET,
        _parse_set,
        lambda name, deliver: SetCohort(name=name, delivery=deliver),
        options=(_COHORT_OPTION, dataclasses.replace(_DELIVER, required=True)),
        example=Example("cohort set spring-26 deliver:dm", {"name": "spring-26", "deliver": "dm"}),
    ),
    CommandSpec(
        ("cohort", "delete"),
        (Access(DeleteCohort, _CREATOR, "delete it", confirm=True),),
        words.DESCRIBE_COHORT_DELETE,
        _cohort_named(DeleteCohort, "delete"),
        DeleteCohort,
        options=(_COHORT_OPTION,),
        example=Example("cohort delete spring-26", {"name": "spring-26"}),
    ),
    CommandSpec(
        ("season", "start"),
        (Access(StartSeason, _LEAD, "start seasons"),),
        words.DESCRIBE_SEASON_START,
        _parse_start_season,
        lambda name, until: StartSeason(name=name, until=until),
        options=(
            Option("name", words.OPTION_SEASON, season_name, required=True),
            Option("until", words.OPTION_UNTIL, season_until),
        ),
        aliases=("new", "begin"),
        example=Example("season start q1", {"name": "q1"}),
    ),
    CommandSpec(
        ("season", "end"),
        (Access(EndSeason, _LEAD, "end seasons", confirm=True),),
        words.DESCRIBE_SEASON_END,
        _takes_nothing(EndSeason(), season_words.end_takes_nothing),
        EndSeason,
        aliases=("stop", "finish"),
        example=Example("season end"),
    ),
    CommandSpec(
        ("season", "list"),
        (Access(ListSeasons),),
        words.DESCRIBE_SEASON_LIST,
        _takes_nothing(ListSeasons(), season_words.list_takes_nothing),
        ListSeasons,
        aliases=("ls", "show"),
        example=Example("season list"),
    ),
)
"""Every group's actions (`/quiz schedule|flags|cohort|season ...`), group by group, in the order Discord shows."""


@dataclass(frozen=True, slots=True)
class GroupSpec:
    """A group of actions (`/quiz cohort ...`): its other names, what it means alone, and its refusal for a word
    that is none of its actions (given the word and the actions, from the specs)."""

    name: str
    bare: Callable[[], Command]
    unknown: Callable[[str, Sequence[str]], CommandError]
    aliases: tuple[str, ...] = ()


def _schedule_needs_action() -> Command:
    raise CommandError(words.schedule_needs_action)


def _not_a_settings_action(word: str, actions: Sequence[str]) -> CommandError:
    """`/quiz settings WORD ...`: a setting's key without the scope (`/quiz settings timezone UTC`) is told to say
    whose setting it changes; any other word, the actions."""
    if word.casefold() in {key.value for key in KEYS}:
        return CommandError(settings_words.say_whose_setting, key=word.casefold())
    return CommandError(settings_words.not_a_settings_action, word=word, actions=actions)


GROUPS: tuple[GroupSpec, ...] = (
    GroupSpec(
        "schedule",
        _schedule_needs_action,
        lambda word, actions: CommandError(words.not_a_schedule_action, word=word, nearest=nearest(word, actions)),
        aliases=("schedules", "sched"),
    ),
    GroupSpec(
        "flags",
        ListFlags,
        lambda word, actions: CommandError(flag_words.not_a_flags_action, word=word, nearest=nearest(word, actions)),
    ),
    GroupSpec(
        "cohort",
        ListCohorts,
        lambda word, actions: CommandError(
            words.not_a_cohort_command, word=word, nearest=nearest(word, actions), actions=actions
        ),
        aliases=("cohorts",),
    ),
    GroupSpec(
        "season",
        ListSeasons,
        lambda word, actions: CommandError(
            season_words.not_a_season_action, word=word, usage=help_words.usage("season")
        ),
        aliases=("seasons",),
    ),
    GroupSpec(
        "role",
        ListRoles,
        lambda word, actions: CommandError(role_words.not_a_role_action, word=word, actions=actions),
        aliases=("roles",),
    ),
    GroupSpec(
        "settings",
        ShowSettings,
        _not_a_settings_action,
        aliases=("setting", "config"),
    ),
    GroupSpec(
        "drafts",
        ListDrafts,
        lambda word, actions: CommandError(draft_words.not_a_drafts_action, word=word, actions=actions),
        aliases=("draft",),
    ),
)
"""The groups of actions; a group's actions are the specs whose path starts with its name."""
