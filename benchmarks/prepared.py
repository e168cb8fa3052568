"""Prepared boards against Hans van Staveren's C `dealer` program: deals examined a second and the time to
make the boards, for scripts of high and low acceptance, each as a whole process, in the same run.

    python benchmarks/prepared.py [--boards 200] [--reps 3] [--quick]

Ours is ``python -m dealer generate --count N --where SCRIPT -o FILE`` with each engine (the deals examined
are the figure it prints); the baseline is ``dealer -p N SCRIPT`` (the C program where the user has it:
DEALER_REFERENCE, default Debian's /usr/games/dealer; its "Generated" line is its deals examined). Each round
runs every command once in turn; the figures are medians over --reps rounds, wall seconds from start to exit.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _support import ROOT, header, median

SCRIPTS = {
    "an opening hand": "hcp(north) >= 12\n",
    "a strong two": "hcp(north) >= 22 or (hcp(north) >= 20 and losers(north) <= 4)\n",
    "a weak two with a fit": ("w2 = hearts(north) == 6 and hcp(north) >= 5 and hcp(north) <= 10 and "
                           "top3(north, hearts) >= 1 and spades(north) < 4\n"
                           "fit = hearts(south) >= 3 and hcp(south) >= 14\nw2 and fit\n"),
}


def reference() -> str | None:
    """DEALER_REFERENCE, else the first `dealer` on PATH that is a compiled program (not this project's
    command); Debian installs it in the games folder, which a user's PATH holds."""
    given = os.environ.get("DEALER_REFERENCE")
    if given:
        return given if Path(given).is_file() else None
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        candidate = Path(folder or ".") / "dealer"
        if candidate.is_file() and candidate.read_bytes()[:2] != b"#!":
            return str(candidate)
    return None


def ours(script: Path, boards: int, engine: str, folder: Path) -> tuple[float, int]:
    out = folder / "out.pbn"
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "dealer", "generate", "--count", str(boards), "--where", str(script),
                           "--engine", engine, "-o", str(out), "--force"], cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    found = re.search(r"among (\d+) examined", done.stdout)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"dealer generate failed: {done.stderr.strip()}")
    return wall, int(found.group(1))


def theirs(program: str, script: Path, boards: int, seed: int) -> tuple[float, int]:
    start = time.perf_counter()
    done = subprocess.run([program, "-s", str(seed), "-p", str(boards), str(script)], capture_output=True,
                          text=True)
    wall = time.perf_counter() - start
    found = re.search(r"Generated (\d+) hands", done.stdout)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"the dealer program failed: {done.stderr.strip()}")
    return wall, int(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=200)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="20 boards, one round (the tests' run)")
    args = parser.parse_args()
    boards, reps = (20, 1) if args.quick else (args.boards, args.reps)
    program = reference()
    header("Prepared boards: deals examined a second, ours against the C dealer program",
           {"the dealer program": program or "no baseline: the dealer program is not installed "
                                              "(apt-get install dealer, or DEALER_REFERENCE=PATH)"},
           f"{boards} boards a run, {reps} rounds, {os.cpu_count()} CPUs")
    commands = ["ours, shuffle", "ours, bigdeal"] + (["the dealer program"] if program else [])
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, text in SCRIPTS.items():
            script = folder / "script.dlr"
            script.write_text(text)
            walls: dict[str, list[float]] = {c: [] for c in commands}
            rates: dict[str, list[float]] = {c: [] for c in commands}
            counts: dict[str, list[float]] = {c: [] for c in commands}
            for round_ in range(reps):
                for command in commands:
                    if command == "the dealer program":
                        assert program is not None
                        wall, examined = theirs(program, script, boards, 1 + round_)
                    else:
                        wall, examined = ours(script, boards, command.split(", ")[1], folder)
                    walls[command].append(wall)
                    rates[command].append(examined / wall)
                    counts[command].append(examined)
            seen = median(counts[commands[0]])
            print(f"{name}: {' '.join(text.split())!r}, acceptance {boards / seen:.3%} ({commands[0]})")
            for command in commands:
                print(f"  {command:<20} {median(rates[command]):>12,.0f} deals examined/s   "
                      f"{median(walls[command]):7.3f} s for {boards} boards")
            if program:
                for command in commands[:2]:
                    ratio = median(rates[command]) / median(rates["the dealer program"])
                    print(f"  {command} / the dealer program: {ratio:.2f}x deals examined a second")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
