"""What a command handler of a service module hands back to QuizApp, which turns it into a Reply."""

from __future__ import annotations

from dataclasses import dataclass

from bot.ports import Message


@dataclass(frozen=True, slots=True)
class Outcome:
    """A message for the user who ran a command; `private` and `quiet` mean what they mean on Reply."""

    message: Message
    private: bool = True
    quiet: bool = False
