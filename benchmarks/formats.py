"""Boards per second to write and read deal files, in every format `dealer.formats` registers.

For each format: write N boards (``write_file``: atomic, with fsync) and read them back (``read_file``),
best of R runs, and check that every board came back. A format that holds one run of boards 1-99 per
file (DUP, DLM) is measured on N boards written as ceil(N / 99) files of boards 1-99 (the last one
shorter), which is how such a session is kept; their file figures include one temporary file, fsync
and rename per 99 boards, so the codec alone is also timed in memory (``write`` to and ``read`` from a
``BytesIO``) for every format. Baselines in the same run:

- Big Deal: ``bigdealx`` writing N boards of PBN, the whole process (it deals them too), if it is on
  PATH or at /work/tools/bin/bigdealx;
- endplay's PBN reader (``endplay.parsers.pbn.load``) on the file this program wrote, if importable.

Deals for the benchmark are numpy permutations of the 52 seat labels (no engine needed).

    python benchmarks/formats.py [--boards 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import io
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
from types import ModuleType
from typing import Final

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a clone without installing

from dealer.core.dealset import DealSet  # noqa: E402
from dealer.formats import format_names, get_format, read_file, write_file  # noqa: E402

BIGDEALX_PLACES = ("/work/tools/bin/bigdealx",)
BINARY: Final = ("dup", "bri", "dge", "ber", "bhg")  # fixed-size binary records
BINARY_GOAL: Final = 100_000
PBN_GOAL: Final = 50_000
BIGDEAL_RC = "[BigDeal]\nformats=pbn\naskformats=no\nowner=benchmark\n"


def random_deals(count: int, seed: int = 2024) -> np.ndarray:
    """`count` deals: each row a random permutation of 13 N, 13 E, 13 S and 13 W labels."""
    rows = np.tile(np.repeat(np.arange(4, dtype=np.uint8), 13), (count, 1))
    return np.random.default_rng(seed).permuted(rows, axis=1)


def deal_sets_for(name: str, deals: np.ndarray) -> list[DealSet]:
    """The deals as one set numbered 1..N, or, for a format that holds boards 1..MAX_BOARD only, as
    sets of boards 1..MAX_BOARD (one file each)."""
    limit = get_format(name).MAX_BOARD
    if not limit:
        return [DealSet.from_deals(deals, np.arange(1, len(deals) + 1), event="Benchmark")]
    return [DealSet.from_deals(deals[i:i + limit], event="Benchmark") for i in range(0, len(deals), limit)]


def best_seconds(repeat: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


@dataclass
class FormatResult:
    """What one format measured: boards/s both ways (files and in memory) and whether every board came
    back."""

    name: str
    files: int = 0
    write: float = 0.0
    read: float = 0.0
    write_memory: float = 0.0
    read_memory: float = 0.0
    size: int = 0
    path: Path | None = None
    same: bool = False
    error: str = ""


def bench_format(name: str, deals: np.ndarray, folder: Path, repeat: int) -> FormatResult:
    """Write and read rates of one format, or the reason it could not be measured."""
    module = get_format(name)
    sets = deal_sets_for(name, deals)
    paths = [folder / f"bench{i:05d}.{module.EXTENSIONS[0]}" for i in range(len(sets))]
    pairs = list(zip(paths, sets, strict=True))
    try:
        write = best_seconds(repeat, lambda: [write_file(p, d, name, force=True) for p, d in pairs])
        back: list[list[DealSet]] = []
        read = best_seconds(repeat, lambda: back.append([read_file(p, name) for p in paths]))
        blobs: list[bytes] = []
        write_memory = best_seconds(repeat, lambda: blobs.extend(encode(module, d) for d in sets))
        data = blobs[:len(sets)]
        read_memory = best_seconds(repeat, lambda: [decode(module, b) for b in data])
    except Exception as exc:  # report it and go on to the next format
        return FormatResult(name, error=f"{type(exc).__name__}: {exc}")
    n = len(deals)
    same = all(a.same_deals(b) for a, b in zip(back[-1], sets, strict=True))
    return FormatResult(name, len(sets), n / write, n / read, n / write_memory, n / read_memory,
                        sum(p.stat().st_size for p in paths), paths[0], same)


def encode(module: ModuleType, deals: DealSet) -> bytes:
    out = io.BytesIO()
    module.write(out, deals)
    return out.getvalue()


def decode(module: ModuleType, data: bytes) -> DealSet:
    return DealSet.concat(module.read(io.BytesIO(data), "memory"))


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


def show_format(r: FormatResult) -> None:
    if r.error:
        show(f"{r.name}: not measured", None, r.error)
        return
    files = f"{r.files:,} files of up to 99 boards" if r.files > 1 else "one file"
    show(f"{r.name} write (file, atomic)", r.write, f"{r.size:,} bytes in {files}")
    show(f"{r.name} read (file)", r.read, "all boards back" if r.same else "BOARDS DIFFER")
    show(f"{r.name} write (in memory)", r.write_memory)
    show(f"{r.name} read (in memory)", r.read_memory)


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
            show_format(r)
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
    show_goals(results)
    return 0 if all(r.same for r in results) else 1


def show_goals(results: list[FormatResult]) -> None:
    """The goals of the formats work, against the file figures (the slower of each pair)."""
    print(f"goals (file figures): binary formats ({', '.join(BINARY)}) >= {BINARY_GOAL:,} boards/s "
          f"each way, PBN >= {PBN_GOAL:,}")
    for r in results:
        goal = BINARY_GOAL if r.name in BINARY else PBN_GOAL if r.name == "pbn" else None
        if goal is None or r.error:
            continue
        slower = min(r.write, r.read)
        print(f"  {r.name:<5} slower way {slower:>12,.0f} boards/s  {'met' if slower >= goal else 'NOT MET'}")


if __name__ == "__main__":
    raise SystemExit(main())
