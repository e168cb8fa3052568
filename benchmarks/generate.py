"""Deal generation speed and memory: both engines against named baselines, measured in one run.

    python benchmarks/generate.py [--sizes 1000,100000] [--reps 3] [--pbn-boards 100000] [--quick]

Sections (the machine is noisy, so the ratios measured in the same run say more than the absolute
figures; every method, ours or a baseline, is timed the same way):

1. In memory, deals/s at each size n: the ``shuffle`` and ``bigdeal`` engines (``engine.deals(n)``,
   (n, 52) uint8 arrays) and the baselines ``random.shuffle`` (a 52-list shuffled per deal and cut
   into four 13-card lists, on the Mersenne Twister) and ``endplay generate_deals`` with no
   constraint (n Deal objects), if endplay is installed. Every method makes one untimed call at the
   smallest n first. Round robin: each of --reps repetitions times every method once at the same n
   (a call under 0.2 s is repeated until 0.2 s have passed, the same for every method); each figure is
   the median over the repetitions, and each ratio the median of the per-repetition ratios.
2. Peak memory of --memory-deals deals in memory per engine, each in a fresh subprocess: the
   tracemalloc peak during the call (Python and numpy allocations, the result included) and the
   process's peak resident set (VmHWM). No baseline: ours only.
3. Whole process, a PBN file of --pbn-boards boards from one seed and owner, wall seconds from start
   to exit: ``python -m dealer generate --engine bigdeal`` against the baseline ``bigdealx -h SEED -W
   OWNER -f pbn`` (Big Deal, if ``bigdealx`` is on PATH; otherwise there is no baseline and only our
   figures are printed), in --pbn-reps rounds, each round running every command once in turn; medians.
   Ours runs twice a round, each from its own copy of the package: with its bytecode cached (as after
   ``pip install``, which compiles it; the cache is written by one untimed run) and with its modules
   compiled from source on every run (PYTHONDONTWRITEBYTECODE). Then whether both files hold the same
   deals in the same order.

Writing deal files in process (every format, with endplay's PBN reader and writer as baselines) is
``benchmarks/formats.py``; the bigdeal engine against ``bigdealx``'s own dealing is
``benchmarks/bigdeal_engine.py``.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _support import ROOT, bigdealx_on_path, header, median, run_bigdealx, run_dealer_generate

from dealer import engines
from dealer.core.cards import check_deals

SEEDS = {
    "shuffle": "5eed0000c0ffee11223344556677889900aabbccddeeff0123456789abcdef01",
    "bigdeal": "0123456789abcdef0123456789abcdef01234567",
}
OWNER = "dealer benchmark"
ENGINES = ("shuffle", "bigdeal")
BASELINE_SEED = 20240601
MIN_SECONDS = 0.2

Method = Callable[[int], object]


# ---- methods --------------------------------------------------------------------------------------

def engine_method(name: str) -> Method:
    """deals(n) of an engine from its benchmark seed (checked once to be whole deals)."""
    engine = engines.make_engine(name, bytes.fromhex(SEEDS[name]), OWNER)
    check_deals(engine.deals(1000))
    return engine.deals


def random_shuffle(n: int) -> list[tuple[list[int], ...]]:
    """`random.shuffle` of a 52-list per deal, cut into four hands."""
    rng = random.Random(BASELINE_SEED)
    deck = list(range(52))
    out: list[tuple[list[int], ...]] = []
    for _ in range(n):
        rng.shuffle(deck)
        out.append((deck[0:13], deck[13:26], deck[26:39], deck[39:52]))
    return out


def endplay_method() -> Method | str:
    try:
        from endplay.dealer import generate_deals
    except ImportError as exc:
        return f"not available: {exc}"

    def generate(n: int) -> list[Any]:
        return list(generate_deals(produce=n, seed=BASELINE_SEED, max_attempts=-1))

    return generate


def seconds_per_call(method: Method, n: int) -> float:
    calls, start = 0, time.perf_counter()
    while True:
        method(n)
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= MIN_SECONDS:
            return elapsed / calls


# ---- section 1: in memory -------------------------------------------------------------------------

def in_memory(methods: dict[str, Method], sizes: list[int], reps: int) -> None:
    """Round-robin timing; prints deals/s and time ratios to the shuffle engine."""
    print(f"\n1. In memory ({reps} round-robin repetitions at each n; medians)")
    for method in methods.values():  # one untimed call each: first-use costs are no method's rate
        method(min(sizes))
    rates: dict[tuple[str, int], float] = {}
    for n in sizes:
        times: dict[str, list[float]] = {name: [] for name in methods}
        for _ in range(reps):
            for name, method in methods.items():
                times[name].append(seconds_per_call(method, n))
        print(f"  n = {n:,}")
        print(f"    {'method':<28} {'deals/s':>12} {'time / shuffle engine':>22}")
        for name, series in times.items():
            rates[name, n] = n / median(series)
            ratios = [t / r for t, r in zip(series, times["shuffle"], strict=True)]
            print(f"    {name:<28} {fmt_rate(rates[name, n]):>12} {median(ratios):>22.2f}")
    print("  Speed-ups at each n (median rates; >1 means the first is faster):")
    pairs = [("shuffle", "random.shuffle"), ("shuffle", "endplay generate_deals"), ("shuffle", "bigdeal"),
             ("bigdeal", "random.shuffle"), ("bigdeal", "endplay generate_deals")]
    for n in sizes:
        parts = [f"{a}/{b} {rates[a, n] / rates[b, n]:.1f}x" for a, b in pairs if (a, n) in rates and (b, n) in rates]
        print(f"    n = {n:,}: " + "; ".join(parts))


def fmt_rate(rate: float) -> str:
    if rate >= 1e6:
        return f"{rate / 1e6:.2f} M"
    return f"{rate / 1e3:.1f} k" if rate >= 1e3 else f"{rate:.0f}"


# ---- section 2: memory ----------------------------------------------------------------------------

MEMORY_PROBE = """
import re, sys, tracemalloc
sys.path.insert(0, {root!r})
from dealer.engines import make_engine
def peak_rss():
    with open("/proc/self/status") as status:
        return int(re.search(r"VmHWM:\\s+(\\d+) kB", status.read()).group(1)) * 1024
