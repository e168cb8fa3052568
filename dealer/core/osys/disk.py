"""What a file system says of itself (`DiskState`), as either part of the operating-system seam gives it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DiskState:
    """What the file system holding a folder says of itself; None where this system does not tell."""

    read_only: bool | None
    free_bytes: int | None
