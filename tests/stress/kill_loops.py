"""Controllers killed at random instants of a simulated session, again and again, each resumed: every board
dealt exactly once and verified, the journal whole.

    python -m tests.stress.kill_loops --kills 50 [--loop alone|side-files|both|postgresql] [--seed N]

(`tests.support.kill_loops`); prints each loop's figures and its problems, exit 1 if any. Each loop runs against
a deal history of its own in a temporary folder, never this computer's.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from tests.support.kill_loops import Loop, kills_alone, kills_and_lost_side_files
from tests.support.postgres import ThrowawayServer


def in_postgresql(folder: Path, kills: int, **seeds: int) -> Loop:
    """`kills_alone` with the journal in a new database of a throwaway server."""
    server = ThrowawayServer.started()
    try:
        return kills_alone(folder, kills, journal_at=server.new_database(), **seeds)
    finally:
        server.remove()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.stress.kill_loops", description=__doc__.split("\n")[0])
    p.add_argument("--kills", type=int, default=50, help="kills in each loop (default 50)")
    p.add_argument("--loop", choices=("alone", "side-files", "both", "postgresql"), default="both",
                   help="the kills alone, with the side files damaged after each, or both (default); or the kills "
                        "alone with the journal in a throwaway PostgreSQL server")
    p.add_argument("--seed", type=int, help="seed of the kill instants and damages (default: each loop's own)")
    args = p.parse_args(argv)
    bad = 0
    with tempfile.TemporaryDirectory(prefix="kill-loops-") as folder:
        from dealer.journal.history import DealHistory

        seeds = {} if args.seed is None else {"seed": args.seed}
        loops = [("alone", kills_alone), ("side-files", kills_and_lost_side_files), ("postgresql", in_postgresql)]
        for name, loop_of in loops:
            if args.loop not in (name, "both") or (name == "postgresql") != (args.loop == "postgresql"):
                continue
            place = Path(folder) / name
            place.mkdir()
            os.environ["DEALER_HISTORY"] = str(place / "history.sqlite")  # each loop a computer of its own
            DealHistory.open(os.environ["DEALER_HISTORY"], create=True).close()
            began = time.monotonic()
            loop = loop_of(place, args.kills, **seeds)
            print(f"kill loop ({name}): {loop.text()}, in {time.monotonic() - began:.0f} s", flush=True)
            for problem in loop.problems:
                print(f"  {problem}")
            bad += bool(loop.problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
