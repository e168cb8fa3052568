"""The system refusing descriptors, memory or the journal's folder at a random instant of a live 12-board run, N
times: never called damage, and a resume deals every board once.

    python -m tests.stress.system_refusals --trials 200 [--seed 1]

(`tests.support.system_refusals`); prints the figures and every problem, exit 1 if any. Runs against a deal
history of its own in a temporary folder, never this computer's.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from tests.support.system_refusals import KINDS, run_trials


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.stress.system_refusals", description=__doc__.split("\n")[0])
    p.add_argument("--trials", type=int, default=200, help="refused runs (default 200)")
    p.add_argument("--seed", type=int, default=1, help="seed of the instants, limits and refusals (default 1)")
    p.add_argument("--kinds", default=",".join(KINDS), help="the refusals, by name (default: all)")
    p.add_argument("--verbose", action="store_true", help="print each refused run's line")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="system-refusals-") as folder:
        os.environ["DEALER_HISTORY"] = str(Path(folder) / "history.sqlite")
        from dealer.journal.history import DealHistory

        DealHistory.open(os.environ["DEALER_HISTORY"], create=True).close()
        began = time.monotonic()
        trials = run_trials(Path(folder), args.trials, args.seed, args.verbose,
                            tuple(args.kinds.split(",")))
        print(f"system refusals: {trials.text()}, in {time.monotonic() - began:.0f} s")
        for problem in trials.problems:
            print(f"  {problem}")
    return 1 if trials.problems else 0


if __name__ == "__main__":
    sys.exit(main())
