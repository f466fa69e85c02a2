"""Each `/quiz` command's one declaration (`SPECS`: the top-level commands here, the groups' actions in
bot/commands/groups.py) and the tables read from them: the permissions (`ACCESS`) and the text grammar's first words
(`SUBCOMMANDS`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.commands.arguments import cohort_name, leaderboard_scope, leaderboard_window, season_name
from bot.commands.drafts import DRAFT_SPECS
from bot.commands.groups import ACTIONS, GROUPS, GroupSpec
from bot.commands.parsers import (
    _no_args,
    _NotThisAction,
    _parse_flag,
    _parse_leaderboard,
    _parse_now,
    _parse_report,
    _parse_review,
    _typed_leaderboard,
)
from bot.commands.roles import ROLE_ACTIONS
from bot.commands.types import (
    AnswerReview,
    Command,
    FlagQuestion,
    ListPacks,
    PostNow,
    Reveal,
    ShowHelp,
    ShowLeaderboard,
    ShowMe,
    ShowReport,
    StartReview,
    Subcommand,
)
from bot.commandspec import Access, Autocomplete, Choice, CommandSpec, Example, Option, OptionKind, Permission, by_type
from bot.domain.flags import REASON_MAX, flag_reason
from bot.domain.names import nearest
from bot.domain.windows import Scope, Window
from bot.errors import CommandError
from bot.wording import boards as board_words
from bot.wording import commands as words
from bot.wording import help as help_words


def _window_choices() -> list[Choice]:
    return [Choice(board_words.window_words(window.value), window.value) for window in Window]


def _scope_choices() -> list[Choice]:
    return [Choice(words.scope_choice(scope.value), scope.value) for scope in Scope]


def _help_choices() -> list[Choice]:
    return [Choice(sub.name, sub.name) for sub in SUBCOMMANDS]


def help_topic(word: str) -> str:
    """The command `/quiz help WORD` explains (aliases resolved), or CommandError suggesting the nearest one."""
    folded = word.casefold()
    name = _ALIASES.get(folded, folded)
    names = [sub.name for sub in SUBCOMMANDS]
    if name in names:
        return name
    close = nearest(word, [*names, *_ALIASES])
    raise CommandError(
        words.unknown_help_topic, word=word, nearest=list(dict.fromkeys(_ALIASES.get(n, n) for n in close))
    )


def _parse_help(args: list[str]) -> Command:
    if len(args) > 1:
        raise CommandError(words.help_takes_one)
    return ShowHelp(topic=help_topic(args[0]) if args else None)


# --- the specs: one declaration per command ---------------------------------------------------------------------
# Each `/quiz` command is declared once (the top-level ones below, the groups' actions in groups.py): its path and
# other words, the command types it builds (with who may run them and whether they ask to confirm), its typed options
# and how its text and its typed options become its command. The grammar's dispatch tables, `/quiz help`, the
# permission check, confirmations and the Discord tree are all read from SPECS and GROUPS (bot/commandspec.py says
# how).

TOP_LEVEL: tuple[CommandSpec, ...] = (
    CommandSpec(
        ("now",),
        (Access(PostNow),),
        help_words.summary("now"),
        _parse_now,
        lambda pack: PostNow(pack=pack or None),
        options=(Option("pack", words.OPTION_PACK, autocomplete=Autocomplete.PACK),),
        aliases=("question",),
        example=Example("now data-parallelism", {"pack": "data-parallelism"}),
    ),
    CommandSpec(
        ("reveal",),
        (Access(Reveal, Permission.POSTER_OR_LEAD, "reveal it"),),
        help_words.summary("reveal"),
        _no_args("reveal", Reveal()),
        Reveal,
        example=Example("reveal"),
    ),
    CommandSpec(
        ("leaderboard",),
        (Access(ShowLeaderboard),),
        help_words.summary("leaderboard"),
        _parse_leaderboard,
        _typed_leaderboard,
        options=(
            Option("window", words.OPTION_WINDOW, leaderboard_window, choices=_window_choices),
            Option("scope", words.OPTION_SCOPE, leaderboard_scope, choices=_scope_choices),
            Option("cohort", words.OPTION_BOARD_COHORT, cohort_name),
            Option("season", words.OPTION_BOARD_SEASON, season_name),
        ),
        aliases=("lb", "top"),
        example=Example("leaderboard month workspace", {"window": "month", "scope": "workspace"}),
    ),
    CommandSpec(
        ("me",),
        (Access(ShowMe),),
        help_words.summary("me"),
        _no_args("me", ShowMe()),
        ShowMe,
        aliases=("stats",),
        example=Example("me"),
    ),
    CommandSpec(
        ("packs",),
        (Access(ListPacks),),
        help_words.summary("packs"),
        _no_args("packs", ListPacks()),
        ListPacks,
        example=Example("packs"),
    ),
    CommandSpec(
        ("review",),
        (Access(StartReview), Access(AnswerReview)),
        words.DESCRIBE_REVIEW,
        _parse_review,
        lambda answer: StartReview() if answer is None else AnswerReview(answer),
        options=(Option("answer", words.OPTION_ANSWER, int, kind=OptionKind.INTEGER, min_value=1, max_value=99),),
        example=Example("review 2", {"answer": 2}),
    ),
    CommandSpec(
        ("report",),
        (Access(ShowReport),),
        help_words.summary("report"),
        _parse_report,
        lambda cohort: ShowReport(cohort=cohort),
        options=(Option("cohort", words.OPTION_REPORT_COHORT, cohort_name),),
        example=Example("report cohort spring-26", {"cohort": "spring-26"}),
    ),
    CommandSpec(
        ("flag",),
        (Access(FlagQuestion),),
        help_words.summary("flag"),
        _parse_flag,
        lambda reason: FlagQuestion(reason=reason or None),
        options=(Option("reason", words.OPTION_REASON, flag_reason, values={"limit": REASON_MAX}),),
        free_text=True,
        example=Example("flag two choices are right", {"reason": "two choices are right"}),
    ),
    CommandSpec(
        ("help",),
        (Access(ShowHelp),),
        help_words.summary("help"),
        _parse_help,
        lambda command: ShowHelp(topic=command),
        options=(Option("command", words.OPTION_HELP, help_topic, choices=_help_choices),),
        aliases=("?",),
        example=Example("help schedule", {"command": "schedule"}),
    ),
)

SPECS: tuple[CommandSpec, ...] = (
    *TOP_LEVEL,
    *ACTIONS,
    # A command added since goes here, at the end, so the options people know stay where they are in Discord.
    *ROLE_ACTIONS,
    *DRAFT_SPECS,
)
"""Every `/quiz` command, once, in the order Discord shows: the top-level commands, each group's actions, then
any command added since."""


ACCESS: dict[type[Any], Access] = by_type(SPECS)
"""Each command type's permission, refusal words and confirmation, from SPECS."""


