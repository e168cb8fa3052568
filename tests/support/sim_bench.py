"""A test bench for the pure simulator: `hil.bench.DeviceBench` (a host Link wired straight to a
SimDevice, on a fake clock) with a fault plan from keyword arguments and the common steps of a board.

No I/O and no real time: `run(seconds)` jumps from one deadline to the next, so a board dealt at
speed 1 takes no real time and always the same course.
"""

from __future__ import annotations

from typing import Any

from firmware_protocol import (
    Ack,
    BoardScanned,
    Display,
    LoadDeal,
    Message,
    Prompt,
    ScanBoard,
    pack_seats,
)
from hil.bench import DeviceBench, seats_for
from hil.config import SimConfig
from hil.fault_plan import FaultPlan

__all__ = ["Bench", "seats_for"]


class Bench(DeviceBench):
    """A host link and a simulated machine on a fake clock."""

    def __init__(self, config: SimConfig | None = None, *faults: dict[str, Any], **options: Any) -> None:
        super().__init__(config if config is not None else SimConfig(faults=FaultPlan.of(*faults), **options))

    # --- common steps ----------------------------------------------------------------------------

    def prompt(self, prompt: Prompt, label: bytes = b"", board: int = 0) -> Message:
        return self.cmd(Display(prompt, board, label, b""))

    def board_in(self, seconds: float = 30.0, label: bytes | None = None) -> None:
        """Have a board put in, as a host does: unless one is in or the operator is busy with an earlier
        prompt, prompt INSERT_BOARD for `label` (default: the first empty board of the rack; the operator
        puts none in unasked), then wait until one is in."""
        if not self.device.room.board_present and not self.device.operator.busy:
            first = self.device.room.rack.next_empty()
            wanted = label if label is not None else first.label if first is not None else b""
            assert self.prompt(Prompt.INSERT_BOARD, wanted) == Ack()
        self.run(seconds, lambda: self.device.room.board_present)
        assert self.device.room.board_present, "no board was inserted"

    def read_label(self) -> BoardScanned:
        """Scan the board in the machine (a machine deals only into a board read since it went in)."""
        assert self.cmd(ScanBoard()) == Ack()
        return self.wait_for(BoardScanned)

    def load(self, job: int = 1, board: int = 1, seed: int = 0) -> list[int]:
        seats = seats_for(seed)
        reply = self.cmd(LoadDeal.for_deal(job, board, pack_seats(seats)))
        assert reply.TYPE == 0x01, reply
        return seats
