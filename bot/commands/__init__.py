"""The `/quiz` commands: their dataclasses, the one text grammar every adapter uses, and each command's one
declaration (`SPECS`, shaped by bot/commandspec.py), from which the grammar's dispatch tables, `/quiz help`, the
permissions, confirmations and the Discord tree are read.

One module per job: `types` (the command dataclasses and the `Command` union), `arguments` (the argument
validators), `parsers` (each command's words to its command), `groups` (the groups' actions and the groups), `specs`
(the top-level commands, `SPECS` and the tables read from them) and `grammar` (text to a command, help, the usage
hint). Everything public is importable from `bot.commands`: the command types by the star import below (a new
command's dataclass in types.py needs no line here), the rest by name."""

from bot.commands.arguments import (
    CLOSE_MAX,
    CLOSE_MIN,
    close_after,
    cohort_name,
    curriculum,
    delivery_mode,
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
from bot.commands.grammar import COMMAND_TEXT_MAX, HINT_LIMIT, help_lines, help_message, parse_command, usage_hint
from bot.commands.groups import ACTIONS, GROUPS, GroupSpec
from bot.commands.specs import ACCESS, SPECS, SUBCOMMANDS, TOP_LEVEL, help_topic
from bot.commands.types import *  # noqa: F403  (every command type: a new one needs no line here)
from bot.domain.windows import Scope, Window

__all__ = [
    "ACCESS",
    "ACTIONS",
    "CLOSE_MAX",
    "CLOSE_MIN",
    "COMMAND_TEXT_MAX",
    "GROUPS",
    "HINT_LIMIT",
    "SPECS",
    "SUBCOMMANDS",
    "TOP_LEVEL",
    "GroupSpec",
    "Scope",
    "Window",
    "close_after",
    "cohort_name",
    "curriculum",
    "delivery_mode",
    "help_lines",
    "help_message",
    "help_topic",
    "leaderboard_cohort",
    "leaderboard_scope",
    "leaderboard_window",
    "members_usage",
    "parse_command",
    "question_ref",
    "schedule_id",
    "schedule_packs",
    "season_name",
    "season_until",
    "start_date",
    "usage_hint",
    "user_ids",
]
