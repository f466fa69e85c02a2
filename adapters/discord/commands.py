"""The `/quiz` application command group.

Each subcommand only turns its options back into the text the core parser reads (`now data-parallelism`,
`leaderboard week cohort spring-26`, `schedule add weekdays 09:30 tz:Europe/Helsinki`) and hands it on: the
grammar lives once, in `bot/commands.py`, for every adapter. `/quiz schedule ...` and `/quiz cohort ...` are
nested groups, so Discord shows each action with its own typed options.
"""

from __future__ import annotations

import re
import shlex
from typing import Protocol

import discord
from discord import app_commands

from bot.commands import SUBCOMMANDS
from bot.domain.windows import Scope, Window

DESCRIPTION_LIMIT = 100
AUTOCOMPLETE_LIMIT = 25
CHOICE_LIMIT = 100
"""Discord's limit on an autocomplete choice's name and value."""

_LAST_ITEM = re.compile(r"(?P<head>.*[,\s])?(?P<last>[^,\s]*)", re.DOTALL)


class CommandHandler(Protocol):
    """What the command group hands its work to (the adapter)."""

    async def quiz_command(self, interaction: discord.Interaction[discord.Client], text: str) -> None:
        """Run `/quiz <text>` for this interaction and answer it."""
        ...

    def pack_choices(self, current: str) -> list[app_commands.Choice[str]]:
        """Packs matching what the user typed so far, for autocomplete."""
        ...


def _summary(name: str) -> str:
    """A subcommand's description, from the core's command table (so every platform says the same)."""
    summary = next(sub.summary for sub in SUBCOMMANDS if sub.name == name)
    return (summary[0].upper() + summary[1:])[:DESCRIPTION_LIMIT]


def _words(text: str | None) -> list[str]:
    """An option holding several words (a rule, pack ids, mentions) as the words a user would have typed."""
    return text.split() if text else []


def _items(text: str | None) -> list[str]:
    """A list option (`a, b c`) as its items: commas and spaces both separate."""
    return [item for item in re.split(r"[,\s]+", text or "") if item]


def _tagged(key: str, value: str | None) -> str | None:
    """A `key:value` word of the core grammar (`tz:Europe/Helsinki`), or nothing without a value."""
    return f"{key}:{value.strip()}" if value and value.strip() else None


WINDOW_CHOICES = [
    app_commands.Choice(name="this week", value=Window.WEEK.value),
    app_commands.Choice(name="this month", value=Window.MONTH.value),
    app_commands.Choice(name="all time", value=Window.ALL.value),
]
SCOPE_CHOICES = [
    app_commands.Choice(name="this channel", value=Scope.CHANNEL.value),
    app_commands.Choice(name="this server", value=Scope.WORKSPACE.value),
    app_commands.Choice(name="one cohort (name it in `cohort`)", value=Scope.COHORT.value),
    app_commands.Choice(name="cohort vs cohort", value=Scope.COHORTS.value),
]
HELP_CHOICES = [app_commands.Choice(name=sub.name, value=sub.name) for sub in SUBCOMMANDS]

WHEN = "When, e.g. `weekdays 09:30`, `mon,wed,fri 2pm` or cron `30 9 * * 1-5`"
PACKS = "Pack ids, separated by commas or spaces (default: every pack)"
TZ = "IANA timezone, e.g. Europe/Helsinki or America/New_York (default: the channel's)"
CLOSE = "Close each question after e.g. 30m, 2h, 1d (default: at the next one, at most 24 h)"
SCHEDULE_ID = "The schedule's id (`/quiz schedule list` shows them)"
COHORT = "The cohort's name, e.g. spring-26"
MEMBERS = "Members: mentions (@ann @ben) or user ids"