def _actions_of(group: str) -> list[str]:
    """A group's actions, by their main word, in the specs' order."""
    return [spec.name for spec in SPECS if spec.group == group]


def _group_parser(group: GroupSpec) -> Callable[[list[str]], Command]:
    """The text grammar of a group: its bare meaning, an action by any of its words, or the group's refusal."""
    actions = {word: spec for spec in SPECS if spec.group == group.name for word in (spec.name, *spec.aliases)}

    def parse(args: list[str]) -> Command:
        if not args:
            return group.bare()
        spec = actions.get(args[0].casefold())
        if spec is None:
            raise group.unknown(args[0], _actions_of(group.name))
        try:
            command: Command = spec.parse(args[1:])
        except _NotThisAction:
            raise group.unknown(args[0], _actions_of(group.name)) from None
        return command

    return parse


def _top_level() -> dict[str, tuple[Callable[[list[str]], Command], tuple[str, ...]]]:
    """Each top-level word's parser and other names: a command's own, or its group's dispatcher."""
    found: dict[str, tuple[Callable[[list[str]], Command], tuple[str, ...]]] = {
        spec.name: (spec.parse, spec.aliases) for spec in SPECS if spec.group is None
    }
    for group in GROUPS:
        found[group.name] = (_group_parser(group), group.aliases)
    return found


_PARSERS = _top_level()
_FREE_TEXT = {spec.name: spec.free_text for spec in SPECS if spec.group is None}
SUBCOMMANDS: tuple[Subcommand, ...] = tuple(
    Subcommand(
        name, help_words.usage(name), help_words.summary(name), _PARSERS[name][0], free_text=_FREE_TEXT.get(name, False)
    )
    for name in help_words.COMMANDS
    if name in _PARSERS
)
"""The text grammar's first words, in `/quiz help`'s order, from SPECS and GROUPS (and their help words)."""
_ALIASES = {alias: name for name, (_, aliases) in _PARSERS.items() for alias in aliases}