engine = make_engine({name!r}, bytes.fromhex({seed!r}), {owner!r})
before = peak_rss()
tracemalloc.start()
deals = engine.deals({n})
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
print(peak, before, peak_rss())
"""


def memory(n: int) -> None:
    print(f"\n2. Peak memory of {n:,} deals in memory (a fresh subprocess per engine; no baseline)")
    print(f"  {'engine':<10} {'tracemalloc peak':>18} {'peak RSS before':>18} {'process peak RSS':>18}")
    for name in ENGINES:
        code = MEMORY_PROBE.format(root=str(ROOT), name=name, seed=SEEDS[name], owner=OWNER, n=n)
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        if run.returncode:
            print(f"  {name:<10} failed: {run.stderr.strip().splitlines()[-1]}")
            continue
        traced, before, rss = (int(x) / 2**20 for x in run.stdout.split())
        print(f"  {name:<10} {traced:>14.1f} MiB {before:>14.1f} MiB {rss:>14.1f} MiB")
    print("  (tracemalloc: allocations traced during the call, result included; RSS: VmHWM of the whole\n"
          "   process - interpreter, numpy, cryptography - before the call, and its peak after it)")


# ---- section 3: whole process ---------------------------------------------------------------------

def python_setups(tmp: Path) -> dict[str, tuple[Path, dict[str, str]]]:
    """Where and how to run `python -m dealer`, each from its own copy of the package: with its
    bytecode cached, as after ``pip install`` (which compiles it), and with its modules compiled from
    source on every run (as in a fresh clone under PYTHONDONTWRITEBYTECODE). Python's own and numpy's
    bytecode is cached in both."""
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    setups = {}
    for label, env in (("bytecode cached", base), ("compiled each run", dict(base, PYTHONDONTWRITEBYTECODE="1"))):
        folder = tmp / label.replace(" ", "-")
        shutil.copytree(ROOT / "dealer", folder / "dealer", ignore=shutil.ignore_patterns("__pycache__"))
        setups[label] = (folder, env)
    return setups


def deal_tags(path: Path) -> list[str]:
    """The Deal tags of a PBN file, each rewritten to start with North (the first seat may vary)."""
    tags = re.findall(r'^\[Deal "([^"]*)"\]', path.read_text(encoding="latin-1"), flags=re.M)
    return [north_first(tag) for tag in tags]


def north_first(deal: str) -> str:
    first, _, hands = deal.partition(":")
    shift = "NESW".index(first.strip().upper())
    listed = hands.split()
    return "N:" + " ".join(listed[(k - shift) % 4] for k in range(4))


def whole_process_pbn(boards: int, reps: int, binary: str | None) -> None:
    print(f"\n3. Whole process: a PBN file of {boards:,} boards from one seed and owner, wall seconds from start "
          f"to exit ({reps} rounds; each round runs every command once, in turn; medians)")
    if binary is None:
        print("  no baseline: bigdealx is not on PATH; our figures only")
    seed = SEEDS["bigdeal"]
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        setups = python_setups(tmp)
        ours_file = tmp / "dealer.pbn"
        cached = setups["bytecode cached"]
        run_dealer_generate(seed, OWNER, boards, ours_file, cached[0], cached[1])  # writes the bytecode cache
        times: dict[str, list[float]] = {f"dealer generate, {k}": [] for k in setups}
        if binary:
            times["bigdealx"] = []
        bx_file: Path | None = None
        for rep in range(reps):
            if binary:
                seconds, bx_file = run_bigdealx(binary, seed, OWNER, boards, "pbn", tmp / f"bx{rep}")
                times["bigdealx"].append(seconds)
            for label, (where, env) in setups.items():
                # a new file, as bigdealx writes: the last one's deletion is not timed as ours
                ours_file.unlink()
                times[f"dealer generate, {label}"].append(run_dealer_generate(seed, OWNER, boards, ours_file,
                                                                              where, env))
        for label, series in times.items():
            mid = median(series)
            print(f"  {label:<34} median {mid:.3f} s (min {min(series):.3f}, max {max(series):.3f}; "
                  f"{fmt_rate(boards / mid)} deals/s)")
        if binary and bx_file:
            for label in setups:
                ratios = [b / o for b, o in zip(times["bigdealx"], times[f"dealer generate, {label}"], strict=True)]
                print(f"  bigdealx time / dealer generate time, {label}: median {statistics.median(ratios):.2f}x "
                      f"(min {min(ratios):.2f}x, max {max(ratios):.2f}x over the rounds)")
            same = deal_tags(bx_file) == deal_tags(ours_file)
            print(f"  same deals, in the same order, in both files: {'yes' if same else 'NO'} "
                  f"({len(deal_tags(ours_file)):,} deals)")


# ---- main -----------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", default="1000,100000", help="comma list of batch sizes (default 1000,100000)")
    parser.add_argument("--reps", type=int, default=3, help="round-robin repetitions (default 3)")
    parser.add_argument("--memory-deals", type=int, default=10**6, help="deals in the memory section (default 10**6)")
    parser.add_argument("--pbn-boards", type=int, default=100_000, help="boards in the whole-process section")
    parser.add_argument("--pbn-reps", type=int, default=3, help="rounds in the whole-process section (default 3)")
    parser.add_argument("--quick", action="store_true", help="a first look: tiny sizes, one repetition")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.reps, args.memory_deals, args.pbn_boards, args.pbn_reps = "1000", 1, 10_000, 1000, 1
        global MIN_SECONDS
        MIN_SECONDS = 0.02
    sizes = [int(s) for s in args.sizes.split(",")]

    methods: dict[str, Method] = {name: engine_method(name) for name in ENGINES}
    methods["random.shuffle"] = random_shuffle
    endplay = endplay_method()
    binary = bigdealx_on_path()
    baselines = {"random.shuffle": "a 52-list shuffled per deal and cut into four lists (in memory)",
                 "endplay generate_deals": "n unconstrained Deal objects (in memory)"
                 + (f" - {endplay}" if isinstance(endplay, str) else ""),
                 "bigdealx": f"Big Deal writing a PBN file (whole process): {binary}" if binary
                 else "not on PATH: no baseline for the whole-process section"}
    import cryptography

    header("generate: deals/s in memory, peak memory, a PBN file as a whole process", baselines,
           f"cryptography {cryptography.__version__}; sizes {sizes}, {args.reps} repetitions; PBN file of "
           f"{args.pbn_boards:,} boards, {args.pbn_reps} rounds")
    if not isinstance(endplay, str):
        methods["endplay generate_deals"] = endplay
    in_memory(methods, sizes, args.reps)
    memory(args.memory_deals)
    whole_process_pbn(args.pbn_boards, args.pbn_reps, binary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
