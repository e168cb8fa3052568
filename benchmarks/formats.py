"""Boards per second to write and read deal files, in every format `dealer.formats` registers.

For each format: write N boards (``write_file``: atomic, with fsync) and read them back (``read_file``),
best of R runs, and check that every board came back. Baselines in the same run:

- Big Deal: ``bigdealx`` writing N boards of PBN, the whole process (it deals them too), if it is on
  PATH or at /work/tools/bin/bigdealx;
- endplay's PBN reader (``endplay.parsers.pbn.load``) on the file this program wrote, if importable.

Deals for the benchmark are numpy permutations of the 52 seat labels (no engine needed).

    python benchmarks/formats.py [--boards 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a clone without installing

from dealer.dealset import DealSet  # noqa: E402
from dealer.formats import format_names, get_format, read_file, write_file  # noqa: E402

BIGDEALX_PLACES = ("/work/tools/bin/bigdealx",)
BIGDEAL_RC = "[BigDeal]\nformats=pbn\naskformats=no\nowner=benchmark\n"


def random_deals(count: int, seed: int = 2024) -> np.ndarray:
    """`count` deals: each row a random permutation of 13 N, 13 E, 13 S and 13 W labels."""
    rows = np.tile(np.repeat(np.arange(4, dtype=np.uint8), 13), (count, 1))
    return np.random.default_rng(seed).permuted(rows, axis=1)


def deal_set_for(name: str, deals: np.ndarray) -> DealSet:
    """The deals numbered 1..N, or cycling 1..MAX_BOARD for a format that holds only so many boards."""
    limit = get_format(name).MAX_BOARD
    boards = np.arange(len(deals)) % limit + 1 if limit else np.arange(1, len(deals) + 1)
    return DealSet.from_deals(deals, boards, event="Benchmark")


def best_seconds(repeat: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


@dataclass
class FormatResult:
    """What one format measured: boards/s both ways and whether every board came back."""

    name: str
    write: float = 0.0
    read: float = 0.0
    size: int = 0
    path: Path | None = None
    same: bool = False
    error: str = ""


def bench_format(name: str, deals: np.ndarray, folder: Path, repeat: int) -> FormatResult:
    """Write and read rates of one format, or the reason it could not be measured."""
    module = get_format(name)
    path = folder / f"bench.{module.EXTENSIONS[0]}"
    data = deal_set_for(name, deals)
    try:
        write = best_seconds(repeat, lambda: write_file(path, data, name, force=True))
        back: list[DealSet] = []
        read = best_seconds(repeat, lambda: back.append(read_file(path, name)))
    except Exception as exc:  # report it and go on to the next format
        return FormatResult(name, error=f"{type(exc).__name__}: {exc}")
    return FormatResult(name, len(deals) / write, len(deals) / read, path.stat().st_size, path,
                        back[-1].same_deals(data))


def find_bigdealx() -> str | None:
    found = shutil.which("bigdealx")
    if found:
        return found
    return next((p for p in BIGDEALX_PLACES if os.access(p, os.X_OK)), None)


def bench_bigdealx(count: int, repeat: int) -> tuple[float | None, str]:
    """Boards/s of the whole `bigdealx -n COUNT -f pbn` process (best of `repeat`), or why not."""
    exe = find_bigdealx()
    if exe is None:
        return None, "not available (no bigdealx on PATH or in /work/tools/bin)"
    times = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:  # a fresh folder: Big Deal logs every seed it used
            Path(tmp, ".bigdealrc").write_text(BIGDEAL_RC)
            command = [exe, "-h", secrets.token_hex(20), "-n", str(count), "-p", "bench", "-f", "pbn"]
            start = time.perf_counter()
            done = subprocess.run(command, cwd=tmp, stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=600, check=False)
            times.append(time.perf_counter() - start)
            out = Path(tmp, "bench.pbn")
            if done.returncode or not out.is_file():
                return None, f"failed: exit {done.returncode}, {done.stderr.decode(errors='replace')[:200]}"
            boards = len(read_file(out))  # and our reader takes Big Deal's own output
            if boards != count:
                return None, f"wrote {boards} boards, not {count}"
    return count / min(times), f"{exe} (whole process: dealing and writing; its file read back: {count})"


def bench_endplay(path: Path, count: int, repeat: int) -> tuple[float | None, str]:
    """Boards/s of endplay's PBN reader on `path`, or why not."""
    try:
        from endplay.parsers import pbn as endplay_pbn  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None, "not available (endplay is not installed)"

    def load() -> object:
        with open(path, encoding="latin-1", newline="") as f:
            boards = endplay_pbn.load(f)
        if len(boards) != count:
            raise RuntimeError(f"endplay read {len(boards)} boards, not {count}")
        return boards

    return count / best_seconds(repeat, load), "endplay.parsers.pbn.load"


def show(label: str, rate: float | None, note: str = "") -> None:
    figure = f"{rate:>12,.0f} boards/s" if rate is not None else f"{'-':>12} {'':8}"
    print(f"  {label:<34} {figure}  {note}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each measurement; the best counts")
    args = parser.parse_args()
    n = args.boards
    deals = random_deals(n)
    print(f"{n:,} boards, best of {args.repeat} runs, "
          f"python {sys.version.split()[0]}, numpy {np.__version__}")
    with tempfile.TemporaryDirectory() as tmp:
        results = [bench_format(name, deals, Path(tmp), args.repeat) for name in format_names()]
        for r in results:
            if r.error:
                show(f"{r.name}: not measured", None, r.error)
                continue
            show(f"{r.name} write (file, atomic)", r.write, f"{r.size:,} bytes")
            show(f"{r.name} read", r.read, "all boards back" if r.same else "BOARDS DIFFER")
        bigdeal, bigdeal_note = bench_bigdealx(n, min(args.repeat, 2))
        show("Big Deal: bigdealx -f pbn", bigdeal, bigdeal_note)
        pbn = next((r for r in results if r.name == "pbn" and r.path), None)
        endplay, endplay_note = (bench_endplay(pbn.path, n, 1) if pbn and pbn.path
                                 else (None, "no PBN file to read"))
        show("endplay PBN reader", endplay, endplay_note)
    print("ratios")
    if pbn and bigdeal:
        print(f"  pbn write / bigdealx         {pbn.write / bigdeal:8.1f}x"
              "  (bigdealx also deals; this writes ready deals)")
    if pbn and endplay:
        print(f"  pbn read / endplay read      {pbn.read / endplay:8.1f}x")
    return 0 if all(r.same for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