class QuizCommands(app_commands.Group):
    """`/quiz now|reveal|leaderboard|me|packs|review|report|help` and the groups `/quiz schedule`, `/quiz cohort`.

    `handler` is None when the group is built only to register it with Discord (`quizbot discord sync`).
    """

    def __init__(self, handler: CommandHandler | None) -> None:
        super().__init__(name="quiz", description="Quiz questions, answers and leaderboards")
        self.handler = handler

    async def _run(self, interaction: discord.Interaction[discord.Client], *words: str | None) -> None:
        text = " ".join(shlex.quote(word) for word in words if word)
        if self.handler is None:  # pragma: no cover - a registration-only group never receives interactions
            await interaction.response.send_message("quizbot is not running here.", ephemeral=True)
            return
        await self.handler.quiz_command(interaction, text)

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
        await self._run(interaction, "now", pack)

    @now.autocomplete("pack")
    async def _pack_autocomplete(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[str]]:
        return self._packs(current)

    @app_commands.command(name="reveal", description=_summary("reveal"))
    async def reveal(self, interaction: discord.Interaction[discord.Client]) -> None:
        """Close the channel's open question and show the answer."""
        await self._run(interaction, "reveal")

    @app_commands.command(name="leaderboard", description=_summary("leaderboard"))
    @app_commands.describe(
        window="Which answers count (default: all time)",
        scope="Whose answers (default: this channel)",
        cohort="The cohort to rank (picks the one-cohort scope), e.g. spring-26",
    )
    @app_commands.choices(window=WINDOW_CHOICES, scope=SCOPE_CHOICES)
    async def leaderboard(
        self,
        interaction: discord.Interaction[discord.Client],
        window: app_commands.Choice[str] | None = None,
        scope: app_commands.Choice[str] | None = None,
        cohort: str | None = None,
    ) -> None:
        """Show who leads: in the channel, the server, one cohort, or cohort vs cohort."""
        if cohort or (scope and scope.value == Scope.COHORT.value):
            where: list[str | None] = [Scope.COHORT.value, cohort]  # no name: the core asks which cohort
        else:
            where = [scope.value if scope else None]
        await self._run(interaction, "leaderboard", window.value if window else None, *where)

    @app_commands.command(name="me", description=_summary("me"))
    async def me(self, interaction: discord.Interaction[discord.Client]) -> None:
        """Show the caller's own record."""
        await self._run(interaction, "me")

    @app_commands.command(name="packs", description=_summary("packs"))
    async def packs(self, interaction: discord.Interaction[discord.Client]) -> None:
        """List the packs."""
        await self._run(interaction, "packs")

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
        await self._run(interaction, "review", str(answer) if answer is not None else None)

    @app_commands.command(name="report", description=_summary("report"))
    @app_commands.describe(cohort="Report on one cohort (default: the whole server)")
    async def report(self, interaction: discord.Interaction[discord.Client], cohort: str | None = None) -> None:
        """Post a short summary of the server or one cohort."""
        await self._run(interaction, "report", *(("cohort", cohort) if cohort else ()))

    @app_commands.command(name="help", description=_summary("help"))
    @app_commands.describe(command="Explain one command")
    @app_commands.choices(command=HELP_CHOICES)
    async def help(
        self, interaction: discord.Interaction[discord.Client], command: app_commands.Choice[str] | None = None
    ) -> None:
        """Show the commands."""
        await self._run(interaction, "help", command.value if command else None)

    # --- /quiz schedule ... --------------------------------------------------------------------------

    schedule = app_commands.Group(name="schedule", description=_summary("schedule"))

    @schedule.command(name="add", description="Post questions in this channel on a rule (admins)")
    @app_commands.describe(when=WHEN, packs=PACKS, tz=TZ, close=CLOSE)
    async def schedule_add(
        self,
        interaction: discord.Interaction[discord.Client],
        when: str,
        packs: str | None = None,
        tz: str | None = None,
        close: str | None = None,
    ) -> None:
        """Put this channel on a schedule."""
        await self._run(
            interaction, "schedule", "add", *_words(when), *_items(packs), _tagged("tz", tz), _tagged("close", close)
        )

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
        await self._run(interaction, "schedule", "list", "all" if everywhere else None)

    @schedule.command(name="remove", description="Delete a schedule; posted questions stay (admins)")
    @app_commands.describe(id=SCHEDULE_ID)
    async def schedule_remove(
        self, interaction: discord.Interaction[discord.Client], id: app_commands.Range[int, 1]
    ) -> None:
        """Delete a schedule."""
        await self._run(interaction, "schedule", "remove", str(id))

    @schedule.command(name="pause", description="Stop a schedule until it is resumed (admins)")
    @app_commands.describe(id=SCHEDULE_ID)
    async def schedule_pause(
        self, interaction: discord.Interaction[discord.Client], id: app_commands.Range[int, 1]
    ) -> None:
        """Pause a schedule."""
        await self._run(interaction, "schedule", "pause", str(id))

    @schedule.command(
        name="resume", description="Restart a paused schedule; missed questions are not caught up (admins)"
    )
    @app_commands.describe(id=SCHEDULE_ID)
    async def schedule_resume(
        self, interaction: discord.Interaction[discord.Client], id: app_commands.Range[int, 1]
    ) -> None:
        """Resume a schedule."""
        await self._run(interaction, "schedule", "resume", str(id))

    @schedule.command(name="next", description="When the next scheduled question is due in this channel")
    async def schedule_next(self, interaction: discord.Interaction[discord.Client]) -> None:
        """Show the next scheduled question."""
        await self._run(interaction, "schedule", "next")

    # --- /quiz cohort ... ----------------------------------------------------------------------------

    cohort = app_commands.Group(name="cohort", description=_summary("cohort"))

    @cohort.command(name="create", description="Create a cohort with a start date and a curriculum of packs")
    @app_commands.describe(
        name=COHORT,
        start="First day, as YYYY-MM-DD (default: today)",
        packs="Curriculum: pack ids in order, separated by commas (default: every pack)",
    )
    async def cohort_create(
        self,
        interaction: discord.Interaction[discord.Client],
        name: str,
        start: str | None = None,
        packs: str | None = None,
    ) -> None:
        """Create a cohort."""
        curriculum = ",".join(_items(packs)) or None
        await self._run(interaction, "cohort", "create", name, _tagged("start", start), _tagged("packs", curriculum))

    @cohort_create.autocomplete("packs")
    async def _cohort_packs_autocomplete(
        self, interaction: discord.Interaction[discord.Client], current: str
    ) -> list[app_commands.Choice[str]]:
        return self._pack_list(current)

    @cohort.command(name="join", description="Join a cohort")
    @app_commands.describe(name=COHORT)
    async def cohort_join(self, interaction: discord.Interaction[discord.Client], name: str) -> None:
        """Join a cohort."""
        await self._run(interaction, "cohort", "join", name)

    @cohort.command(name="leave", description="Leave a cohort")
    @app_commands.describe(name=COHORT)
    async def cohort_leave(self, interaction: discord.Interaction[discord.Client], name: str) -> None:
        """Leave a cohort."""
        await self._run(interaction, "cohort", "leave", name)

    @cohort.command(name="add", description="Add members to a cohort (admins and its creator)")
    @app_commands.describe(name=COHORT, members=MEMBERS)
    async def cohort_add(self, interaction: discord.Interaction[discord.Client], name: str, members: str) -> None:
        """Add members to a cohort."""
        await self._run(interaction, "cohort", "add", name, *_words(members))

    @cohort.command(name="remove", description="Remove members from a cohort (admins and its creator)")
    @app_commands.describe(name=COHORT, members=MEMBERS)
    async def cohort_remove(self, interaction: discord.Interaction[discord.Client], name: str, members: str) -> None:
        """Remove members from a cohort."""
        await self._run(interaction, "cohort", "remove", name, *_words(members))

    @cohort.command(name="list", description="The cohorts of this server")
    async def cohort_list(self, interaction: discord.Interaction[discord.Client]) -> None:
        """List the cohorts."""
        await self._run(interaction, "cohort", "list")

    @cohort.command(name="show", description="A cohort's members and their progress through its curriculum")
    @app_commands.describe(name=COHORT)
    async def cohort_show(self, interaction: discord.Interaction[discord.Client], name: str) -> None:
        """Show a cohort."""
        await self._run(interaction, "cohort", "show", name)

    @cohort.command(name="next", description="Post the cohort's next curriculum question here (admins and its creator)")
    @app_commands.describe(name=COHORT)
    async def cohort_next(self, interaction: discord.Interaction[discord.Client], name: str) -> None:
        """Post a cohort's next question."""
        await self._run(interaction, "cohort", "next", name)

    @cohort.command(name="delete", description="Delete a cohort; answers and points stay (admins and its creator)")
    @app_commands.describe(name=COHORT)
    async def cohort_delete(self, interaction: discord.Interaction[discord.Client], name: str) -> None:
        """Delete a cohort."""
        await self._run(interaction, "cohort", "delete", name)
