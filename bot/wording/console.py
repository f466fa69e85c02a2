"""The terminal adapter's own sentences: its greeting, its prompts and how it marks private and direct lines."""

from __future__ import annotations

from collections.abc import Sequence

from bot.wording.i18n import translate as _


def intro() -> str:
    """What the terminal says first."""
    return _(
        "quizbot in your terminal. `/quiz now` posts a question, a number answers it, `/quiz help` lists commands,\n"
        "`/as NAME` switches who you are, `/press N` presses a button of the last reply, `/quit` leaves."
    )


def nothing_to_read(platforms: Sequence[tuple[str, str]]) -> str:
    """Why `quizbot run` stops at once: no platform is configured and the terminal's input ended before any line.
    `platforms` are each platform's name and the setting that turns it on."""
    settings = " or ".join(_("{setting} ({platform})", setting=setting, platform=name) for name, setting in platforms)
    return _(
        "no chat platform is configured and the terminal's input ended before any line, so there is nothing to "
        "serve: set {settings} in the environment or in .env (.env.example lists every setting), or run it in a "
        "terminal (docker run -it) to play there",
        settings=settings,
    )


def answer_prompt() -> str:
    """Under a question: how to answer it."""
    return _("Type the number of your answer.")


def closed(prompt: str) -> str:
    """The first line of a reveal."""
    return _("🔔 Closed: {prompt}", prompt=prompt)


def only_for(name: str, title: str) -> str:
    """A line only one person is meant to see, marked as such."""
    return _("(only {name} sees this) {title}", name=name, title=title)


def direct_to(name: str, title: str) -> str:
    """A direct message to one person, marked as such."""
    return _("(direct message to {name}) {title}", name=name, title=title)


def session_ended() -> str:
    """Why nothing more can be printed."""
    return _("The terminal session has ended.")


def as_usage() -> str:
    """`/as` without a name."""
    return _("Usage: /as NAME")


def now_you_are(name: str) -> str:
    """After `/as NAME`."""
    return _("You are now {name}.", name=name)


def what_to_type() -> str:
    """A line the terminal does not understand."""
    return _(
        "Type a number to answer, `/quiz help` for commands, `/as NAME` to switch user, `/press N` to press a "
        "button, `/quit` to leave."
    )


def no_open_question() -> str:
    """A number typed with no question open."""
    return _("There is no open question. Post one with `/quiz now`.")


def pick_a_number(count: int) -> str:
    """A number out of range."""
    return _("Pick a number from 1 to {count}.", count=count)


def answering_newest(footer: str, post_id: int) -> str:
    """A number typed while several questions are open."""
    return _("Answering the newest open question: {footer}  [post {post_id}]", footer=footer, post_id=post_id)


def bye() -> str:
    """The last line."""
    return _("Bye.")


def user_setting_description() -> str:
    """QUIZBOT_CONSOLE_USER's description."""
    return _("Simulated user name in the terminal (default: $USER).")


def user_setting_blank() -> str:
    """QUIZBOT_CONSOLE_USER set to nothing (or spaces)."""
    return _("QUIZBOT_CONSOLE_USER is blank: set it to the name to play as, or unset it to use $USER")


def admins_setting() -> str:
    """What QUIZBOT_CONSOLE_ADMINS means (its description among the settings)."""
    return _(
        "Names that are admins at the terminal, separated by commas; unset, everyone is (others may be granted a "
        "role with `/quiz role grant NAME lead`)."
    )
