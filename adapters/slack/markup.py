"""Neutralising names and pack text for Slack mrkdwn: `neutralise` is used for every piece of content shown.

- `&`, `<` and `>` become `&amp;`, `&lt;`, `&gt;` (the escaping Slack documents), so no `<!channel>`,
  `<!here>`, `<@U123>`, `<#C123>`, `<!subteam^S1>`, `<!date^…>` or `<https://x|masked link>` can be formed;
- formatting characters `*` `_` `~` and the backtick get a zero-width space on each side: Slack has no escape
  for them (a backslash shows as a backslash), and a delimiter only opens after a space or punctuation and only
  closes before one, so a guarded one can do neither; the same guard goes before a `&gt;` that starts a line
  (a quote);
- a code span whose text needs none of this (the core's wording writes commands as `` `/quiz now` ``) is kept:
  Slack shows its text as written, and it has no `&`, `<`, `>` or formatting character to smuggle anything;
- `@here`, `@channel` and `@everyone` typed as words get a zero-width space after the `@` (only the `<!here>`
  forms notify, and the text objects are sent with `verbatim: true`, so Slack does not parse them either);
- zero-width and bidirectional control characters in the content are dropped first (`adapters.text_safety`),
  so every zero-width space in the result is one of ours.

`unescape` undoes all of it; `atoms` says where escaped text may be cut.
"""

from __future__ import annotations

import re

from adapters.text_safety import ZWSP, strip_invisible

_SAFE_CODE = re.compile(r"`[^`\n*_~&<>]+`")
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


def neutralise(text: str) -> str:
    """A name or pack text made safe to show in mrkdwn (see the module docstring)."""
    text = strip_invisible(text)
    out: list[str] = []
    position = 0
    for kept in _SAFE_CODE.finditer(text):
        out.append(_guard_run(text[position : kept.start()]))
        out.append(kept.group())
        position = kept.end()
    out.append(_guard_run(text[position:]))
    return guard_line_starts("".join(out))


def atoms(escaped: str) -> list[str]:
    """The units of neutralised text a cut must not split: entities and guarded characters."""
    return _ATOM.findall(escaped)


def unescape(escaped: str) -> str:
    """The text `neutralise` was given, without its invisible characters (for tests and diagnostics)."""
    return escaped.replace(ZWSP, "").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
