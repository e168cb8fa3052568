"""The independent record: one JSON line per dealing's end and per board emptied (file 0600)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any


class Ledger:
    """Appends records to a JSON-lines file, or keeps them in memory when no path is given."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.records: list[dict[str, Any]] = []
        if path is not None:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            os.fchmod(fd, 0o600)
            self._file = os.fdopen(fd, "a", encoding="utf-8")

    def write(self, **record: object) -> None:
        record = {"time": round(time.time(), 3), **record}
        self.records.append(record)
        if self.path is not None:
            self._file.write(json.dumps(record) + "\n")
            self._file.flush()

    def close(self) -> None:
        if self.path is not None:
            self._file.close()


def read_ledger(path: Path) -> list[dict[str, Any]]:
    """Every record of a ledger file, in order."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def boards_as_dealt(records: list[dict[str, Any]]) -> dict[str, dict[str, list[str]]]:
    """Each board label's pockets as the last record left them (an emptied board is empty)."""
    boards: dict[str, dict[str, list[str]]] = {}
    for record in records:
        if record.get("what") == "emptied":
            boards[record["label"]] = {seat: [] for seat in "NESW"}
        elif record.get("what") == "dealing" and record.get("label"):
            boards[record["label"]] = record["pockets"]
    return boards
