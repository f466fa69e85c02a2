"""The one translation hook and the number words every wording module uses.

Every sentence is built through `translate` (and every counted noun through `plural`), which look the English
template up in the catalog of the request being answered: a context variable that the dispatcher sets from the
caller's locale (`reading_in`, English today), so that two requests in two languages never see each other's words.
A catalog is anything with gettext's two methods (`gettext.GNUTranslations` from a compiled `.mo` file plugs in as
it is): `install_catalog("fi", catalog)` is all a translation needs; no call site changes. `plural` asks the
catalog's `ngettext` with the count, so a language with several plural forms picks its own.
"""

from __future__ import annotations

import gettext
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol

DEFAULT_LOCALE = "en"
"""The language of the templates themselves, and of every reply until a catalog for another is installed."""


class Catalog(Protocol):
    """The words of one language: gettext's interface (`gettext.GNUTranslations` is one)."""

    def gettext(self, message: str, /) -> str:
        """The translation of an English template."""
        ...

    def ngettext(self, singular: str, plural: str, n: int, /) -> str:
        """The translation of a counted noun, in the plural form that `n` takes in this language."""
        ...


Translator = Callable[[str], str]
"""A plain function from an English template to another language's (what `use_translator` takes)."""

ENGLISH: Catalog = gettext.NullTranslations()
"""The templates as written: `ngettext` picks the singular for 1 and the plural otherwise."""


class _FunctionCatalog:
    """A `Translator` function as a catalog: both forms go through the function."""

    def __init__(self, translator: Translator) -> None:
        self.translator = translator

    def gettext(self, message: str, /) -> str:
        return self.translator(message)

    def ngettext(self, singular: str, plural: str, n: int, /) -> str:
        return self.translator(singular if n == 1 else plural)


_catalogs: dict[str, Catalog] = {DEFAULT_LOCALE: ENGLISH}
"""The catalogs by locale; DEFAULT_LOCALE's is also what a context that never chose a language reads."""
_current: ContextVar[Catalog | None] = ContextVar("quizbot_catalog", default=None)


def install_catalog(locale: str, catalog: Catalog) -> None:
    """Make `catalog` the words of `locale` (`fi`, `pt-BR`) for every request in that language from now on."""
    _catalogs[_normal(locale)] = catalog


def _normal(locale: str) -> str:
    return locale.replace("_", "-").lower()


def catalog_for(locale: str | None) -> Catalog:
    """The catalog of `locale`: the exact one, else its language's (`pt` for `pt-BR`), else the default."""
    if locale:
        wanted = _normal(locale)
        found = _catalogs.get(wanted) or _catalogs.get(wanted.split("-")[0])
        if found is not None:
            return found
    return _catalogs[DEFAULT_LOCALE]


@contextmanager
def reading_in(locale: str | None) -> Iterator[None]:
    """Word everything built inside the block (in this task and the tasks it starts) in `locale`."""
    token = _current.set(catalog_for(locale))
    try:
        yield
    finally:
        _current.reset(token)


def _catalog() -> Catalog:
    return _current.get() or _catalogs[DEFAULT_LOCALE]


def use_translator(translator: Translator | None) -> None:
    """Install a translator for every message built from now on where no request chose a language (None restores
    English); the tests use it to see that every sentence goes through the hook."""
    _catalogs[DEFAULT_LOCALE] = ENGLISH if translator is None else _FunctionCatalog(translator)


def translate(template: str, /, **values: object) -> str:
    """The template in the reader's language, with `values` filled in (`translate("{n} pts", n=3)`)."""
    text = _catalog().gettext(template)
    return text.format(**values) if values else text


def plural(count: int, noun: str, plural_noun: str | None = None) -> str:
    """`1 day`, `3 days`; `plural(2, "person", "people")` -> `2 people`; the catalog picks the form for `count`."""
    return f"{count} {_catalog().ngettext(noun, plural_noun or noun + 's', count)}"


ECHO_LIMIT = 40
"""How much of something a user typed a reply quotes back; the rest is cut at an ellipsis."""


def echo(text: str, limit: int = ECHO_LIMIT) -> str:
    """User input as a reply quotes it: its first `limit` characters, then `…` (a 5,000-character word is not echoed
    whole); line breaks become spaces so a quote stays on its line."""
    flat = " ".join(text.split()) if any(ch in text for ch in "\r\n\t") else text
    return flat if len(flat) <= limit else flat[:limit].rstrip() + "…"


def how_often(count: int) -> str:
    """How often: `once`, `twice`, `3 times` (`1 person answered once`)."""
    if count == 1:
        return translate("once")
    if count == 2:
        return translate("twice")
    return plural(count, "time")


def percent(value: float) -> str:
    """0.756 -> '76%'."""
    return f"{round(value * 100)}%"


def shorten(text: str, width: int) -> str:
    """`text` on one line, cut to `width` characters with an ellipsis when longer (names and prompts in tables)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"
