"""Seasons: `/quiz season start|end|list`, their refusals, and the final board each channel gets at a season's end."""

from __future__ import annotations

from datetime import date

from bot.domain import Leaderboard
from bot.domain.views import SeasonEnded, SeasonView
from bot.ports import Message
from bot.wording.i18n import echo, percent, plural
from bot.wording.i18n import translate as _

# --- the grammar ------------------------------------------------------------------------------------------------


def not_a_season_name(text: str) -> str:
    """A season name that is not one."""
    return _(
        "`{text}` is not a season name: use 1 to 40 letters a-z or A-Z, digits, `-`, `_` or `.`, starting with a "
        "letter or digit (e.g. `2027-q1`).",
        text=echo(text),
    )


def not_a_date(text: str) -> str:
    """`until:` with something that is not a date."""
    return _("`{text}` is not a date: write it as YYYY-MM-DD, e.g. `until:2027-03-31`.", text=echo(text))


def name_the_season() -> str:
    """`/quiz season start` without a name."""
    return _("Name the season: `/quiz season start NAME [until:YYYY-MM-DD]`.")


def not_a_season_option(arg: str) -> str:
    """An option `/quiz season start` does not know."""
    return _("`{arg}` is not a season option. Try `/quiz season start NAME [until:YYYY-MM-DD]`.", arg=echo(arg))


def end_takes_nothing() -> str:
    """`/quiz season end` with arguments."""
    return _("`/quiz season end` takes no arguments: it ends the season that is running.")


def list_takes_nothing() -> str:
    """`/quiz season list` with arguments."""
    return _("`/quiz season list` takes no arguments.")


def not_a_season_action(word: str, usage: str) -> str:
    """`/quiz season WORD` for a word that is no season action."""
    return _("`{word}` is not a season command. Try `{usage}`.", word=echo(word), usage=usage)


# --- replies and refusals ---------------------------------------------------------------------------------------


def started_message(view: SeasonView) -> Message:
    """The reply to `/quiz season start` (the channel sees it)."""
    title = (
        _("Season {name} has started: it runs through {until}.", name=view.name, until=view.until.isoformat())
        if view.until is not None
        else _("Season {name} has started.", name=view.name)
    )
    return Message(
        title,
        (
            _("Everyone starts from zero on `/quiz leaderboard season`; all-time totals are unchanged."),
            _("An admin ends it with `/quiz season end`; each channel then gets its final board."),
        ),
    )


def already_running(name: str, since: date) -> str:
    """`/quiz season start` while one runs."""
    return _(
        "Season {name} is running (since {since}); end it with `/quiz season end` before starting another.",
        name=name,
        since=since.isoformat(),
    )


def name_taken(name: str) -> str:
    """`/quiz season start NAME` for a name already used in the workspace."""
    return _("There already was a season called {name} here; pick another name.", name=name)


def until_in_the_past(until: date, today: date) -> str:
    """`until:` before today."""
    return _(
        "`until:{until}` is in the past (today is {today}); give the season's last day, today or later.",
        until=until.isoformat(),
        today=today.isoformat(),
    )


def none_running() -> str:
    """A season board or `/quiz season end` while no season runs."""
    return _(
        "No season is running. An admin starts one with `/quiz season start NAME`; `/quiz season list` shows past "
        "ones, and `/quiz leaderboard season NAME` their boards."
    )


def unknown_season(name: str, names: list[str]) -> str:
    """A season name that is not one of the workspace's."""
    if not names:
        return _("There is no season called {name} here, and no season yet.", name=name)
    return _("There is no season called {name} here. Seasons: {names}.", name=name, names=", ".join(names))


def ended_message(ended: SeasonEnded) -> Message:
    """The reply to a confirmed `/quiz season end`."""
    lines = [
        _("Its final board went to {channels}.", channels=plural(ended.posted, "channel"))
        if ended.posted
        else _("No channel had answers in it, so there is no final board to post.")
    ]
    if ended.failed:
        lines.append(_("{channels} could not be posted to.", channels=plural(ended.failed, "channel")))
    lines.append(_("Its board stays at `/quiz leaderboard season {name}`.", name=ended.name))
    return Message(_("Season {name} has ended.", name=ended.name), tuple(lines))


def end_prompt(name: str, since: date) -> Message:
    """What `/quiz season end` asks before it ends the season."""
    return Message(
        _("End season {name} (running since {since}) now?", name=name, since=since.isoformat()),
        (_("Each channel with answers in it gets its final board; the season can't be restarted."),),
    )


def end_label() -> str:
    """The confirm button of `/quiz season end`."""
    return _("End the season")


def listing(views: list[SeasonView]) -> Message:
    """The reply to `/quiz season list`: the running season first, then past ones, newest first."""
    if not views:
        return Message(_("No seasons yet."), (_("An admin starts one with `/quiz season start NAME`."),))
    lines = []
    for view in views:
        if view.ended is None and view.until is not None:
            lines.append(
                _(
                    "{name} — running since {start}, through {until}",
                    name=view.name,
                    start=view.started.isoformat(),
                    until=view.until.isoformat(),
                )
            )
        elif view.ended is None:
            lines.append(_("{name} — running since {start}", name=view.name, start=view.started.isoformat()))
        else:
            lines.append(
                _(
                    "{name} — {start} to {end}",
                    name=view.name,
                    start=view.started.isoformat(),
                    end=view.ended.isoformat(),
                )
            )
    lines.append(_("See a season's board with `/quiz leaderboard season NAME`."))
    return Message(_("Seasons"), tuple(lines))


def final_board_message(board: Leaderboard) -> Message:
    """What a channel gets when a season ends: its top three of the season."""
    medals = ("1st", "2nd", "3rd")
    lines = [
        _(
            "{place}: {name} — {points} pts · {correct}/{answered} correct ({accuracy})",
            place=_(medals[row.rank - 1]) if row.rank <= len(medals) else str(row.rank),
            name=row.name,
            points=row.points,
            correct=row.correct,
            answered=row.answered,
            accuracy=percent(row.accuracy),
        )
        for row in board.rows
    ]
    lines.append(_("All-time totals carry on; `/quiz leaderboard season {name}` keeps this board.", name=board.season))
    return Message(_("Season {name} is over. This channel's top three:", name=board.season), tuple(lines))
