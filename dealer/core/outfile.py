"""Safe output files: written to a temporary file beside the target and renamed, never half a file.

An existing file is not replaced unless `force` is given; files holding secrets are created 0600.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from dealer.core.errors import OutputError, OutputExistsError

SECRET_MODE = 0o600
PUBLIC_MODE = 0o644


def check_writable(path: str | Path, *, force: bool = False) -> Path:
    """Fail early, before any work, if `path` exists (without `force`) or its folder is not writable."""
    target = Path(path)
    if target.exists() and not force:
        raise OutputExistsError(f"{target}: exists; use --force to replace it")
    if target.is_dir():
        raise OutputError(f"{target}: is a directory")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise OutputError(f"{target}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"{target}: folder {folder} is not writable")
    return target


@contextlib.contextmanager
def atomic_output(path: str | Path, *, force: bool = False, mode: int = PUBLIC_MODE) -> Iterator[BinaryIO]:
    """Open a temporary file beside `path`; on a clean exit it becomes `path`, on an error it vanishes.

    Without `force` the rename refuses to replace an existing file, even one that appeared meanwhile.
    Text writers wrap the binary stream (``io.TextIOWrapper``) with the encoding their format wants.
    """
    target = check_writable(path, force=force)
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    except OSError as exc:
        raise OutputError(f"{target}: {exc.strerror}") from exc
    tmp = Path(tmp_name)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        _commit(tmp, target, force)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


def _commit(tmp: Path, target: Path, force: bool) -> None:
    try:
        if force:
            os.replace(tmp, target)
        else:
            os.link(tmp, target)
            tmp.unlink()
    except FileExistsError as exc:
        raise OutputExistsError(f"{target}: exists; use --force to replace it") from exc
    except OSError as exc:
        raise OutputError(f"{target}: {exc.strerror}") from exc


def write_bytes(path: str | Path, data: bytes, *, force: bool = False, mode: int = PUBLIC_MODE) -> None:
    """Write `data` to `path` atomically (see :func:`atomic_output`)."""
    with atomic_output(path, force=force, mode=mode) as out:
        out.write(data)


def write_text(path: str | Path, text: str, *, force: bool = False, mode: int = PUBLIC_MODE,
               encoding: str = "utf-8") -> None:
    """Write `text` to `path` atomically, encoded with `encoding`, newlines as given."""
    write_bytes(path, text.encode(encoding), force=force, mode=mode)
