"""Prepared boards against Hans van Staveren's C `dealer` program: deals examined a second and the time to
make the boards, for scripts of high and low acceptance, each as a whole process, in the same run.

    python benchmarks/prepared.py [--boards 200] [--reps 3] [--examine 20000000] [--quick]

Ours is ``python -m dealer generate --count N --where SCRIPT -o FILE`` with each engine (the deals examined
are the figure it prints), on every CPU and, for the shuffle engine, on one thread too; the baseline is
``dealer -p N SCRIPT`` (the C program where the user has it: DEALER_REFERENCE, default Debian's
/usr/games/dealer; its "Generated" line is its deals examined). Each round runs every command once in turn;
the figures are medians over --reps rounds, wall seconds from start to exit.

First every script makes --boards boards (the time to make them); then each script that accepts under 1 % of
deals makes as many boards as take about --examine deals examined, so that examining, not starting the
process, is the work the figures of deals examined a second measure.
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

from dealer.core.parallel import default_threads

SCRIPTS = {
    "an opening hand": "hcp(north) >= 12\n",
    "a strong two": "hcp(north) >= 22 or (hcp(north) >= 20 and losers(north) <= 4)\n",
    "a 1NT opening facing five spades and game values": (
        "nt = shape(north, any 4333 + any 4432 + any 5332 - 5xxx - x5xx) and hcp(north) >= 15 and hcp(north) <= 17\n"
        "nt and spades(south) >= 5 and hcp(south) >= 10\n"),
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


def ours(script: Path, boards: int, engine: str, folder: Path, threads: int | None = None) -> tuple[float, int]:
    out = folder / "out.pbn"
    command = [sys.executable, "-m", "dealer", "generate", "--count", str(boards), "--where", str(script),
               "--engine", engine, "-o", str(out), "--force"] + ([] if threads is None else ["--threads", str(threads)])
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
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


def run(command: str, program: str | None, script: Path, boards: int, folder: Path, round_: int) -> tuple[float, int]:
    """One whole process of `command`: its wall seconds and the deals it examined."""
    if command == "the dealer program":
        assert program is not None
        return theirs(program, script, boards, 1 + round_)
    _, engine, *rest = command.split(", ")
    return ours(script, boards, engine, folder, 1 if rest else None)


def measure(commands: list[str], program: str | None, script: Path, boards: int, reps: int,
            folder: Path) -> tuple[dict[str, float], dict[str, float], float]:
    """Median wall seconds and deals examined a second of each command, and the first command's median
    deals examined."""
    walls: dict[str, list[float]] = {c: [] for c in commands}
    rates: dict[str, list[float]] = {c: [] for c in commands}
    counts: list[float] = []
    for round_ in range(reps):
        for command in commands:
            wall, examined = run(command, program, script, boards, folder, round_)
            walls[command].append(wall)
            rates[command].append(examined / wall)
            if command == commands[0]:
                counts.append(examined)
    return ({c: median(w) for c, w in walls.items()}, {c: median(r) for c, r in rates.items()}, median(counts))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=200)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--examine", type=int, default=20_000_000,
                        help="for scripts accepting under 1%%: about this many deals examined in the rate runs")
    parser.add_argument("--quick", action="store_true", help="20 boards, one round (the tests' run)")
    args = parser.parse_args()
    boards, reps, examine = (20, 1, 200_000) if args.quick else (args.boards, args.reps, args.examine)
    program = reference()
    threads = default_threads()
    header("Prepared boards: deals examined a second, ours against the C dealer program",
           {"the dealer program": program or "no baseline: the dealer program is not installed "
                                              "(apt-get install dealer, or DEALER_REFERENCE=PATH)"},
           f"{boards} boards a run, {reps} rounds; ours on {threads} threads (one a CPU) and on 1")
    commands = ["ours, shuffle", "ours, bigdeal"] + (["the dealer program"] if program else [])
    rate_commands = ["ours, shuffle", "ours, shuffle, 1 thread", "ours, bigdeal"] + commands[2:]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, text in SCRIPTS.items():
            script = folder / "script.dlr"
            script.write_text(text)
            walls, _, seen = measure(commands, program, script, boards, reps, folder)
            acceptance = boards / seen
            print(f"{name}: {' '.join(text.split())!r}, acceptance {acceptance:.3%} ({commands[0]})")
            for command in commands:
                print(f"  {command:<26} {walls[command]:7.3f} s for {boards} boards (whole process)")
            if acceptance >= 0.01:
                print("  (acceptance of 1% or more: starting the process, not examining, is the work)")
                continue
            long = max(boards, round(examine * acceptance))
            _, rates, _ = measure(rate_commands, program, script, long, reps, folder)
            print(f"  deals examined a second, {long} boards (about {long / acceptance:,.0f} deals examined):")
            for command in rate_commands:
                print(f"  {command:<26} {rates[command]:>12,.0f} deals examined/s (whole process)")
            if program:
                for command in rate_commands[:3]:
                    ratio = rates[command] / rates["the dealer program"]
                    print(f"  {command} / the dealer program: {ratio:.2f}x deals examined a second")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
