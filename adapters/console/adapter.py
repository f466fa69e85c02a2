"""The terminal adapter. You type what you would type in chat: `/quiz now`, a number to answer, `/as NAME`."""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import hashlib
import re
import sys
import threading
import unicodedata
from collections.abc import Awaitable
from dataclasses import replace
from typing import TextIO

from adapters.console.forms import CANCEL, FormSession
from adapters.console.settings import ConsoleSettings
from adapters.text_safety import CodeBlock, code_segments
from bot.commands import ShowHelp, parse_command
from bot.domain import AnswerResult, ChannelRef, Image, QuestionCard, UserRef
from bot.domain.views import ConfirmationRequest
from bot.errors import ConfigError
from bot.plugins import installed_plugins
from bot.ports import UNLIMITED, Action, ActionKind, Message, PlatformError
from bot.service.facade import AdapterHost, Context, Invocation, Reply, error_reply
from bot.wording import console as words
from bot.wording import forms as form_words
from bot.wording.answers import answer_message
from bot.wording.cards import CHOICE_MARKS, card_about, card_footer, reveal_lines
from bot.wording.confirmations import terminal_question
from bot.wording.flags import report_hint
from bot.wording.help import terminal_lines

PLATFORM = "console"
WORKSPACE = "local"
CHANNEL = "terminal"
RULE = "─" * 60


CODE_INDENT = "    "


def terminal_text(text: str) -> str:
    """Text for the terminal: each fenced code block as an indented block (its language, if any, on a line of its
    own above it), the fences gone; the rest, inline code included, as written."""
    out: list[str] = []
    for segment in code_segments(text):
        if isinstance(segment, CodeBlock):
            lines = ([f"{CODE_INDENT}[{segment.language}]"] if segment.language else []) + [
                CODE_INDENT + line for line in segment.code.split("\n")
            ]
            out.append("\n".join(lines))
        else:
            out.append(segment)
    return "".join(out)


def image_lines(image: Image | None) -> list[str]:
    """An image as the terminal shows it: its alt text, and where to see it (its URL, or its file)."""
    if image is None:
        return []
    where = image.url if image.url is not None else f"images/{image.file}"  # under the content folder
    return [f"🖼 {image.alt} ({where})"]


USER_ID_MAX = 64
"""The longest user id the database keeps (the `users.external_id` column)."""


def _user_id(name: str) -> str:
    """The terminal's user id for a name: casefolded, letters of any script, digits, `_`, `.` and `-` kept, each
    other run of characters one `-` (`/as Zoë` and `/as Zoé`, `/as 李` and `/as 王` are different people, and a role
    granted to `Zoë` is hers). A longer id than the column holds is cut and ends in a hash of the whole, so that it
    fits on PostgreSQL and two long names that start alike stay two people."""
    slug = re.sub(r"[^\w.-]+", "-", unicodedata.normalize("NFC", name).casefold()).strip("-") or "user"
    if len(slug) <= USER_ID_MAX:
        return slug
    digest = hashlib.sha256(slug.encode()).hexdigest()[:12]
    return f"{slug[: USER_ID_MAX - len(digest) - 1]}-{digest}"


