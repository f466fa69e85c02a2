"""Settings in chat, in words: `/quiz settings` (the effective values and where each comes from, one scope, a change,
the history, the settings form), the refusal of each value that is not allowed, and the refusals the settings cause
(`/quiz now` for leads only, a reveal left to the schedule).

The operator's QUIZBOT_* settings are worded in bot/wording/settings.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta

from bot.domain.settings import (
    LIMIT_MAX,
    NO_CLOSE,
    EffectiveSettings,
    SettingChange,
    SettingKey,
    SettingScope,
    Source,
)
from bot.ports import Message
from bot.wording.i18n import echo, plural
from bot.wording.i18n import translate as _
from bot.wording.times import duration

SETTINGS_USAGE = "/quiz settings [channel|workspace] [KEY VALUE|KEY default|edit] | settings history"

DESCRIBE_SHOW = "This channel's settings and where each comes from"
DESCRIBE_CHANNEL = "Show or change this channel's settings"
DESCRIBE_WORKSPACE = "Show or change the workspace's settings"
DESCRIBE_HISTORY = "The latest changes of settings, with who and when"
OPTION_SCOPE = "channel or workspace: only what that one sets"
OPTION_KEY = "The setting to change, or edit to open a form"
OPTION_VALUE = "Its new value, or default to inherit it again"

_LABELS: Mapping[SettingKey, str] = {
    SettingKey.TIMEZONE: "Timezone of new schedules",
    SettingKey.NOW_POSTERS: "Who may /quiz now (anyone, leads)",
    SettingKey.NOW_COOLDOWN: "Cooldown between /quiz now (e.g. 2m, 0)",
    SettingKey.NOW_LIMIT: "Open /quiz now questions at most (0: any)",
    SettingKey.CLOSE_AFTER: "Questions close after (e.g. 30m, none)",
    SettingKey.REVEAL: "Early reveals (leads, schedule, anyone)",
    SettingKey.SPEED_POINTS: "Speed points (on, off)",
    SettingKey.COHORT_PRIVATE: "New cohorts by direct message (on, off)",
    SettingKey.LANGUAGE: "Language (e.g. en, de, pt-BR)",
}
"""Each key's label in the settings form (at most 45 characters) and beside its value."""

_ALLOWED: Mapping[SettingKey, str] = {
    SettingKey.TIMEZONE: "an IANA timezone such as `Europe/Helsinki` or `UTC`",
    SettingKey.NOW_POSTERS: "`anyone` or `leads`",
    SettingKey.NOW_COOLDOWN: "a duration up to 24 h such as `90s`, `2m`, `1h`, or `0` for none",
    SettingKey.NOW_LIMIT: "a number from 0 (no limit) to {most}",
    SettingKey.CLOSE_AFTER: "a duration from 1 min to 7 d such as `30m` or `2h`, or `none`",
    SettingKey.REVEAL: "`leads` (a schedule's questions early by leads only), `schedule` (only by their schedule) "
    "or `anyone`",
    SettingKey.SPEED_POINTS: "`on` or `off`",
    SettingKey.COHORT_PRIVATE: "`on` (new cohorts by direct message) or `off` (in the channel)",
    SettingKey.LANGUAGE: "a language tag such as `en`, `de`, `fr` or `pt-BR`",
}


def label(key: SettingKey) -> str:
    """A key's short label (the settings form's, at most 45 characters)."""
    return _(_LABELS[key])


def allowed(key: SettingKey) -> str:
    """What a key accepts, as a phrase."""
    return _(_ALLOWED[key], most=LIMIT_MAX)


def value_words(key: SettingKey, text: str) -> str:
    """A stored value as people read it (`120` seconds as `2 min`, `none`, `on`)."""
    if key is SettingKey.NOW_COOLDOWN:
        seconds = int(text) if text.isdigit() else 0
        return duration(timedelta(seconds=seconds)) if seconds else _("none")
    if key is SettingKey.CLOSE_AFTER:
        return _("none (open until revealed)") if text == NO_CLOSE else duration(timedelta(seconds=int(text)))
    if key is SettingKey.NOW_LIMIT and text == "0":
        return _("no limit")
    return text


def form_value(key: SettingKey, text: str) -> str:
    """A stored value as the settings form shows it, in a form it reads back (`2m`, `none`, `on`)."""
    if key is SettingKey.NOW_COOLDOWN or (key is SettingKey.CLOSE_AFTER and text != NO_CLOSE):
        seconds = int(text)
        for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
            if seconds and seconds % size == 0:
                return f"{seconds // size}{unit}"
        return f"{seconds}s" if seconds else "0"
    return text


def _source(source: Source) -> str:
    return {
        Source.CHANNEL: _("set for this channel"),
        Source.WORKSPACE: _("set for the workspace"),
        Source.DEFAULT: _("default"),
    }[source]


def _scope(scope: SettingScope) -> str:
    return _("this channel") if scope is SettingScope.CHANNEL else _("the workspace")


