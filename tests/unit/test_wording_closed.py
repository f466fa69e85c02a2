"""Wording stays closed: the sentences written outside bot/wording may only become fewer.

A sentence here is a string literal (an f-string's placeholders do not count as words) with at least three
words that hold a letter. Not counted: docstrings and other bare string statements, the arguments of logging
calls (`log.warning(...)`: operator log lines, not replies), bot/wording itself, and the text that nobody reads
as a sentence, each kind named below with its reason (EXCLUDED_MODULES, NOT_READ_CALLS, NOT_READ). What is left
outside bot/wording is debt (issue 21, item 5). When a change words some of it in bot/wording, lower CEILING to
the new count; never raise it, and never exclude a sentence a person reads in chat or in an operator's terminal.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ROOTS = ("bot", "adapters")
WORDING = REPO / "bot" / "wording"
DOCUMENTATION = (REPO / "bot" / "ops" / "reference.py",)
"""Modules that write the docs site's generated pages (Markdown in English, like the hand-written pages in docs/):
documentation, not what the bot or the CLI says, so not through the translation hook."""
EXCLUDED_MODULES = {
    REPO / "bot" / "cli_completion.py": "the shell completion scripts `quizbot completion` prints: bash, zsh and "
    "fish code the shell runs (its comments included); the descriptions it shows are argparse's help, worded in "
    "bot/wording/cli.py",
}
"""Whole modules whose literals are code of another language, with the reason."""
LOG_METHODS = frozenset({"debug", "info", "warning", "error", "exception", "critical", "log"})
NOT_READ_CALLS = {
    # Prometheus HELP strings (bot/ops/metrics.py): metadata of a metric for dashboards, in English by the
    # exposition format's convention, like the metric names they describe; no reply or terminal line.
    "Counter": "metric HELP",
    "Gauge": "metric HELP",
    "Histogram": "metric HELP",
    "Info": "metric HELP",
    # The Slack intake's HTTP refusal reasons (adapters/slack/intake.py): protocol and log text, written in the
    # operator's log line beside the status, never sent to a person (Slack gets the status and a reason phrase).
    "Refusal": "HTTP refusal reason",
    # A command's example (bot/commands/: `Example("cohort join spring-26")`) and the command a refusal suggests
    # (`_once(..., f"/quiz schedule add {when} {tz_word}")`): the command as typed, the grammar's own words, which
    # the grammar reads in English whatever the reader's language.
    "Example": "a command as typed",
    "_once": "a command as typed",
    # What a refused command tried (`Access(PauseSchedule, LEAD, "pause and resume schedules")`): a wording key, the
    # English msgid that bot/wording/commands.py `action_words` translates at the edge, as gettext's keys are.
    "Access": "a wording key",
    # SQL and regular expressions: code of another language.
    "text": "SQL",
    "compile": "regular expression",
    "match": "regular expression",
    "fullmatch": "regular expression",
}
"""Calls (by the called name) whose arguments are not sentences, with the reason."""
NOT_READ: dict[str, frozenset[str]] = {
    # Programming errors: raised only by a bug in the code that builds the value (a duplicate registration, an id
    # over a platform limit that the ids are built far below, a wiring left out), so never a reply or an
    # operator's line: the traceback is for the developer.
    "bot/service/handlers/routing.py": frozenset(
        {"{} has two handlers", "{} needs {}, which bootstrap does not provide"}
    ),
    "bot/commandspec.py": frozenset({"{} is built by two specs"}),
    "adapters/slack/blocks.py": frozenset({"action_id too long: {}"}),
    "adapters/discord/custom_ids.py": frozenset({"custom_id too long: {}"}),
    "bot/db/models/base.py": frozenset({"naive datetime given to a UTC column"}),
    "bot/domain/schedules.py": frozenset({"not a fire key: {}"}),
    "bot/domain/windows.py": frozenset(
        {"the season window needs the season's span", "no start is defined for the {} window"}
    ),
    "bot/service/cards.py": frozenset({"QuizApp wires the card reader"}),
    "bot/service/repositories/flags.py": frozenset({"paused needs a workspace or a channel"}),
    "bot/scheduling/posting.py": frozenset({"cohort schedules are not wired into this scheduler"}),
    "bot/service/answers.py": frozenset({"click was not processed"}),
    "adapters/slack/intake.py": frozenset(
        {
            "a signing secret is needed to verify Slack requests",  # a bug: the adapter checks the setting first
            "; {} more refused since the last such line ({})",  # the tail of a log line, built before the call
            "(not through the intake)",  # a log line's path field
            "request too large",  # an HTTP reason phrase, protocol text
        }
    ),
    # AdapterFailed's own message: the command line never shows it, it words the failure itself
    # (bot/cli_commands.py: `start_failure`, or bot/wording/cli.py `adapter_stopped`).
    "bot/supervision.py": frozenset({"the {} adapter failed: {}"}),
    # A fire's detail (schedule_fires.detail): audit data written with the fire and logged beside it, in English
    # like the log lines; no command reads it back, and stored data is not worded per reader.
    "bot/scheduling/claims.py": frozenset({"missed; a later slot was due", "missed by {} (grace {})"}),
    "bot/scheduling/lifecycle.py": frozenset(
        {
            "its platform is not running here",
            "the schedule, its cohort or the membership is gone",
            "claim expired after {}; {} late",
        }
    ),
    # /healthz's problems: values of a JSON API that probes and dashboards match, protocol text like the intake's
    # refusal reasons, so never translated.
    "bot/ops/http.py": frozenset({"database check failed", "the database schema is not at the newest revision"}),
    # Another language: the log lines' format.
    "bot/logs.py": frozenset({"%(asctime)s %(levelname)-7s %(name)s: %(message)s"}),
}
"""Literals that read like sentences but are not read as one, by module, each group with its reason."""
NOT_READ_NAMES = {
    "CSS": "the HTML report's style sheet (bot/report_html.py)",
    "POST_FINISH_SQL": "the SQL of the posts' finish-time index (bot/db/models/posts.py)",
}
"""Module constants of another language, by name, with the reason: their literals are not counted."""
HTML_TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]*(?:\s[^<>]*)?/?>")
"""An HTML tag with its attributes: markup, not words (the text between tags still counts)."""

CEILING = 6
"""Sentence-like literals outside bot/wording, measured; it may only fall."""


def _words(text: str) -> int:
    return sum(any(ch.isalpha() for ch in word) for word in text.split())


def _called(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _is_log_call(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr in LOG_METHODS


def sentences(source: str) -> list[tuple[int, str]]:
    """The sentence-like literals of one module: (line, text with each placeholder as `{}`)."""
    tree = ast.parse(source)
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant | ast.JoinedStr):
            skipped.update(id(inner) for inner in ast.walk(node.value))
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id in NOT_READ_NAMES for target in node.targets
        ):
            skipped.update(id(inner) for inner in ast.walk(node.value))
        if isinstance(node, ast.Call) and (_called(node) in NOT_READ_CALLS or _is_log_call(node)):
            for argument in (*node.args, *(keyword.value for keyword in node.keywords)):
                skipped.update(id(inner) for inner in ast.walk(argument))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.JoinedStr):
            skipped.update(id(inner) for inner in ast.walk(node))
            text = "".join(part.value if isinstance(part, ast.Constant) else "{}" for part in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        if _words(HTML_TAG.sub("", text)) >= 3:
            found.append((node.lineno, text))
    return found


def count_by_module() -> Counter[str]:
    """How many sentence-like literals each module outside bot/wording holds."""
    counts: Counter[str] = Counter()
    for root in ROOTS:
        for path in sorted((REPO / root).rglob("*.py")):
            if path.is_relative_to(WORDING) or path in DOCUMENTATION or path in EXCLUDED_MODULES:
                continue
            module = path.relative_to(REPO).as_posix()
            not_read = NOT_READ.get(module, frozenset())
            found = [text for _, text in sentences(path.read_text(encoding="utf-8")) if text not in not_read]
            if found:
                counts[module] = len(found)
    return counts


def test_the_counter_sees_sentences_and_skips_docstrings_and_log_lines() -> None:
    source = '''"""A module docstring of many words."""
import logging
log = logging.getLogger(__name__)
def f(n: int) -> str:
    """A function's docstring, also many words."""
    log.warning("a log line of many words %s", n)
    reply = f"you have {n} new answers"
    label = "two words"
    cron = "0 9 * * *"
    return "This one is a sentence." + reply + label + cron
