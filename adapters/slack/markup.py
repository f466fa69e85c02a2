"""Neutralising names and pack text for Slack mrkdwn: `neutralise` is used for every piece of content shown.

- `&`, `<` and `>` become `&amp;`, `&lt;`, `&gt;` (the escaping Slack documents), so no `<!channel>`,
  `<!here>`, `<@U123>`, `<#C123>`, `<!subteam^S1>`, `<!date^…>` or `<https://x|masked link>` can be formed;
- formatting characters `*` `_` `~` and the backtick get a zero-width space on each side: Slack has no escape
  for them (a backslash shows as a backslash), and a delimiter only opens after a space or punctuation and only
  closes before one, so a guarded one can do neither; the same guard goes before a `&gt;` that starts a line
  (a quote);
- inline code (`` `x * y` ``) keeps its backticks, so Slack shows it as code; its text is neutralised like the
  rest (the guards are invisible, so a `*` in it still shows as `*`);
- a fenced code block (a line of three backticks, the code, a line of three backticks) becomes a mrkdwn code
  block: Slack applies no formatting inside one, so its code is shown as written (a `*` stays a `*`), but `&`,
  `<` and `>` are escaped all the same (Slack reads `<!channel>` there too), `@here` words are guarded, and a
  backtick that another follows gets a zero-width space after it, so the code cannot close its block; mrkdwn
  has no language, so the fence's language is dropped;
- `@here`, `@channel` and `@everyone` typed as words get a zero-width space after the `@` (only the `<!here>`
  forms notify, and the text objects are sent with `verbatim: true`, so Slack does not parse them either);
- zero-width and bidirectional control characters in the content are dropped first (`adapters.text_safety`),
  so every zero-width space in the result is one of ours.

`unescape` undoes all of it; `atoms` says where escaped text may be cut.
"""

from __future__ import annotations

import re

from adapters.text_safety import (
    FENCE,
    INLINE_CODE,
    ZWSP,
    CodeBlock,
    break_fences,
    code_segments,
    fenced_atoms,
    strip_invisible,
)

_SAFE_CODE = re.compile(r"`[^`\n]+`")
_FORMATTING = re.compile(r"([*_~`])")
_MENTION_WORD = re.compile(r"@(here|channel|everyone)\b", re.IGNORECASE)
_QUOTE = re.compile(r"^(\s*)&gt;", re.MULTILINE)
_ATOM = re.compile(f"&(?:amp|lt|gt);|{ZWSP}[*_~`]{ZWSP}|{ZWSP}&gt;|{_SAFE_CODE.pattern}|.", re.DOTALL)


def escape(text: str) -> str:
    """Escape the three characters Slack's mrkdwn treats as control characters."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def guard_line_starts(text: str) -> str:
    """Guard a `&gt;` that starts a line; idempotent, so a piece cut from neutralised text can use it."""
    return _QUOTE.sub(f"\\1{ZWSP}&gt;", text)


def _guard_run(text: str) -> str:
    return _MENTION_WORD.sub(f"@{ZWSP}\\1", _FORMATTING.sub(f"{ZWSP}\\1{ZWSP}", escape(text)))


def _prose(text: str) -> str:
    out: list[str] = []
    position = 0
    for kept in INLINE_CODE.finditer(text):
        out.append(_guard_run(text[position : kept.start()]))
        out.append(f"`{_guard_run(kept.group(1))}`")
        position = kept.end()
    out.append(_guard_run(text[position:]))
    return "".join(out)


def _code_block(block: CodeBlock) -> str:
    code = _MENTION_WORD.sub(f"@{ZWSP}\\1", break_fences(escape(block.code)))
    return f"{FENCE}\n{code}\n{FENCE}"


def neutralise(text: str) -> str:
    """A name or pack text made safe to show in mrkdwn (see the module docstring)."""
    segments = code_segments(strip_invisible(text))
    out = [_code_block(s) if isinstance(s, CodeBlock) else _prose(s) for s in segments]
    return guard_line_starts("".join(out))


def _text_atoms(escaped: str) -> list[str]:
    return _ATOM.findall(escaped)


def atoms(escaped: str) -> list[str]:
    """The units of neutralised text a cut must not split: entities, guarded characters, inline code, and each
    line of a code block."""
    return fenced_atoms(escaped, _text_atoms)


def unescape(escaped: str) -> str:
    """The text `neutralise` was given, without its invisible characters (for tests and diagnostics)."""
    return escaped.replace(ZWSP, "").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
