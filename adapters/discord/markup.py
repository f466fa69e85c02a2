"""Neutralising names and pack text for Discord: `escape` is used for every piece of content an embed shows.

Discord's markdown treats a backslash before any ASCII punctuation as "show this character" (that is how
`discord.utils.escape_markdown` works too), so markup is neutralised by escaping, character by character:

- inline markup `\\ * _ ~ | `` ` ``, the `[` of anything a later `](` could make a masked link `[text](url)`
  (a plain `[pack]` stays as written), and `<`, which starts every
  mention and special form Discord renders: `<@id>`, `<@!id>`, `<@&id>`, `<#id>`, `</cmd:id>`, `<:emoji:id>`,
  `<t:unix>` and `<https://autolinks>`;
- block markup at a line's start: quotes `>`, headings and subtext `#`/`-#`, list bullets `-`/`+` and numbers
  `1.` (the dot; Discord would renumber `1. alice` / `1. bob` as 1, 2);
- `@everyone` and `@here` stay as written: mentions in an embed never notify anyone, the client sends
  `AllowedMentions.none()` with every message, and only the `<@id>`-style forms (escaped above) render as
  mentions (unlike `discord.utils.escape_mentions`, which inserts a zero-width space after the `@`);
- zero-width and bidirectional control characters are dropped first (`adapters.text_safety`).

Three things are left as written because escaping would damage them and they cannot carry markup: URLs (a
backslash in one changes where it points; discord.py's `escape_markdown(ignore_links=True)` makes the same choice),
inline code spans, and fenced code blocks (kept as code fences with their language). Discord renders nothing inside
code, neither markdown nor mentions nor links, and a backslash there shows as a backslash, so code is shown exactly
as written (a `*` stays a `*`). What could end code early is neutralised: an inline span holds no backtick, and in
a block a zero-width space follows each backtick that another follows, so no ``` inside the code closes it.

Escaping never more than doubles a text's length; `unescape` undoes it exactly (tests use it to find the full
text of every choice in what was rendered).
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
    outside_code,
    split_rendered,
    strip_invisible,
)

_SAFE_CODE = r"`[^`\n]+`"
_URL = r"https?://[^\s<>\[\]|`*\\]+"
_KEPT = re.compile(f"{_URL}|{INLINE_CODE.pattern}")
_INLINE = re.compile(r"([\\*_~|`<])")
_LINE_MARKUP = re.compile(r"^(\s*)([>#+-])", re.MULTILINE)
_LIST_NUMBER = re.compile(r"^(\s*\d+)\.(\s)", re.MULTILINE)
_ATOM = re.compile(f"\\\\.|{_URL}|{_SAFE_CODE}|.", re.DOTALL)
_ESCAPED = re.compile(r"\\(.)|`[^`\n]+`", re.DOTALL)


def _escape_run(text: str, links_before: int) -> str:
    """Escape a run of text that is not kept as written; a `[` before `links_before` could open a masked link."""
    split = max(0, links_before)
    return _INLINE.sub(r"\\\1", text[:split]).replace("[", "\\[") + _INLINE.sub(r"\\\1", text[split:])


def _guard(text: str) -> str:
    return _LIST_NUMBER.sub(r"\1\\.\2", _LINE_MARKUP.sub(r"\1\\\2", text))


def guard_line_starts(text: str) -> str:
    """Escape block markup at the start of each line outside code blocks; idempotent, so a piece cut from escaped
    text can use it."""
    return outside_code(text, _guard)


def _prose(text: str, masked_later: bool) -> str:
    # a `[` before the last `](` could open a masked link `[text](url)`: escape it
    close = len(text) if masked_later else text.rfind("](")
    out: list[str] = []
    position = 0
    for kept in _KEPT.finditer(text):
        out.append(_escape_run(text[position : kept.start()], close - position))
        out.append(kept.group())
        position = kept.end()
    out.append(_escape_run(text[position:], close - position))
    return "".join(out)


def escape(text: str) -> str:
    """Neutralise Discord markup, mentions and invisible characters in a name or pack text (see the module)."""
    segments = code_segments(strip_invisible(text))
    out: list[str] = []
    for index, segment in enumerate(segments):
        if isinstance(segment, CodeBlock):
            out.append(f"{FENCE}{segment.language}\n{break_fences(segment.code)}\n{FENCE}")
            continue
        later = any(isinstance(s, str) and "](" in s for s in segments[index + 1 :])
        out.append(_prose(segment, later))
    return guard_line_starts("".join(out))


def _text_atoms(escaped: str) -> list[str]:
    return _ATOM.findall(escaped)


def atoms(escaped: str) -> list[str]:
    """The units of escaped text a cut must not split: escape pairs, URLs, code spans, lines of a code block."""
    return fenced_atoms(escaped, _text_atoms)


def _unescape_prose(escaped: str) -> str:
    return _ESCAPED.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(), escaped)


def unescape(escaped: str) -> str:
    """The text `escape` was given, without its invisible characters (for tests and diagnostics)."""
    parts = split_rendered(escaped)
    return "".join(part if code else _unescape_prose(part) for part, code in parts).replace(ZWSP, "")