# --- the grammar ------------------------------------------------------------------------------------------------


def not_a_settings_action(word: str, actions: Sequence[str]) -> str:
    """`/quiz settings WORD` where WORD is no action."""
    return _(
        "`{word}` is not something `/quiz settings` does; say {actions}.",
        word=echo(word),
        actions=", ".join(f"`{action}`" for action in actions),
    )


def say_whose_setting(key: str) -> str:
    """`/quiz settings KEY ...` without `channel` or `workspace`."""
    return _(
        "Say whose `{key}` to change: `/quiz settings channel {key} VALUE` for this channel (leads) or "
        "`/quiz settings workspace {key} VALUE` for the workspace (admins); `/quiz settings` shows them.",
        key=key,
    )


def not_a_key(word: str, nearest: Sequence[str]) -> str:
    """A key that is none of the settings (with the nearest ones)."""
    hint = " " + _("Did you mean {names}?", names=", ".join(f"`{n}`" for n in nearest)) if nearest else ""
    return _(
        "`{word}` is not a setting.{hint} The settings are {keys}.",
        word=echo(word),
        hint=hint,
        keys=", ".join(f"`{key.value}`" for key in SettingKey),
    )


def scope_usage(scope: str) -> str:
    """`/quiz settings channel|workspace` with a key and no value, or too many words."""
    return _(
        "Say `/quiz settings {scope} KEY VALUE` to change a setting, `/quiz settings {scope} KEY default` to inherit "
        "it again, or `/quiz settings {scope} edit` for a form.",
        scope=scope,
    )


def needs_value(key: SettingKey, scope: str) -> str:
    """`/quiz settings channel|workspace KEY` without a value."""
    return _(
        "`{key}` needs a value: say {what}, or `default` to inherit it again (`/quiz settings {scope} {key} VALUE`).",
        key=key.value,
        what=allowed(key),
        scope=scope,
    )


def not_a_scope(word: str) -> str:
    """`/quiz settings show WORD` where WORD is no scope."""
    return _("`{word}` is not a scope: say `channel` or `workspace`.", word=echo(word))


def not_a_page(word: str, pages: int) -> str:
    """`/quiz settings channel edit WORD` where WORD is no page of the form."""
    return _(
        "`{word}` is not a page of the settings form: say a number from 1 to {pages}.", word=echo(word), pages=pages
    )


def history_takes_nothing() -> str:
    """`/quiz settings history` with more words."""
    return _("`/quiz settings history` takes no arguments.")


def not_allowed(key: str, word: str, what: str) -> str:
    """A value a key does not accept, and what it does."""
    return _("`{word}` is not allowed for `{key}`: say {what}.", word=echo(word), key=key, what=what)


def bad_value(key: SettingKey, word: str) -> str:
    """A value `key` does not accept."""
    return not_allowed(key.value, word, allowed(key))


# --- replies ----------------------------------------------------------------------------------------------------


def effective(settings: EffectiveSettings) -> Message:
    """`/quiz settings`: every key's value here and where it comes from."""
    lines = [
        _(
            "`{key}` {value} ({source})",
            key=key.value,
            value=value_words(key, settings.values[key]),
            source=_source(settings.sources[key]),
        )
        for key in SettingKey
    ]
    lines.append(
        _(
            "Change one with `/quiz settings channel KEY VALUE` (leads) or `/quiz settings workspace KEY VALUE` "
            "(admins); `/quiz settings history` shows who changed what."
        )
    )
    return Message(_("Settings here"), tuple(lines))


def scope_view(scope: SettingScope, own: Mapping[SettingKey, str], inherited: EffectiveSettings) -> Message:
    """`/quiz settings channel|workspace`: what one scope sets, and what it inherits for the rest."""
    lines = []
    for key in SettingKey:
        if key in own:
            lines.append(_("`{key}` {value}", key=key.value, value=value_words(key, own[key])))
        else:
            lines.append(
                _(
                    "`{key}` not set: inherits {value} ({source})",
                    key=key.value,
                    value=value_words(key, inherited.values[key]),
                    source=_source(inherited.sources[key]),
                )
            )
    title = _("Settings of this channel") if scope is SettingScope.CHANNEL else _("Settings of the workspace")
    return Message(title, tuple(lines))


def changed(scope: SettingScope, key: SettingKey, old: str | None, new: str | None) -> str:
    """One change made: old → new (or back to the inherited value)."""
    before = value_words(key, old) if old is not None else _("not set")
    if new is None:
        return _(
            "`{key}` for {scope}: {old} → not set (inherited again)", key=key.value, scope=_scope(scope), old=before
        )
    return _(
        "`{key}` for {scope}: {old} → {new}", key=key.value, scope=_scope(scope), old=before, new=value_words(key, new)
    )


def unchanged(scope: SettingScope, key: SettingKey, value: str | None) -> str:
    """A change to the value the key already has there."""
    now = value_words(key, value) if value is not None else _("not set")
    return _("`{key}` for {scope} is already {value}; nothing changed.", key=key.value, scope=_scope(scope), value=now)


