"""Deals per second of the bigdeal engine: in memory by its hashing paths, and as a whole process
against Big Deal's own ``bigdealx``.

Run from the project root: ``python benchmarks/bigdeal_engine.py [--max 1000000] [--repeats 3] [--quick]``.
Every figure is the median of --repeats runs; ours and each baseline are run the same number of times,
in turn.

1. In memory, deals/s of ``BigDealEngine(seed, owner).deals(n)`` (a fresh engine each run) as it runs
   by default (hashlib for small batches, numpy for large ones), beside the baselines ``hashlib only``
   (RIPEMD-160 from hashlib for every candidate) and ``numpy RIPEMD only`` (the vectorised RIPEMD-160
   for every batch), in the same process.
2. Whole process, the deal numbers of the stream (Big Deal's ``.goe`` file: hashing and rejection, no
   dealing into hands), wall seconds from start to exit: ours is ``python -c`` that imports the engine,
   takes ``numbers(n)`` and writes them as bigdealx does (one comma-grouped number a line, right-aligned
   in 38 characters); the
   baseline ``bigdealx -f goedel`` is ``bigdealx -h SEED -W OWNER -n N -f goedel`` if ``bigdealx`` is
   on PATH (otherwise there is no baseline and only our figures are printed). Then whether the two
   files are the same.

The in-memory engine against ``dealer generate`` and other generators is ``benchmarks/generate.py``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _support import ROOT, bigdealx_on_path, header, median, run_bigdealx

from dealer.engines.bigdeal import BigDealEngine, hashlib_has_ripemd160

SEED = bytes.fromhex("0123456789abcdef0123456789abcdef01234567")
OWNER = "Benchmark owner"

NUMBERS_PROCESS = """
import sys
sys.path.insert(0, {root!r})
from dealer.engines.bigdeal import BigDealEngine
numbers = BigDealEngine(bytes.fromhex({seed!r}), {owner!r}).numbers({n})
with open({out!r}, "w", encoding="ascii") as f:
    f.write("".join(f"{{x:>38,}}\\n" for x in numbers))  # right-aligned, as bigdealx
"""


def in_memory(sizes: list[int], repeats: int) -> None:
    variants: dict[str, bool | None] = {"engine (default)": None, "numpy RIPEMD only": False}
    if hashlib_has_ripemd160():
        variants["hashlib only"] = True
    print(f"\n1. In memory: deals/s of BigDealEngine.deals(n), median of {repeats} runs, in turn"
          + ("" if hashlib_has_ripemd160() else " (hashlib has no RIPEMD-160 here: no 'hashlib only')"))
    for n in sizes:
        times: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(repeats):
            for name, use_hashlib in variants.items():
                engine = BigDealEngine(SEED, OWNER, use_hashlib=use_hashlib)
                start = time.perf_counter()
                engine.deals(n)
                times[name].append(time.perf_counter() - start)
        parts = []
        for name, series in times.items():
            ratios = [t / d for t, d in zip(series, times["engine (default)"], strict=True)]
            parts.append(f"{name} {n / median(series):>11,.0f}/s" + ("" if name == "engine (default)" else
                                                                       f" (time / default {median(ratios):.2f})"))
        print(f"  n={n:>9,}  " + "   ".join(parts))


def ours_numbers(n: int, out: Path) -> float:
    """Wall seconds of the whole process writing the first `n` deal numbers to `out`."""
    code = NUMBERS_PROCESS.format(root=str(ROOT), seed=SEED.hex(), owner=OWNER, n=n, out=str(out))
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", code], stdin=subprocess.DEVNULL, capture_output=True)
    elapsed = time.perf_counter() - start
    if run.returncode:
        raise RuntimeError(f"the engine's process failed: {run.stderr.decode()[-300:]}")
    return elapsed


def whole_process(sizes: list[int], repeats: int, binary: str | None) -> None:
    print(f"\n2. Whole process: the deal numbers (.goe) of the stream, wall seconds from start to exit, median of "
          f"{repeats} rounds (each round runs every command once, in turn)")
    if binary is None:
        print("  no baseline: bigdealx is not on PATH; our figures only")
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        for n in sizes:
            ours: list[float] = []
            theirs: list[float] = []
            same = True
            for rep in range(repeats):
                out = tmp / f"ours-{n}-{rep}.goe"
                ours.append(ours_numbers(n, out))
                if binary:
                    seconds, written = run_bigdealx(binary, SEED.hex(), OWNER, n, "goedel", tmp / f"bx-{n}-{rep}")
                    theirs.append(seconds)
                    same = same and written.read_bytes() == out.read_bytes()
            line = f"  n={n:>9,}  engine process {n / median(ours):>11,.0f}/s ({median(ours):.3f} s)"
            if binary:
                ratios = [t / o for t, o in zip(theirs, ours, strict=True)]
                line += (f"   bigdealx -f goedel {n / median(theirs):>11,.0f}/s ({median(theirs):.3f} s)   "
                         f"bigdealx time / ours {median(ratios):.2f}x; same numbers: {'yes' if same else 'NO'}")
            print(line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--max", type=int, default=10**6, help="largest batch (default 10**6)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of ours and of each baseline (default 3)")
    parser.add_argument("--quick", action="store_true", help="a first look: 1,000 deals, one run")
    args = parser.parse_args(argv)
    if args.quick:
        args.max, args.repeats = 1000, 1
    sizes = [n for n in (10**3, 10**5, 10**6) if n <= args.max]
    binary = bigdealx_on_path()
    header("bigdeal engine: deals/s in memory by hashing path, and the deal numbers as a whole process",
           {"hashlib only": "the engine with hashlib's RIPEMD-160 for every batch (in memory)",
            "numpy RIPEMD only": "the engine with the numpy RIPEMD-160 for every batch (in memory)",
            "bigdealx -f goedel": f"Big Deal writing the deal numbers (whole process): {binary}" if binary
            else "bigdealx is not on PATH: no baseline for the whole-process section"},
           f"sizes {sizes}, {args.repeats} runs of each; hashlib RIPEMD-160 available: {hashlib_has_ripemd160()}")
    in_memory(sizes, args.repeats)
    whole_process(sizes, args.repeats, binary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