'''
    assert [text for _, text in sentences(source)] == ["you have {} new answers", "This one is a sentence."]


def test_the_counter_skips_the_arguments_of_calls_that_take_no_sentence() -> None:
    source = """
answers = Counter("quizbot_answers_total", "Clicks handled, by platform and outcome.", ["platform"])
query = text("SELECT version_num FROM alembic_version")
refusal = Refusal(413, "body too large")
CSS = "body { font: 15px/1.45 system-ui; margin: 2rem auto; }"
reply = answer("Your answer was recorded, thank you.")
cell = f"<td class='num' title='{hint}'>{value}</td>"
row = f"<tr><td>{prompt}</td><td>no reason given</td></tr>"
"""
    assert sorted(text for _, text in sentences(source)) == [
        "<tr><td>{}</td><td>no reason given</td></tr>",
        "Your answer was recorded, thank you.",
    ]


def test_no_new_sentences_outside_bot_wording() -> None:
    counts = count_by_module()
    total = sum(counts.values())
    listing = "\n".join(f"{count:4} {module}" for module, count in counts.most_common())
    assert total <= CEILING, (
        f"{total} sentence-like literals outside bot/wording, more than the ceiling of {CEILING}: word the new ones "
        f"in bot/wording (a function per sentence, an error's key and values).\n{listing}"
    )
