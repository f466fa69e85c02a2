"""Settings in chat (`/quiz settings ...`): see a channel's settings and where each comes from, change a channel's
(leads) or the workspace's (admins) by command or in a form, and the history of changes; and `effective_here`, the
settings that apply in a channel, which the other handlers read (no restart: each command reads them anew)."""

from __future__ import annotations

from bot.clock import Clock
from bot.commands import (
    ACCESS,
    ChangeChannelSettings,
    ChangeWorkspaceSettings,
    EditSettings,
    ShowSettings,
    ShowSettingsHistory,
)
from bot.commands.settings import setting_key, setting_value
from bot.domain import ChannelRef
from bot.domain.forms import Form, FormField, FormKind
from bot.domain.roles import Role
from bot.domain.settings import (
    VALUE_MAX,
    EffectiveSettings,
    Overrides,
    SettingDefaults,
    SettingKey,
    SettingScope,
    form_pages,
    inherited,
    resolve,
)
from bot.domain.text import whole_number
from bot.errors import CommandError, NotAllowed
from bot.service.facade import Context, Reply
from bot.service.handlers.routing import handles, role_of
from bot.service.uow import UnitOfWork
from bot.wording import chat_settings as words
from bot.wording import commands as command_words
from bot.wording.errors import admins_only


async def effective_here(uow: UnitOfWork, channel: ChannelRef, defaults: SettingDefaults) -> EffectiveSettings:
    """The settings that apply in `channel` now: its own, else its workspace's, else the defaults."""
    return resolve(defaults, await uow.settings.overrides(channel))


@handles(ShowSettings)
async def show_settings(
    command: ShowSettings, context: Context, uow: UnitOfWork, *, setting_defaults: SettingDefaults
) -> Reply:
    """`/quiz settings`: every setting here and where it comes from; `channel|workspace`: what one scope sets."""
    overrides = await uow.settings.overrides(context.channel)
    if command.scope is None:
        return Reply(words.effective(resolve(setting_defaults, overrides)))
    scope = command.scope
    return Reply(words.scope_view(scope, overrides.of(scope), inherited(setting_defaults, overrides, scope)))


@handles(ShowSettingsHistory)
async def show_history(command: ShowSettingsHistory, context: Context, uow: UnitOfWork, *, clock: Clock) -> Reply:
    """`/quiz settings history`: the workspace's latest changes, newest first."""
    channel = context.channel
    workspace = await uow.places.workspace_id(channel.platform, channel.workspace_id, clock.now())
    return Reply(words.history(await uow.settings.history(workspace)))


@handles(EditSettings)
async def edit_settings(
    command: EditSettings, context: Context, uow: UnitOfWork, *, setting_defaults: SettingDefaults
) -> Reply:
    """`/quiz settings channel|workspace edit [PAGE]`: the scope's settings form, prefilled with what it sets."""
    if command.scope is SettingScope.WORKSPACE and await role_of(context, uow) is not Role.ADMIN:
        raise NotAllowed(admins_only(command_words.action_words(ACCESS[ChangeWorkspaceSettings].action)))
    pages = len(form_pages())
    form = settings_form(command.scope, command.page, setting_defaults, await uow.settings.overrides(context.channel))
    return Reply(words.form_opened(command.scope, command.page, pages), form=form)


def settings_form(scope: SettingScope, page: int, defaults: SettingDefaults, overrides: Overrides) -> Form:
    """Page `page` of a scope's settings form: a field per key, prefilled with the scope's own value (empty: the
    key is inherited, and the placeholder says what it inherits). Its state is `SCOPE:PAGE`."""
    pages = form_pages()
    own = overrides.of(scope)
    above = inherited(defaults, overrides, scope)
    fields = tuple(
        FormField(
            key.value,
            words.label(key),
            value=words.form_value(key, own[key]) if key in own else "",
            hint=words.form_hint(words.value_words(key, above.values[key]), above.sources[key]),
            required=False,
            max_length=VALUE_MAX,
        )
        for key in pages[page - 1]
    )
    return Form(
        FormKind.SETTINGS,
        words.form_title(scope, page, len(pages)),
        words.form_submit(),
        fields,
        state=f"{scope.value}:{page}",
    )


def _form_page(state: str) -> int:
    page = whole_number(state.partition(":")[2])
    return page if page is not None and 1 <= page <= len(form_pages()) else 1


@handles(ChangeChannelSettings)
async def change_channel_settings(
    command: ChangeChannelSettings,
    context: Context,
    uow: UnitOfWork,
    *,
    clock: Clock,
    setting_defaults: SettingDefaults,
) -> Reply:
    """`/quiz settings channel KEY VALUE` (leads), or the channel's settings form submitted."""
    return await _change(
        SettingScope.CHANNEL,
        command.changes,
        form=command.form,
        context=context,
        uow=uow,
        clock=clock,
        defaults=setting_defaults,
    )


@handles(ChangeWorkspaceSettings)
async def change_workspace_settings(
    command: ChangeWorkspaceSettings,
    context: Context,
    uow: UnitOfWork,
    *,
    clock: Clock,
    setting_defaults: SettingDefaults,
) -> Reply:
    """`/quiz settings workspace KEY VALUE` (admins), or the workspace's settings form submitted."""
    return await _change(
        SettingScope.WORKSPACE,
        command.changes,
        form=command.form,
        context=context,
        uow=uow,
        clock=clock,
        defaults=setting_defaults,
    )


async def _change(
    scope: SettingScope,
    changes: tuple[tuple[str, str], ...],
    *,
    form: str,
    context: Context,
    uow: UnitOfWork,
    clock: Clock,
    defaults: SettingDefaults,
) -> Reply:
    """Validate every value first (nothing is stored unless all are allowed), then store and keep each change.

    A refused value typed in a command is one line; refused values of a form come back inside the same form, with
    what was typed and a line per field."""
    wanted: dict[SettingKey, str | None] = {}
    errors: dict[str, str] = {}
    for word, text in changes:
        try:
            key = setting_key(word)
            wanted[key] = setting_value(key, text) if text.strip() else None
        except CommandError as exc:
            if not form:
                raise
            errors[word] = exc.worded()
    if errors:
        page = _form_page(form)
        shown = settings_form(scope, page, defaults, await uow.settings.overrides(context.channel))
        fields = {field.key for field in shown.fields}
        first = shown.fields[0].key  # a problem of no field of this page is shown by its first field
        placed: dict[str, str] = {}
        for word, problem in errors.items():
            where = word if word in fields else first
            placed[where] = f"{placed[where]} {problem}" if where in placed else problem
        return Reply(words.form_refused(), ok=False, form=shown.with_values(dict(changes), placed))
    now, channel = clock.now(), context.channel
    workspace = await uow.places.workspace_id(channel.platform, channel.workspace_id, now)
    channel_row = await uow.places.channel_id(channel, now) if scope is SettingScope.CHANNEL else None
    by = context.user.display_name or context.user.user_id
    lines = []
    for key, value in wanted.items():
        before = await uow.settings.change(workspace, channel_row, key, value, by=by, now=now)
        if before != value:
            lines.append(words.changed(scope, key, before, value))
        elif not form:  # a form submits every field, most of them unchanged: its reply names only the changes
            lines.append(words.unchanged(scope, key, value))
    await uow.commit()
    next_page = None
    if form and _form_page(form) < len(form_pages()):
        next_page = words.edit_command(scope, _form_page(form) + 1)
    return Reply(words.changes_message(lines, next_page=next_page))
