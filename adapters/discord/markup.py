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

Two things are left as written because escaping would damage them and they cannot carry markup: URLs (a backslash
in one changes where it points; discord.py's `escape_markdown(ignore_links=True)` makes the same choice), and code
spans whose text needs no escaping at all (the core's wording writes commands as `` `/quiz now` ``). Neither can
contain `<`, `[`, `]`, `*`, `|`, a backtick or a backslash, so neither can smuggle a link, mention or formatting.

Escaping never more than doubles a text's length; `unescape` undoes it exactly (tests use it to find the full
text of every choice in what was rendered).
"""

from __future__ import annotations

import re

from adapters.text_safety import ZWSP, strip_invisible

_SAFE_CODE = r"`[^`\n\\*_~|<>\[\]@]+`"
_URL = r"https?://[^\s<>\[\]|`*\\]+"
_KEPT = re.compile(f"{_URL}|{_SAFE_CODE}")
_INLINE = re.compile(r"([\\*_~|`<])")
_LINE_MARKUP = re.compile(r"^(\s*)([>#+-])", re.MULTILINE)
_LIST_NUMBER = re.compile(r"^(\s*\d+)\.(\s)", re.MULTILINE)
_ATOM = re.compile(f"\\\\.|{_URL}|{_SAFE_CODE}|.", re.DOTALL)
_ESCAPED = re.compile(r"\\(.)", re.DOTALL)


def _escape_run(text: str, links_before: int) -> str:
    """Escape a run of text that is not kept as written; a `[` before `links_before` could open a masked link."""
    split = max(0, links_before)
    return _INLINE.sub(r"\\\1", text[:split]).replace("[", "\\[") + _INLINE.sub(r"\\\1", text[split:])


def guard_line_starts(text: str) -> str:
    """Escape block markup at the start of each line; idempotent, so a piece cut from escaped text can use it."""
    return _LIST_NUMBER.sub(r"\1\\.\2", _LINE_MARKUP.sub(r"\1\\\2", text))


def escape(text: str) -> str:
    """Neutralise Discord markup, mentions and invisible characters in a name or pack text (see the module)."""
    text = strip_invisible(text)
    close = text.rfind("](")  # a `[` before the last `](` could open a masked link `[text](url)`: escape it
    out: list[str] = []
    position = 0
    for kept in _KEPT.finditer(text):
        out.append(_escape_run(text[position : kept.start()], close - position))
        out.append(kept.group())
        position = kept.end()
    out.append(_escape_run(text[position:], close - position))
    return guard_line_starts("".join(out))


def atoms(escaped: str) -> list[str]:
    """The units of escaped text a cut must not split: escape pairs, URLs, code spans."""
    return _ATOM.findall(escaped)


def unescape(escaped: str) -> str:
    """The text `escape` was given, without its invisible characters (for tests and diagnostics)."""
    return _ESCAPED.sub(r"\1", escaped.replace(ZWSP, ""))
