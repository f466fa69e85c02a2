"""The terminal adapter's settings: who you are (QUIZBOT_CONSOLE_USER) and who is an admin (QUIZBOT_CONSOLE_ADMINS)."""

from __future__ import annotations

from pydantic import Field, field_validator, model_validator

from bot.plugins import AdapterSettings, split_commas
from bot.wording import console as words


class ConsoleSettings(AdapterSettings):
    """The simulated user's name; unset means $USER."""

    console_user: str = Field(default="", description=words.user_setting_description())
    console_admins: list[str] | None = Field(
        default=None,
        description=words.admins_setting(),
    )

    _split = field_validator("console_admins", mode="before")(split_commas)

    @field_validator("console_user", mode="before")
    @classmethod
    def _trimmed(cls, value: object) -> object:
        return value.strip() if isinstance(value, str) else value

    @model_validator(mode="after")
    def _not_blank(self) -> ConsoleSettings:
        # Unset means "use $USER"; set to nothing (or spaces) is a mistake the terminal could only show as "".
        if "console_user" in self.model_fields_set and not self.console_user:
            raise ValueError(words.user_setting_blank())
        return self