def changes_message(lines: Sequence[str], *, next_page: str | None = None) -> Message:
    """The reply to a change (typed, or the settings form submitted)."""
    more = (_("The other settings: `{command}`", command=next_page),) if next_page else ()
    if not lines:
        return Message(_("Nothing changed."), more)
    return Message(_("Settings changed"), (*lines, *more))


def history(changes: Sequence[SettingChange]) -> Message:
    """`/quiz settings history`: the latest changes, newest first."""
    if not changes:
        return Message(_("No setting has been changed here yet."))
    lines = []
    for change in changes:
        where = _("the workspace") if change.scope is SettingScope.WORKSPACE else f"#{change.channel}"
        old = value_words(change.key, change.old) if change.old is not None else _("not set")
        new = value_words(change.key, change.new) if change.new is not None else _("not set")
        lines.append(
            _(
                "{at} {by}: `{key}` for {where}: {old} → {new}",
                at=change.at.strftime("%Y-%m-%d %H:%M UTC"),
                by=change.by,
                key=change.key.value,
                where=where,
                old=old,
                new=new,
            )
        )
    return Message(_("Latest changes of settings"), tuple(lines))


# --- the form ---------------------------------------------------------------------------------------------------


def form_title(scope: SettingScope, page: int, pages: int) -> str:
    """The settings form's title (at most 24 characters)."""
    name = _("Channel settings") if scope is SettingScope.CHANNEL else _("Workspace settings")
    return f"{name} {page}/{pages}" if pages > 1 else name


def form_submit() -> str:
    """The settings form's submit button."""
    return _("Save")


def form_hint(value: str, source: Source) -> str:
    """An empty field's placeholder: what it inherits."""
    return _("empty: inherits {value} ({source})", value=value, source=_source(source))


def form_opened(scope: SettingScope, page: int, pages: int) -> Message:
    """What the settings form says in words, for an adapter that cannot show a form."""
    return Message(
        _("The settings form of {scope} (page {page} of {pages}).", scope=_scope(scope), page=page, pages=pages),
        (
            _(
                "Leave a field empty to inherit its value; `/quiz settings {scope} KEY VALUE` changes one.",
                scope=scope.value,
            ),
        ),
    )


def edit_command(scope: SettingScope, page: int) -> str:
    """The command that opens page `page` of a scope's settings form."""
    return f"/quiz settings {scope.value} edit {page}"


def form_refused() -> Message:
    """A settings form submitted with values that are not allowed (the form shows which)."""
    return Message(_("Some values are not allowed; nothing was changed. The form says which."))


# --- what the settings refuse -----------------------------------------------------------------------------------


def now_leads_only() -> str:
    """`/quiz now` by a member where `now-posters` is `leads`."""
    return _("Only leads and admins can post a question on demand in this channel (setting `now-posters`).")


def reveal_by_schedule_only() -> str:
    """An early reveal of a scheduled or cohort question where `reveal` is `schedule`."""
    return _(
        "This question is revealed by its schedule only (setting `reveal` is `schedule`); an admin can still reveal it."
    )


# --- quizbot doctor ---------------------------------------------------------------------------------------------


def _default_words(key: SettingKey, default: str, variable: str | None) -> str:
    if variable is None:
        return _("default {value}", value=value_words(key, default))
    return _("default {value} ({variable})", value=value_words(key, default), variable=variable)


def doctor_setting(key: SettingKey, default: str, variable: str | None, workspaces: int, channels: int) -> str:
    """`quizbot doctor`: one setting's default and how many workspaces and channels set their own."""
    return _(
        "{key}: {default}; set by {workspaces} and {channels}",
        key=key.value,
        default=_default_words(key, default, variable),
        workspaces=plural(workspaces, "workspace"),
        channels=plural(channels, "channel"),
    )


def doctor_workspace_setting(
    key: SettingKey, default: str, variable: str | None, own: str | None, channels: Mapping[str, str]
) -> str:
    """`quizbot doctor --workspace`: one setting's value in the workspace, where it comes from, and the channels
    that set their own."""
    if own is None and variable is None:
        where = _("{value} (default)", value=value_words(key, default))
    elif own is None:
        where = _("{value} (default, {variable})", value=value_words(key, default), variable=variable)
    else:
        where = _("{value} (set for the workspace)", value=value_words(key, own))
    if not channels:
        return _("{key}: {where}", key=key.value, where=where)
    listed = ", ".join(f"{channel} {value_words(key, value)}" for channel, value in channels.items())
    return _("{key}: {where}; channels that set their own: {listed}", key=key.value, where=where, listed=listed)


def doctor_no_workspace(platform: str, workspace: str) -> str:
    """`quizbot doctor --workspace` naming a workspace the database has never seen."""
    return _(
        "no workspace {workspace} on {platform} in the database: it has not used the bot yet, so every setting is "
        "its default",
        platform=platform,
        workspace=workspace,
    )
