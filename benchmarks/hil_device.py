"""What the simulated machine costs: CPU time per board of `hil.SimDevice` with a bare host `Link`.

Run from the project root: ``python benchmarks/hil_device.py [--boards 30] [--repeats 5] [--quick]``. A
host that starts the simulator in its own process (``sim://``) pays this per board on top of its own
work, so its per-board figures should be read against it. Each figure is the process CPU time of one
run divided by the boards, the median of --repeats runs, beside a named baseline measured in the same
process the same way (the same runs, the same boards):

* ``bare link exchange``: one board's frames (scan, load, deal, recount) between two `Link`s with a
  scripted device (`hil.bench.one_board_exchange`): the protocol's own cost, with no machine.

The simulated board: handshake once, then per board prompt, scan, load, deal 52 cards, recount,
eject, driven by a bare host `Link` on a fake clock (`hil.bench.DeviceBench`), at speed 1 (virtual time
costs nothing, so the speed does not change the CPU figure).
"""

from __future__ import annotations

import argparse
import sys
import time

from _support import header, median, timings  # the project root on sys.path too

from firmware_protocol import (
    BoardScanned,
    DealDone,
    Display,
    Eject,
    Hello,
    LoadDeal,
    Prompt,
    Recount,
    RecountReport,
    ScanBoard,
    StartDeal,
    pack_seats,
)
from firmware_protocol.messages import SCHEMA_HASH
from hil.bench import DeviceBench, one_board_exchange, seats_for
from hil.physical import label_of


def slot_label(bench: DeviceBench) -> bytes | None:
    slot = bench.device.room.slot
    return slot.board.label if slot else None


def simulated_session(boards: int) -> None:
    bench = DeviceBench()
    bench.cmd(Hello(1, SCHEMA_HASH, 1))
    for board in range(1, boards + 1):
        label = label_of("A", board)
        bench.cmd(Display(Prompt.INSERT_BOARD, 0, label, b""))
        bench.run(60.0, lambda: slot_label(bench) == label)  # noqa: B023 - called at once, in this iteration
        bench.cmd(ScanBoard())
        bench.wait_for(BoardScanned)
        bench.cmd(LoadDeal.for_deal(board, board, pack_seats(seats_for(board))))
        bench.cmd(StartDeal(board))
        bench.wait_for(DealDone)
        bench.cmd(Recount(board))
        bench.wait_for(RecountReport)
        bench.cmd(Eject())
    assert bench.device.ledger.dealt_labels() == {label_of("A", b).decode(): 1 for b in range(1, boards + 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--boards", type=int, default=30, help="boards a run (default 30)")
    parser.add_argument("--repeats", type=int, default=5, help="runs of ours and of the baseline (default 5)")
    parser.add_argument("--quick", action="store_true", help="a first look: 2 boards, one run")
    args = parser.parse_args(argv)
    if args.quick:
        args.boards, args.repeats = 2, 1
    n, repeats = args.boards, args.repeats
    header("hil device: CPU time per board of the simulated machine driven by a bare host Link",
           {"bare link exchange": "one board's frames between two Links with a scripted device, no machine"},
           f"{n} boards a run, process CPU time, median of {repeats} runs, in turn")
    ours: list[float] = []
    base: list[float] = []
    for _ in range(repeats):
        ours += timings(lambda: simulated_session(n), 1, time.process_time)
        base += timings(lambda: [one_board_exchange() for _ in range(n)], 1, time.process_time)
    per_board, baseline = median(ours) / n, median(base) / n
    ratio = median([o / b for o, b in zip(ours, base, strict=True)])
    print(f"simulated machine, one board end to end: {per_board * 1e3:.2f} ms CPU ({ratio:.1f}x the bare link "
          "exchange, median of the runs' ratios)")
    print(f"bare link exchange of one board:          {baseline * 1e3:.2f} ms CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
