"""How fast `dealer stats` analyses deals: 10^6 deals against the goal of 2 s, beside named baselines.

Measured in one run, best of --repeat runs each (the machine is shared, so the ratios say more than
the absolute times):

- ``dealer.stats.analyse``: the whole analysis as `dealer stats` does it (deals checked, every figure
  counted, every test, the verdict), on --deals deals from the shuffle engine; and its counting alone
  (``dealer.stats.analysis.count_deals``);
- baseline ``plain Python``: a per-deal loop counting the same figures from each deal's hands (lists of
  cards, dictionaries of counts), timed on --subset deals and scaled to --deals;
- baseline ``numpy one-hot``: the straightforward vectorised count (a boolean array per seat, summed per
  suit; patterns by sorting the lengths; points by a dot product), on all --deals deals.

The exact probabilities are computed once per process before timing (about 0.5 s; cached).

    python benchmarks/stats.py [--deals 1000000] [--subset 20000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a clone without installing

from _support import header  # noqa: E402

from dealer.engines import make_engine  # noqa: E402
from dealer.stats import analyse, analysis, exact  # noqa: E402

GOAL_SECONDS = 2.0
POINTS = (4, 3, 2, 1) + (0,) * 9


def best_of(repeat: int, work: Callable[[], Any]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def plain_python(deals: list[list[int]]) -> dict[str, Counter[Any]]:
    """The figures of `dealer stats`, one deal at a time, in plain Python."""
    out: dict[str, Counter[Any]] = {k: Counter() for k in exact.FIGURE_KEYS}
    for deal in deals:
        lengths = [[0] * 4 for _ in range(4)]
        points = [0] * 4
        for card, seat in enumerate(deal):
            lengths[seat][card // 13] += 1
            points[seat] += POINTS[card % 13]
        wild = False
        for seat in range(4):
            shape = sorted(lengths[seat], reverse=True)
            out["patterns"][tuple(shape)] += 1
            out["hcp"][points[seat]] += 1
            for n in lengths[seat]:
                out["suit_lengths"][n] += 1
            out["longest_in_hand"][shape[0]] += 1
            out["shortest_in_hand"][shape[3]] += 1
            wild = wild or shape[0] >= 7 or shape[:2] == [6, 5] or shape[3] == 0
        out["longest_in_deal"][max(max(row) for row in lengths)] += 1
        north_south = [lengths[0][s] + lengths[2][s] for s in range(4)]
        out["longest_fit"][max(north_south)] += 1
        out["longest_fit"][13 - min(north_south)] += 1
        out["wild"][wild] += 1
    return out


def numpy_one_hot(deals: np.ndarray) -> dict[str, np.ndarray]:
    """The same figures, vectorised the straightforward way."""
    by_suit = deals.reshape(-1, 4, 13)
    lengths = np.stack([(by_suit == seat).sum(axis=2) for seat in range(4)], axis=1)   # (n, hand, suit)
    shapes = -np.sort(-lengths, axis=2)
    codes = shapes @ np.array([14**3, 14**2, 14, 1])
    points = np.stack([(deals == seat) @ np.tile(np.array(POINTS), 4) for seat in range(4)], axis=1)
    north_south = lengths[:, 0] + lengths[:, 2]
    wild = ((shapes[:, :, 0] >= 7) | ((shapes[:, :, 0] == 6) & (shapes[:, :, 1] == 5)) | (shapes[:, :, 3] == 0))
    return {
        "patterns": np.unique(codes, return_counts=True)[1],
        "hcp": np.bincount(points.ravel(), minlength=38),
        "suit_lengths": np.bincount(lengths.ravel(), minlength=14),
        "longest_in_hand": np.bincount(shapes[:, :, 0].ravel(), minlength=14),
        "shortest_in_hand": np.bincount(shapes[:, :, 3].ravel(), minlength=4),
        "longest_in_deal": np.bincount(shapes[:, :, 0].max(axis=1), minlength=14),
        "longest_fit": np.bincount(np.r_[north_south.max(axis=1), 13 - north_south.min(axis=1)], minlength=14),
        "wild": np.bincount(wild.any(axis=1), minlength=2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=1_000_000)
    parser.add_argument("--subset", type=int, default=20_000, help="deals the plain-Python baseline runs on")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, to check the script runs")
    args = parser.parse_args()
    if args.quick:
        args.deals, args.subset, args.repeat = 20_000, 2_000, 1
    header("stats: deals analysed per second by dealer stats", {
        "plain Python per deal": "the same figures counted from each deal's hands in Python lists",
        "numpy one-hot": "the straightforward vectorised count, a boolean array per seat",
    }, f"best of {args.repeat} for every method")
    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}, "
          f"{args.deals:,} deals, best of {args.repeat}")
    deals = make_engine("shuffle", bytes(range(32))).deals(args.deals)
    start = time.perf_counter()
    exact.quantities()
    print(f"exact probabilities (once a process): {time.perf_counter() - start:.2f} s")

    whole = best_of(args.repeat, lambda: analyse(deals, "benchmark"))
    counting = best_of(args.repeat, lambda: analysis.count_deals(deals))
    subset = [row.tolist() for row in deals[:args.subset]]
    plain = best_of(args.repeat, lambda: plain_python(subset)) * args.deals / args.subset
    one_hot = best_of(args.repeat, lambda: numpy_one_hot(deals))

    # the baselines count what dealer.stats counts
    ours = analysis.count_deals(deals[:args.subset])
    theirs = plain_python(subset)
    assert sorted(ours["hcp"][ours["hcp"] > 0]) == sorted(theirs["hcp"].values())
    assert ours["wild"][0] == theirs["wild"][True]

    rows = [("dealer.stats.analyse (all of it)", whole), ("dealer.stats count_deals alone", counting),
            (f"plain Python, per deal (on {args.subset:,}, scaled)", plain), ("numpy one-hot", one_hot)]
    print(f"{'method':48s} {'seconds':>9s} {'deals/s':>12s} {'vs analyse':>11s}")
    for name, seconds in rows:
        print(f"{name:48s} {seconds:9.3f} {args.deals / seconds:12,.0f} {seconds / whole:10.1f}x")
    verdict = "within" if whole <= GOAL_SECONDS * args.deals / 1_000_000 else "OVER"
    print(f"goal: 10^6 deals in {GOAL_SECONDS:.0f} s: {verdict} "
          f"({whole * 1_000_000 / args.deals:.2f} s per 10^6 deals)")


if __name__ == "__main__":
    main()
