"""The Slack adapter's settings (QUIZBOT_SLACK_*), its doctor checks and its words for a start Slack refused.

Cheap to import (pydantic only): the core loads it through the plugin to validate settings and run `doctor`.
"""

from __future__ import annotations

import re

from pydantic import Field, SecretStr, field_validator, model_validator

from bot.plugins import AdapterSettings, Finding, StartFailure, StartWords, cannot_listen, split_commas
from bot.wording import operator as operator_words
from bot.wording import slack as words

_SLACK_SECRET = re.compile(r"^[0-9a-f]{32}$")
AUTH_ERRORS = {"invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired"}


class SlackSettings(AdapterSettings):
    """Slack credentials and where HTTP mode listens. A bot token turns the adapter on."""

    slack_bot_token: SecretStr | None = None
    slack_app_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_host: str = "0.0.0.0"
    slack_port: int = Field(default=3000, ge=0, le=65535, description=words.setting_description("slack_port"))
    slack_api_url: str | None = Field(default=None, description=words.setting_description("slack_api_url"))
    slack_admin_user_ids: list[str] | None = Field(
        default=None, description=words.setting_description("slack_admin_user_ids")
    )

    slack_ack_deadline: float = Field(
        default=2.0,
        gt=0.0,
        le=2.8,
        description=words.setting_description("slack_ack_deadline"),
    )

    _split = field_validator("slack_admin_user_ids", mode="before")(split_commas)

    @model_validator(mode="after")
    def _complete(self) -> SlackSettings:
        if (self.slack_app_token or self.slack_signing_secret) and not self.slack_bot_token:
            raise ValueError(words.bot_token_required())
        if self.slack_app_token and not self.slack_app_token.get_secret_value().startswith("xapp-"):
            raise ValueError(words.app_token_shape())
        return self

    def configured(self) -> bool:
        """Whether Slack credentials are present."""
        return self.slack_bot_token is not None

    def clock_url(self) -> str | None:
        """Slack's api.test (no token needed), at QUIZBOT_SLACK_API_URL when set: its Date is Slack's time."""
        if self.slack_bot_token is None:
            return None
        return f"{self.slack_api_url or 'https://slack.com/api/'}api.test"

    async def online_findings(self) -> list[Finding]:
        """auth.test, the granted scopes against the manifest's, and Socket Mode's app-level token (adapters/slack/
        doctor.py, which loads slack_sdk)."""
        from adapters.slack.doctor import online_findings  # noqa: PLC0415 - the platform library only when asked

        return await online_findings(self)

    def start_refusal(self) -> str | None:
        """No bot token, or neither mode's credential (QUIZBOT_ADAPTERS asked for Slack without them): the adapter
        could not start, and saying so first leaves the database untouched. A user token (xoxp-) where the bot
        token belongs: Slack would accept it, and the bot would act as that person."""
        if self.slack_bot_token is None:
            return words.adapter_needs_bot_token()
        if self.slack_app_token is None and self.slack_signing_secret is None:
            return words.adapter_needs_mode()
        if self.slack_bot_token.get_secret_value().startswith("xoxp-"):
            return operator_words.slack_user_token("QUIZBOT_SLACK_BOT_TOKEN")
        return None

    def findings(self) -> list[Finding]:
        """The token's shape and which mode (Socket or HTTP) the settings select."""
        if self.slack_bot_token is None:
            return []
        findings = []
        if self.slack_bot_token.get_secret_value().startswith("xoxb-"):
            findings.append(Finding("ok", words.check_bot_token(), words.bot_token_looks_right()))
        else:
            findings.append(
                Finding(
                    "fail",
                    words.check_bot_token(),
                    words.bot_token_wrong_shape(),
                    words.bot_token_fix(),
                )
            )
        if self.slack_app_token is not None:
            findings.append(Finding("ok", words.check_mode(), words.socket_mode()))
        elif self.slack_signing_secret is not None:
            if _SLACK_SECRET.match(self.slack_signing_secret.get_secret_value()):
                findings.append(Finding("ok", words.check_mode(), words.http_mode(self.slack_port)))
            else:
                findings.append(
                    Finding(
                        "fail",
                        words.check_signing_secret(),
                        words.signing_secret_wrong_shape(),
                        words.signing_secret_fix(),
                    )
                )
        else:
            findings.append(
                Finding(
                    "fail",
                    words.check_mode(),
                    words.no_mode(),
                    words.no_mode_fix(),
                )
            )
        return findings


START_WORDS = StartWords(
    platform="Slack",
    setting="QUIZBOT_SLACK_BOT_TOKEN",
    refused_fix=words.start_refused_fix(),
    unreachable_fix=words.start_unreachable_fix(),
)


def classify(exc: BaseException) -> StartFailure | None:
    """slack_sdk's SlackApiError, by class name: its error code says whether the token was refused; HTTP mode's port
    that cannot be had (in use, privileged) is QUIZBOT_SLACK_PORT's, not the network's."""
    if (bind := cannot_listen(exc)) is not None:
        return StartFailure(
            "listen",
            detail=operator_words.cannot_listen_for("Slack's requests", bind.strerror or str(bind)),
            setting="QUIZBOT_SLACK_PORT",
            fix=operator_words.free_port_fix("QUIZBOT_SLACK_PORT"),
        )
    if "SlackApiError" not in {cls.__name__ for cls in type(exc).__mro__}:
        return None
    response = getattr(exc, "response", None)
    error = response.get("error") if response is not None else None
    setting = "QUIZBOT_SLACK_APP_TOKEN" if "apps.connections.open" in str(exc) else None  # Socket Mode's token
    return StartFailure("refused" if error in AUTH_ERRORS else "answered", detail=str(error), setting=setting)
