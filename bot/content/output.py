"""Writing an import's or an export's result: all or nothing, and never over a file unless asked to."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from bot.errors import QuizError
from bot.wording import content_cli as words


def write_new_file(path: Path, text: str, *, force: bool = False) -> None:
    """Write `text` to `path` through a temporary file in the same folder, renamed into place when complete.

    An existing `path` is refused unless `force`; a failure leaves neither a partial `path` nor the
    temporary file behind. A new file gets the usual permissions (0666 less the umask); an overwritten one
    keeps its own.
    """
    folder = path.absolute().parent
    if not folder.is_dir():
        raise QuizError(words.no_such_folder(str(path), str(folder)))
    if path.is_dir():
        raise QuizError(words.is_a_folder(str(path)))
    exists = path.exists()
    if exists and not force:
        raise QuizError(words.file_exists(str(path)))
    try:
        mode = path.stat().st_mode & 0o7777 if exists else 0o666 & ~_umask()
        descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise QuizError(words.cannot_write(str(path), str(exc.strerror or exc))) from exc
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        if force:
            os.replace(temporary, path)
        else:
            _rename_no_replace(temporary, path)
    except FileExistsError as exc:
        raise QuizError(words.file_exists(str(path))) from exc
    except OSError as exc:
        raise QuizError(words.cannot_write(str(path), str(exc.strerror or exc))) from exc
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def _rename_no_replace(temporary: str, path: Path) -> None:
    """Move `temporary` to `path` unless something appeared there meanwhile (atomic where hard links work)."""
    try:
        os.link(temporary, path)
    except FileExistsError:
        raise
    except OSError:
        if path.exists():
            raise FileExistsError(str(path)) from None
        os.replace(temporary, path)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
