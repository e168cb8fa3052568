"""A journal damaged at a random instant of a live 12-board run, N times: never a success.

    python -m tests.stress.journal_damage --trials 200 [--seed 1]

(`tests.support.journal_damage`); prints the figures and every problem, exit 1 if any. Runs against a deal
history of its own in a temporary folder, never this computer's.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from tests.support.journal_damage import run_trials


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.stress.journal_damage", description=__doc__.split("\n")[0])
    p.add_argument("--trials", type=int, default=200, help="damaged runs (default 200)")
    p.add_argument("--seed", type=int, default=1, help="seed of the instants, racks and damages (default 1)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="journal-damage-") as folder:
        os.environ["DEALER_HISTORY"] = str(Path(folder) / "history.sqlite")
        from dealer.journal.history import DealHistory

        DealHistory.open(os.environ["DEALER_HISTORY"], create=True).close()
        began = time.monotonic()
        trials = run_trials(Path(folder), args.trials, args.seed)
        print(f"journal damage: {trials.text()}, in {time.monotonic() - began:.0f} s")
        for problem in trials.problems:
            print(f"  {problem}")
    return 1 if trials.problems else 0


if __name__ == "__main__":
    sys.exit(main())
