"""The physical record as a file: what the simulated machine really dealt, for anyone to check a run by.

`RecordFile` writes the room's ledger, with what the I/O layer saw on the line, as JSON: atomically, mode
0600 (it holds deals), current after every board.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from hil.room import Room


class RecordFile:
    """The ledger's JSON file at `path`.

    `RecordFile(path)` writes the room's ledger (`Ledger.to_json`: every dealing, what every board holds now,
    hands as PBN deals) as JSON to `path`, with what the I/O layer saw on the line (the LoadDeals the host
    sent and the machine accepted, `hil.wire_record`, under "load_deals"; the line's noise under "noise"),
    atomically (a temporary file beside it, then a rename: a reader never sees half a file), mode 0600 (it
    holds deals). The I/O layer running the machine (`hil.pty_sim`, `hil.loopback`) calls `update(room)`
    after each step: the file is written when a board's state changed (a dealing started or ended, a board
    was emptied, a board went in or out), so it is current after every board; and `write(room)` when the
    machine stops.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.writes = 0
        self._last: tuple[object, ...] | None = None

    @staticmethod
    def _state(room: Room) -> tuple[object, ...]:
        """What changes once per board or more, never per card: dealings and their outcomes, emptyings,
        the board in the slot."""
        records = room.ledger.records
        slot = room.slot.board.ident if room.slot is not None else None
        return (len(records), records[-1].outcome if records else None, len(room.ledger.emptied), slot)

    def update(self, room: Room, wire: Callable[[], Mapping[str, object]] | None = None) -> None:
        """Write the record if a board's state changed since the last write."""
        if self._state(room) != self._last:
            self.write(room, wire)

    def write(self, room: Room, wire: Callable[[], Mapping[str, object]] | None = None) -> None:
        """Write the record now (atomically, mode 0600); `wire()` gives what the line saw, if kept."""
        self._last = self._state(room)
        record = room.ledger.to_json(room.rack)
        if wire is not None:
            record.update(wire())
        text = json.dumps(record, indent=1) + "\n"
        fd, temp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
            os.chmod(temp, 0o600)
            os.replace(temp, self.path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
            raise
        self.writes += 1
