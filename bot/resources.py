"""Where the shipped content packs and migrations live, in a source checkout and in an installed wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent
_BUNDLED = _PACKAGE_DIR / "_bundled"
_SOURCE_ROOT = _PACKAGE_DIR.parent


def _pick(name: str) -> Path:
    bundled = _BUNDLED / name
    return bundled if bundled.exists() else _SOURCE_ROOT / name


def bundled_content_dir() -> Path:
    """The folder of packs shipped with quizbot."""
    return _pick("content")


def migrations_dir() -> Path:
    """The Alembic environment folder."""
    return _pick("migrations")
