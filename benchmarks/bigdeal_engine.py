"""Deals per second of the bigdeal engine, in memory, against Big Deal's own bigdealx.

Run from the project root: ``python benchmarks/bigdeal_engine.py [--max 1000000]``.
Prints, per batch size, the best of three runs of ``BigDealEngine.deals(n)`` as it runs by default
(hashlib for small batches, numpy for large ones), with hashlib's RIPEMD-160 only and with the numpy
RIPEMD-160 only; and, if ``bigdealx`` is on PATH, the rate of
``bigdealx -h SEED -W OWNER -n N -f goedel`` (numbers only: hashing and rejection, no deal
decoding) and of ``-f pbn`` (what a user gets), timed as subprocesses in the same run.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dealer.engines.bigdeal import BigDealEngine, hashlib_has_ripemd160  # noqa: E402

SEED = bytes.fromhex("0123456789abcdef0123456789abcdef01234567")
OWNER = "Benchmark owner"


def engine_rate(count: int, use_hashlib: bool | None, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        engine = BigDealEngine(SEED, OWNER, use_hashlib=use_hashlib)
        start = time.perf_counter()
        engine.deals(count)
        best = min(best, time.perf_counter() - start)
    return count / best


def bigdealx_rate(binary: str, count: int, fmt: str) -> float:
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, ".bigdealrc").write_text("[BigDeal]\nformats=pbn\naskformats=no\nowner=x\n")
        args = [binary, "-h", SEED.hex(), "-W", OWNER, "-n", str(count), "-f", fmt, "-p", "bench"]
        start = time.perf_counter()
        subprocess.run(args, cwd=folder, stdin=subprocess.DEVNULL, capture_output=True, check=True)
        return count / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=int, default=10**6, help="largest batch (default 10**6)")
    args = parser.parse_args()
    sizes = [n for n in (10**3, 10**5, 10**6) if n <= args.max]
    binary = shutil.which("bigdealx")
    print(f"hashlib RIPEMD-160 available: {hashlib_has_ripemd160()}; bigdealx: {binary or 'not on PATH'}")
    for n in sizes:
        ours = engine_rate(n, None)
        only_hashlib = engine_rate(n, True) if hashlib_has_ripemd160() else float("nan")
        only_numpy = engine_rate(n, False)
        line = (f"n={n:>8,}  engine {ours:>10,.0f}/s  hashlib only {only_hashlib:>10,.0f}/s  "
                f"numpy RIPEMD only {only_numpy:>10,.0f}/s")
        if binary and n <= 10**5:
            numbers = bigdealx_rate(binary, n, "goedel")
            pbn = bigdealx_rate(binary, n, "pbn")
            line += (f"  bigdealx numbers {numbers:>9,.0f}/s (x{ours / numbers:.1f})"
                     f"  bigdealx pbn {pbn:>9,.0f}/s (x{ours / pbn:.1f})")
        print(line)


if __name__ == "__main__":
    main()
