"""How often the run report's statistics sentence raises an alarm on honest sessions: sessions of uniformly
random deals analysed as a run report analyses them, the share of them its sentence speaks of, beside named
baselines (a figure of false alarms, not a time):

- ours: the sentence speaks when the chance of a result at least this uneven in any figure (the eight tests
  taken together, by Monte Carlo below 1000 deals) is at most ``DIRECTOR_ALARM`` (0.1 %);
- baseline ``the 5 % sentence``: the earlier sentence, which said "worth a second look" (or worse) below 5 %;
- baseline ``one test alone at 5 %``: any of the eight figures' own p-values below 5 %, the family ignored.

Each rate with its 95 % interval (Wilson). The deals come from numpy's generator with --seed.

    python benchmarks/stats_alarms.py [--sessions 2000] [--boards 16,32] [--seed 1]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a clone without installing

from _support import header  # noqa: E402

from dealer.stats import analyse  # noqa: E402
from dealer.stats.goodness import uniform_deals  # noqa: E402
from dealer.stats.summary import DIRECTOR_ALARM, UNEVEN, director_sentence  # noqa: E402


def wilson(hits: int, n: int) -> tuple[float, float]:
    """The 95 % Wilson interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    z = 1.959964
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(hits: int, n: int) -> str:
    low, high = wilson(hits, n)
    return f"{hits}/{n} = {100 * hits / n:.2f} % (95 %: {100 * low:.2f}-{100 * high:.2f} %)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--boards", default="16,32")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="20 sessions of 16 boards: that it runs")
    args = parser.parse_args(argv)
    sessions, sizes = (20, [16]) if args.quick else (args.sessions, [int(b) for b in args.boards.split(",")])
    header("False alarms of the run report's statistics sentence on honest sessions",
           {"the 5 % sentence": "the earlier verdict: 'worth a second look' or worse below a 5 % chance",
            "one test alone at 5 %": "any of the eight figures' own p-values below 5 %, the family ignored"},
           f"{sessions} sessions of each of {', '.join(map(str, sizes))} boards, seed {args.seed}")
    rng = np.random.default_rng(args.seed)
    for boards in sizes:
        ours = old = alone = 0
        started = time.perf_counter()
        for _ in range(sessions):
            stats = analyse(uniform_deals(boards, rng), "honest")
            ours += "not what a perfect shuffle gives" in director_sentence(stats)
            assert (stats.chance <= DIRECTOR_ALARM) == ("not what" in director_sentence(stats))
            old += stats.chance < UNEVEN
            alone += any(f.test.tested and f.test.p_value < UNEVEN for f in stats.figures)
        print(f"\n{boards} boards a session ({time.perf_counter() - started:.0f} s):")
        print(f"  ours (at most {DIRECTOR_ALARM:.1%} together): {rate(ours, sessions)}")
        print(f"  the 5 % sentence: {rate(old, sessions)}")
        print(f"  one test alone at 5 %: {rate(alone, sessions)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