class ConsoleAdapter:
    """A real adapter behind the platform port, reading lines from `stdin` and writing to `stdout`."""

    name = PLATFORM
    rate_limits = UNLIMITED  # a terminal has no rate limits; scheduled posts need not be paced

    def __init__(self, runtime: AdapterHost, *, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        self.runtime = runtime
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.channel = ChannelRef(platform=PLATFORM, workspace_id=WORKSPACE, channel_id=CHANNEL)
        settings = ConsoleSettings.of(runtime.settings)
        name = settings.console_user or _default_user()
        self.admins = (
            None if settings.console_admins is None else {_user_id(admin) for admin in settings.console_admins}
        )
        """The bootstrap admins' user ids (QUIZBOT_CONSOLE_ADMINS), or None: everyone at the terminal is an admin."""
        self.user = UserRef(platform=PLATFORM, workspace_id=WORKSPACE, user_id=_user_id(name), display_name=name)
        self.interactive = self.stdin.isatty()
        self._closed = False
        self._open: dict[int, QuestionCard] = {}
        """Questions printed in this session and not yet closed, oldest first: a bare number answers the newest."""
        self._pending: ConfirmationRequest | None = None
        """A destructive command's question awaiting `y` (anything else cancels it): the next line answers it."""
        self._form: FormSession | None = None
        """A form being filled in (adapters/console/forms.py): the next lines answer its fields."""
        self._buttons: tuple[Action, ...] = ()
        """The last page's buttons, numbered from 1 for `/press N`."""

    # --- the platform port -------------------------------------------------------------------------

    async def post_card(self, channel: ChannelRef, card: QuestionCard) -> str:
        """Print the question with numbered choices."""
        self._check_open()
        lines = [RULE, f"❓ {card_footer(card)}  [post {card.post_id}]", card.prompt, *image_lines(card.image)]
        lines += [f"  [{CHOICE_MARKS[i]}] {choice}" for i, choice in enumerate(card.choices)]
        lines.append(f"   {card_about(card)}")
        lines.append(words.answer_prompt())
        self._print(*lines)
        self._open.pop(card.post_id, None)
        self._open[card.post_id] = card
        return str(card.post_id)

    async def update_card(self, channel: ChannelRef, message_ref: str, card: QuestionCard) -> None:
        """Print the reveal once the question closes; answer-count edits are not worth a line here."""
        self._check_open()
        if card.reveal is not None:
            self._open.pop(card.post_id, None)
            self._print(
                RULE,
                words.closed(card.prompt),
                *image_lines(card.image),
                *reveal_lines(card),
                *image_lines(card.explanation_image),
                f"({card_footer(card)} · {card_about(card)})",
            )

    async def send_private(self, channel: ChannelRef, user_id: str, message: Message) -> None:
        """Print a message meant for one user, marked as private."""
        self._check_open()
        self._print(words.only_for(user_id, message.title), *message.lines)

    async def send_direct(self, user: UserRef, message: Message) -> None:
        """The DirectMessages capability: print a message meant for one person, marked as a direct message."""
        self._print(words.direct_to(user.display_name or user.user_id, message.title), *message.lines)

    async def direct_channel(self, user: UserRef) -> ChannelRef:
        """The terminal is everyone's direct channel: a privately delivered question is printed here too."""
        return self.channel

    async def user_timezone(self, user: UserRef) -> str | None:
        """The terminal knows no one's timezone: the cohort schedule's applies."""
        return None

    async def post_message(self, channel: ChannelRef, message: Message) -> None:
        """Print a channel message."""
        self._check_open()
        self._print(message.title, *message.lines)

    def _check_open(self) -> None:
        if self._closed:
            raise PlatformError(words.session_ended())

    # --- input -------------------------------------------------------------------------------------

    async def run(self) -> None:
        """Read commands until end of input, `/quit`, or a stop of the bot.

        Piped input gets the greeting with its first line. When the terminal runs only because no platform is
        configured and its input ends before a single line (a container started without credentials and without
        a terminal), the run ends with a ConfigError naming the settings to set, rather than `Bye.` and exit 0,
        which a restart policy would repeat forever.
        """
        self.runtime.platforms.register(self)
        greeted = self.interactive
        if greeted:
            self._print(words.intro())
        lines = self._start_reader()
        prompted = False  # the cursor is after a prompt (`alice> `): a goodbye then starts a line of its own
        while not self.runtime.stopping.is_set():
            if self.interactive and self._pending is None and self._form is None:  # these ask their own question
                self.stdout.write(f"{self.user.display_name}> ")
                self.stdout.flush()
                prompted = True
            read = asyncio.ensure_future(lines.get())
            stop = asyncio.ensure_future(self.runtime.stopping.wait())
            done, _ = await asyncio.wait({read, stop}, return_when=asyncio.FIRST_COMPLETED)
            stop.cancel()
            if read not in done:
                read.cancel()
                break
            line = read.result()
            prompted = prompted and line is None  # a line typed (or a Ctrl-D) ended the prompt's line
            # "" is a Ctrl-D at a terminal that reads on; None, the end of the input.
            if not line and self._form is not None:  # Ctrl-D leaves the form (and, piped, the input is over)
                self._cancel_form()
                if line is not None:
                    continue
                break
            if self._form is not None and line is not None:
                await self._guarded(self._form_line(line.rstrip("\r\n")))  # a field's own spaces are kept
                continue
            if not line and self._pending is not None:  # Ctrl-D answers a y/N question No, as Enter does
                if self.interactive:
                    self.stdout.write("\n")  # Ctrl-D leaves the cursor after the question
                await self._confirm("")
                if line is not None:
                    continue
                break
            if line == "":  # a Ctrl-D for a form or question that is gone: the terminal reads on
                continue
            if line is None and not greeted and self._fallback():
                self.close()
                raise ConfigError(words.nothing_to_read(_platform_settings()))
            if not greeted:
                greeted = True
                self._print(words.intro())
            if line is None or not await self._guarded(self.handle_line(line.strip())):
                break
        self.close()
        if prompted:
            self.stdout.write("\n")
        self._print(words.bye())

    async def _guarded(self, handling: Awaitable[bool | None]) -> bool:
        """Handle one line; an error no handler expected (a bug) is the line's reply, logged with its traceback,
        and the session reads on: it would otherwise end it, lose the rest of piped input, and have supervision
        restart an adapter whose input is gone. False only when the line asked to leave."""
        try:
            return await handling is not False
        except Exception as exc:
            self._show_reply(error_reply(exc))
            return True

    def _fallback(self) -> bool:
        """Whether the terminal runs only because no platform is configured (QUIZBOT_ADAPTERS does not name it)."""
        return not self.runtime.settings.adapters

    def close(self) -> None:
        """The session is over: the scheduler no longer posts here, and a post already on its way prints nothing
        (a process that said `Bye.` starts no scheduled post; it is posted by the next run or another replica)."""
        self._closed = True
        self.runtime.platforms.unregister(self.name)

    def _start_reader(self) -> asyncio.Queue[str | None]:
        """Read stdin on a daemon thread (a blocked read never holds up shutdown); None marks the end, "" a Ctrl-D
        at a terminal while a form or a y/N question is asked (the reader reads on)."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[str | None] = asyncio.Queue()

        def read_lines() -> None:
            try:
                while True:
                    line = self.stdin.readline()
                    if line:
                        loop.call_soon_threadsafe(queue.put_nowait, line)
                        continue
                    if not (self.interactive and (self._form is not None or self._pending is not None)):
                        break
                    # Ctrl-D at a terminal while a form or a y/N question is asked: it leaves the form or cancels the
                    # command, and the terminal reads on.
                    loop.call_soon_threadsafe(queue.put_nowait, "")
            except (OSError, ValueError):
                pass
            finally:
                with contextlib.suppress(RuntimeError):  # the loop may already be closed
                    loop.call_soon_threadsafe(queue.put_nowait, None)

        threading.Thread(target=read_lines, name="console-stdin", daemon=True).start()
        return queue

    async def handle_line(self, line: str) -> bool:
        """Act on one line of input; returns False when the user asked to leave."""
        if self._form is not None:
            await self._form_line(line)
            return True
        if self._pending is not None:
            await self._confirm(line)
            return True
        if not line or line.startswith("#"):
            return True
        if self.interactive is False:
            self._print(f"{self.user.display_name}> {line}")
        if line in {"/quit", "/exit", "/q"}:
            return False
        if line == "/as" or line.startswith("/as "):
            name = line[3:].strip()
            if not name:
                self._print(words.as_usage())
            else:
                self.user = UserRef(PLATFORM, WORKSPACE, _user_id(name), name)
                self._print(words.now_you_are(self.user.display_name))  # as kept: one line, at most 200 characters
            return True
        if line.startswith("/quiz") and (len(line) == 5 or line[5].isspace()):
            reply = await self.runtime.app.handle_command(
                Invocation(self.channel, self.user, line[5:], is_admin=self._is_admin())
            )
            if _asks_for_all_help(line[5:]):  # the terminal's own commands belong in its help
                lines = (*reply.message.lines, *terminal_lines())
                reply = replace(reply, message=Message(reply.message.title, lines))
            self._show_reply(reply)
            return True
        if (number := _number(line)) is not None:
            await self._answer(number)
            return True
        if line == "/press" or line.startswith("/press "):
            await self._press(line[6:].strip())
            return True
        self._print(words.what_to_type())
        return True

    # --- forms and page buttons (adapters/console/forms.py) -------------------------------------------

    def _open_form(self, session: FormSession) -> None:
        self._form = session
        if not session.form.errors:
            multiline = any(f.multiline for f in session.ask)
            self._print(*form_words.terminal_form_intro(session.form.title, multiline))
        self._ask()

    def _ask(self) -> None:
        """Show the current field's question (in piped input it is printed with the answer, when that comes)."""
        if self.interactive and self._form is not None:
            self.stdout.write(self._form.prompt())
            self.stdout.flush()

    def _cancel_form(self) -> None:
        self._form = None
        self._print(form_words.terminal_cancelled())

    async def _form_line(self, line: str) -> None:
        """One line typed while a form is asked: the current field's answer, or /cancel."""
        session = self._form
        assert session is not None
        if not self.interactive:
            self._print(session.prompt() + line)
        if line.strip() == CANCEL:
            self._cancel_form()
            return
        problem = session.feed(line)
        if problem is not None:
            self._print(problem)
        if not session.done:
            self._ask()
            return
        self._form = None
        reply = await self.runtime.app.submit_form(
            kind=session.form.kind,
            state=session.form.state,
            values=session.values,
            context=Context(self.channel, self.user, is_admin=self._is_admin()),
        )
        form = reply.form
        if form is not None and form.errors:
            self._print(*form_words.problems(form).text.split("\n"), form_words.terminal_ask_again())
            kept = FormSession.start(form)
            kept.values = {**session.values, **{f.key: f.value for f in form.fields if f.key in form.errors}}
            self._open_form(kept)
            return
        self._show_reply(reply)

    async def _press(self, number: str) -> None:
        """`/press N`: the N-th button of the last page shown, run through the core as a click."""
        pressed = _number(number)
        if pressed is None or not 1 <= pressed <= len(self._buttons):
            self._print(form_words.terminal_no_button(len(self._buttons)))
            return
        action = self._buttons[pressed - 1]
        reply = await self.runtime.app.act(
            action=action.kind,
            value=action.value,
            context=Context(self.channel, self.user, is_admin=self._is_admin()),
        )
        self._show_reply(reply)

    def _is_admin(self) -> bool:
        """Everyone at the terminal is an admin, unless QUIZBOT_CONSOLE_ADMINS names who is."""
        return self.admins is None or self.user.user_id in self.admins

    async def _answer(self, number: int) -> None:
        """Answer the newest question shown in this session (never one printed before a restart)."""
        if not self._open:
            self._print(words.no_open_question())
            return
        card = list(self._open.values())[-1]
        if not 1 <= number <= len(card.choices):
            self._print(words.pick_a_number(len(card.choices)))
            return
        if len(self._open) > 1:
            self._print(words.answering_newest(card_footer(card), card.post_id))
        try:
            result = await self.runtime.app.answer(
                post_id=card.post_id, user=self.user, choice_index=card.choice_ids[number - 1]
            )
        except Exception as exc:
            self._show_reply(error_reply(exc))
            return
        self._show_result(result)

    def _show_result(self, result: AnswerResult) -> None:
        message = answer_message(result)
        # Where Slack and Discord put a "Report a problem" button under the reply, the terminal says what to type.
        self._print(words.only_for(self.user.display_name, message.title), *message.lines, report_hint())

    async def _confirm(self, line: str) -> None:
        """Answer the pending y/N question: `y` or `yes` runs the command, anything else (Enter too) cancels it."""
        pending, self._pending = self._pending, None
        assert pending is not None
        if self.interactive is False:
            self._print(line)
        accept = line.strip().casefold() in {"y", "yes"}
        reply = await self.runtime.app.confirm(
            token=pending.token, context=Context(self.channel, self.user, is_admin=self._is_admin()), accept=accept
        )
        self._show_reply(reply)

    def _show_reply(self, reply: Reply) -> None:
        if reply.quiet:
            return
        self._print(reply.message.title, *(f"  {line}" for line in reply.message.lines))
        if reply.form is not None:
            if reply.form.errors:
                self._print(*form_words.problems(reply.form).text.split("\n"))
            self._open_form(FormSession.start(reply.form))
            return
        buttons = tuple(a for a in (reply.page.actions if reply.page else ()) if a.kind is not ActionKind.START_REVIEW)
        if buttons:
            self._buttons = buttons
            lines = [form_words.terminal_button(n, a.label) for n, a in enumerate(buttons, start=1)]
            self._print(form_words.terminal_buttons(len(buttons)), *lines)
        if reply.confirm is not None:
            self._pending = reply.confirm
            self.stdout.write(terminal_question(reply.confirm.confirm_label))
            self.stdout.flush()

    def _print(self, *lines: str) -> None:
        self.stdout.write("\n".join(terminal_text(line) for line in lines) + "\n")
        self.stdout.flush()


NUMBER_DIGITS = 9
"""The most digits a typed number keeps: a longer one is only "too big" (int() refuses more than 4,300 digits)."""


def _number(text: str) -> int | None:
    """A typed whole number (`3`, also in other scripts' decimal digits, `٣`), or None for anything else: `²` is a
    digit but no decimal one, which int() refuses. A number of more than NUMBER_DIGITS digits reads as 10**9, out
    of every range asked for."""
    if not text.isdecimal():
        return None
    return int(text) if len(text) <= NUMBER_DIGITS else 10**NUMBER_DIGITS


def _asks_for_all_help(text: str) -> bool:
    """Whether `/quiz TEXT` is the help listing every command (`/quiz`, `/quiz help`)."""
    try:
        return parse_command(text) == ShowHelp()
    except Exception:  # a refusal, or a failure the core has already answered and logged
        return False


def _platform_settings() -> list[tuple[str, str]]:
    """Each installed platform's name and the setting that turns it on (its credentials), e.g. Slack's bot token."""
    return [(plugin.words.platform, plugin.words.setting) for plugin in installed_plugins().values() if plugin.words]


def _default_user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no passwd entry in some containers
        return "you"
