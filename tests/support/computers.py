"""The computers of a room, as the tests play them on one machine: each a home folder of its own (its own data and
cache folders, so its own deal history unless one is named), `dealer` run there as its user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from tests.support.paths import ROOT


def computer(home: Path) -> Path:
    """A computer's home folder, made if need be."""
    home.mkdir(parents=True, exist_ok=True)
    return home


def computer_env(home: Path) -> dict[str, str]:
    """What differs on the computer of `home`: its home, data and cache folders, and its name in the room (the
    folder's)."""
    return {"HOME": str(home), "XDG_DATA_HOME": str(home / "data"), "XDG_CACHE_HOME": str(home / "cache"),
            "DEALER_COMPUTER": home.name}


def dealer_on(home: Path, *args: str, env: Mapping[str, str] | None = None,
              timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`dealer ARGS` on the computer of `home`, in that folder, to its end; `env`: variables its user set."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "400", **computer_env(home), **(env or {})}
    return subprocess.run([sys.executable, "-m", "dealer", *args], capture_output=True, text=True, cwd=home,
                          env=environment, timeout=timeout)
