"""What the simulated machine costs: CPU time per board of `hil.SimDevice` with a bare host `Link`.

Run from the project root: ``python benchmarks/hil_device.py``. A host that starts the simulator in its
own process (``sim://``) pays this per board on top of its own work, so its per-board figures should
be read against it. Each figure is the best of several runs, with its ratio to a named baseline
measured in the same process:

* ``bare link exchange``: one board's frames (scan, load, deal, recount) between two `Link`s with a
  scripted device (tests.protocol.sim.one_board_exchange): the protocol's own cost, with no machine.

The simulated board: handshake once, then per board prompt, scan, load, deal 52 cards, recount,
eject, driven by a bare host `Link` on a fake clock (tests.hil.bench.Bench), at speed 1 (virtual time
costs nothing, so the speed does not change the CPU figure).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from firmware_protocol import (  # noqa: E402
    BoardScanned,
    DealDone,
    Eject,
    LoadDeal,
    Prompt,
    Recount,
    RecountReport,
    ScanBoard,
    StartDeal,
    pack_seats,
)
from hil.physical import label_of  # noqa: E402
from tests.hil.bench import Bench, seats_for  # noqa: E402
from tests.protocol.sim import one_board_exchange  # noqa: E402

BOARDS = 30


def best_seconds(run: Callable[[], object], repeats: int = 5) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def slot_label(bench: Bench) -> bytes | None:
    slot = bench.device.room.slot
    return slot.board.label if slot else None


def simulated_session() -> None:
    bench = Bench()
    bench.hello()
    for board in range(1, BOARDS + 1):
        label = label_of("A", board)
        bench.prompt(Prompt.INSERT_BOARD, label)
        bench.run(60.0, lambda label=label: slot_label(bench) == label)
        bench.cmd(ScanBoard())
        bench.wait_for(BoardScanned)
        bench.cmd(LoadDeal.for_deal(board, board, pack_seats(seats_for(board))))
        bench.cmd(StartDeal(board))
        bench.wait_for(DealDone)
        bench.cmd(Recount(board))
        bench.wait_for(RecountReport)
        bench.cmd(Eject())
    assert bench.device.ledger.dealt_labels() == {label_of("A", b).decode(): 1 for b in range(1, BOARDS + 1)}


def main() -> None:
    per_board = best_seconds(simulated_session) / BOARDS
    baseline = best_seconds(lambda: [one_board_exchange() for _ in range(BOARDS)]) / BOARDS
    print(f"simulated machine, one board end to end: {per_board * 1e3:.2f} ms CPU "
          f"({per_board / baseline:.1f}x the bare link exchange)")
    print(f"bare link exchange of one board:          {baseline * 1e3:.2f} ms CPU")


if __name__ == "__main__":
    main()
