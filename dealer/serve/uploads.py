"""Files sent to the console: a deal file or plan kept in the work folder's ``uploads``, private (0600).

A name is a file name of at most `MAX_NAME_BYTES` bytes with a deal-file or plan extension, never a path
(a name with a path's parts is refused, not rewritten). Each file is at most `UploadLimits.file_bytes`,
and the uploads together (kept and in flight) at most `UploadLimits.quota_bytes`: a body is written to
disk as it arrives, never held in memory, and one that passes either limit is removed, with a line
naming the limit (`TooLarge`, the answer's 413). The same file sent twice is kept once; another file of
the same name never replaces it (``NAME-2.pbn``).
"""

from __future__ import annotations

import contextlib
import filecmp
import os
import re
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from dealer.core.errors import UsageError
from dealer.language import _, decimal, n_
from dealer.serve import given

MAX_NAME_BYTES: Final = 255
KEPT_STEM: Final = 200
UNSAFE: Final = re.compile(r"[^A-Za-z0-9._-]+")


class TooLarge(UsageError):
    """An upload past a limit; the message names it."""


@dataclass(frozen=True)
class UploadLimits:
    file_bytes: int = 20 << 20
    quota_bytes: int = 200 << 20
    files: int = 200
    """Uploaded files kept at once: each is offered on the Start page, and one more of a name already taken
    is compared with each kept under that name."""


def _mb(n: int) -> str:
    if n >= 1 << 20:
        return _("{size} MB").format(size=decimal(n / (1 << 20), None))
    return n_("{n} bytes", "{n} bytes", n).format(n=n)  # (English has one form here)


def upload_name(raw: str) -> str:
    """The name an upload is kept under; `UsageError` for a name that is too long, a path, or not a deal
    file or plan."""
    if len(raw.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        raise UsageError(_("upload name: longer than {most} bytes").format(most=MAX_NAME_BYTES))
    if any(part in raw for part in ("/", "\\", "\x00")) or raw.strip() in ("", ".", ".."):
        raise UsageError(_("upload name: give a file's name, not a path"))
    name = UNSAFE.sub("_", raw.strip()).lstrip(".")
    stem, suffix = Path(name).stem, Path(name).suffix
    name = stem[:KEPT_STEM] + suffix  # room for '-2' and the like within the file system's 255
    suffixes = given.offered_suffixes()
    if Path(name).suffix.lower() not in suffixes:
        raise UsageError(_("upload name {name}: not a deal file or plan (the extensions read: {extensions})").format(
            name=repr(name[:60]), extensions=", ".join(sorted(suffixes))))
    return name


class Uploads:
    """The uploads folder of one console and the bytes it holds and receives."""

    def __init__(self, folder: Path, limits: UploadLimits | None = None) -> None:
        self.folder = folder
        self.limits = limits or UploadLimits()
        self._lock = threading.Lock()
        self._in_flight = 0

    def _kept(self) -> list[Path]:
        """The files the uploads folder holds (one listing: their number and their bytes are both bounded)."""
        if not self.folder.is_dir():
            return []
        return [p for p in self.folder.iterdir() if p.is_file() and not p.is_symlink()]

    def _reserve(self, n: int, stored: int) -> None:
        with self._lock:
            if stored + self._in_flight + n > self.limits.quota_bytes:
                raise TooLarge(_("upload: the console's uploads would pass their quota of {quota} (remove files from "
                                 "its work folder's uploads)").format(quota=_mb(self.limits.quota_bytes)))
            self._in_flight += n

    async def receive(self, name: str, declared: int | None, body: AsyncIterator[bytes]) -> Path:
        """Keep the body under `name` (checked by `upload_name`); the path kept."""
        if declared is not None and declared > self.limits.file_bytes:
            raise TooLarge(_("upload: larger than the {most} a file may be").format(most=_mb(self.limits.file_bytes)))
        kept = self._kept()
        if sum(not p.name.startswith(".") for p in kept) >= self.limits.files:  # (not the uploads in flight)
            raise TooLarge(_("upload: the console keeps at most {most} uploaded files (remove files from its work "
                             "folder's uploads)").format(most=self.limits.files))
        self.folder.mkdir(mode=0o700, exist_ok=True)
        stored = sum(p.stat().st_size for p in kept)
        temp = self.folder / f".incoming-{os.getpid()}-{threading.get_ident()}-{id(body)}"
        size = 0
        try:
            with open(temp, "xb") as out:  # deal files are secrets: private from the first byte
                temp.chmod(0o600)
                async for chunk in body:
                    if size + len(chunk) > self.limits.file_bytes:
                        raise TooLarge(_("upload: larger than the {most} a file may be").format(
                            most=_mb(self.limits.file_bytes)))
                    self._reserve(len(chunk), stored)
                    size += len(chunk)
                    out.write(chunk)
            return self._keep(temp, name)
        finally:
            with self._lock:
                self._in_flight -= size
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()

    def _keep(self, temp: Path, name: str) -> Path:
        k = 1
        while True:
            target = self.folder / (name if k == 1 else f"{Path(name).stem}-{k}{Path(name).suffix}")
            if target.is_file() and filecmp.cmp(temp, target, shallow=False):
                return target
            if not target.exists():
                try:
                    os.link(temp, target)
                    return target
                except FileExistsError:  # sent at the same time: look again
                    continue
            k += 1
