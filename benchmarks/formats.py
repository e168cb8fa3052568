"""Boards per second to write and read deal files, in every format `dealer.formats` registers.

For each format, in process: write N boards (``write_file``: atomic, with fsync) and read them back
(``read_file``), each the median of R runs, and check that every board came back. A format that holds
one run of boards 1-99 per file (DUP, DLM) is measured on N boards written as ceil(N / 99) files of
boards 1-99 (the last one shorter), which is how such a session is kept; their file figures include
one temporary file, fsync and rename per 99 boards, so the codec alone is also timed in memory
(``write`` to and ``read`` from a ``BytesIO``) for every format. Baselines in the same run, timed as
ours are (R runs, median), if endplay is importable:

- ``endplay PBN reader``: ``endplay.parsers.pbn.load`` on the PBN file written here (file against our
  ``read_file`` of that file) and ``loads`` on its text (in memory, against our PBN ``read`` from bytes);
- ``endplay PBN writer``: ``endplay.parsers.pbn.dumps`` of the boards endplay read (in memory, against
  our PBN ``write`` to a ``BytesIO``).

Deals for the benchmark are numpy permutations of the 52 seat labels (no engine needed). Big Deal's
``bigdealx`` deals and writes in one whole process; it is set against ``dealer generate`` (also a whole
process) in ``benchmarks/generate.py``.

    python benchmarks/formats.py [--boards 20000] [--repeats 3] [--quick]
"""

from __future__ import annotations

import argparse
import io
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Final

import numpy as np
from _support import header, median, timings  # the project root on sys.path too

from dealer.core.dealset import DealSet
from dealer.formats import format_names, get_format, read_file, write_file

BINARY: Final = ("dup", "bri", "dge", "ber", "bhg")  # fixed-size binary records
BINARY_GOAL: Final = 100_000
PBN_GOAL: Final = 50_000


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


def median_seconds(repeats: int, run: Callable[[], object]) -> float:
    return median(timings(run, repeats))


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
        write = median_seconds(repeat, lambda: write_files(pairs, name))
        back: list[list[DealSet]] = []
        read = median_seconds(repeat, lambda: back.append([read_file(p, name) for p in paths]))
        blobs: list[bytes] = []
        write_memory = median_seconds(repeat, lambda: blobs.extend(encode(module, d) for d in sets))
        data = blobs[:len(sets)]
        read_memory = median_seconds(repeat, lambda: [decode(module, b) for b in data])
    except Exception as exc:  # report it and go on to the next format
        return FormatResult(name, error=f"{type(exc).__name__}: {exc}")
    n = len(deals)
    same = all(a.same_deals(b) for a, b in zip(back[-1], sets, strict=True))
    return FormatResult(name, len(sets), n / write, n / read, n / write_memory, n / read_memory,
                        sum(p.stat().st_size for p in paths), paths[0], same)


def write_files(pairs: list[tuple[Path, DealSet]], name: str) -> None:
    for path, deals in pairs:
        write_file(path, deals, name, force=True)


def encode(module: ModuleType, deals: DealSet) -> bytes:
    out = io.BytesIO()
    module.write(out, deals)
    return out.getvalue()


def decode(module: ModuleType, data: bytes) -> DealSet:
    return DealSet.concat(module.read(io.BytesIO(data), "memory"))


@dataclass
class EndplayResult:
    """endplay's PBN figures (boards/s), or why they are missing."""

    read: float = 0.0
    read_memory: float = 0.0
    write_memory: float = 0.0
    error: str = ""


def bench_endplay(path: Path, count: int, repeats: int) -> EndplayResult:
    """endplay's PBN reader on `path` (file and text) and writer (text), or why not."""
    try:
        from endplay.parsers import pbn as endplay_pbn  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return EndplayResult(error="not available (endplay is not installed)")

    def load() -> list[Any]:
        with open(path, encoding="latin-1", newline="") as f:
            boards: list[Any] = endplay_pbn.load(f)
        if len(boards) != count:
            raise RuntimeError(f"endplay read {len(boards)} boards, not {count}")
        return boards

    text = path.read_text(encoding="latin-1")
    boards = load()
    return EndplayResult(count / median_seconds(repeats, load),
                         count / median_seconds(repeats, lambda: endplay_pbn.loads(text)),
                         count / median_seconds(repeats, lambda: endplay_pbn.dumps(boards)))


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--boards", type=int, default=20_000, help="boards written and read (default 20,000)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each measurement, ours and the baselines'; "
                        "the median counts (default 3)")
    parser.add_argument("--quick", action="store_true", help="a first look: 200 boards, one run")
    args = parser.parse_args(argv)
    if args.quick:
        args.boards, args.repeats = 200, 1
    n, repeats = args.boards, args.repeats
    deals = random_deals(n)
    header("formats: boards/s written and read, in every format, in files and in memory",
           {"endplay PBN reader": "endplay.parsers.pbn.load of our PBN file, and loads of its text",
            "endplay PBN writer": "endplay.parsers.pbn.dumps of the boards it read (in memory)"},
           f"{n:,} boards, median of {repeats} runs of each measurement")
    with tempfile.TemporaryDirectory() as tmp:
        results = [bench_format(name, deals, Path(tmp), repeats) for name in format_names()]
        for r in results:
            show_format(r)
        pbn = next((r for r in results if r.name == "pbn" and r.path), None)
        endplay = (bench_endplay(pbn.path, n, repeats) if pbn and pbn.path
                   else EndplayResult(error="no PBN file to read"))
    if endplay.error:
        show("endplay PBN reader and writer", None, endplay.error)
    else:
        show("endplay PBN read (file)", endplay.read, "endplay.parsers.pbn.load")
        show("endplay PBN read (in memory)", endplay.read_memory, "endplay.parsers.pbn.loads")
        show("endplay PBN write (in memory)", endplay.write_memory, "endplay.parsers.pbn.dumps")
    if pbn and not pbn.error and not endplay.error:
        print("ratios (ours / endplay, boards/s; >1: ours is faster)")
        print(f"  pbn read (file)        {pbn.read / endplay.read:8.1f}x")
        print(f"  pbn read (in memory)   {pbn.read_memory / endplay.read_memory:8.1f}x")
        print(f"  pbn write (in memory)  {pbn.write_memory / endplay.write_memory:8.1f}x")
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
