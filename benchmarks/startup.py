"""Start-up time of quick commands, whole processes, against Python's own start-up in the same run.

    python benchmarks/startup.py [--reps 21] [--quick]

Times, as whole processes, ``python -c pass`` and ``python -c "import serial"`` (the baselines: the
least any Python program pays, and what a program that talks to a serial port pays) and ``python -c
"import numpy"``, as it is and with OPENBLAS_NUM_THREADS=1 as the command line sets it (the floor of
any command that handles deals, all of which are numpy arrays), then ``dealer --help``, ``dealer
ports`` (when the command exists) and ``dealer convert`` of a 32-board PBN file to DUP. ``dealer`` is
the console script installed beside this interpreter (as a user runs it), else ``python -m dealer``.
Every command runs once untimed first (warm: bytecode and file caches filled, PYTHONDONTWRITEBYTECODE
left out of the commands' environment), then the commands run in turn, round robin, so each repetition
meets the same machine load; the figures are medians (and minima) of the same number of runs.
Targets: ``dealer --help`` and ``dealer ports`` within 3x ``import serial``; ``dealer convert`` within
0.15 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _support import header

SEED = "0123456789abcdef0123456789abcdef01234567"
HELP_TARGET = 3.0  # dealer --help / import serial
CONVERT_TARGET = 0.15  # seconds
ONE_BLAS_THREAD = "OPENBLAS_NUM_THREADS=1"  # a command's first word: run it with that in its environment


def dealer_command() -> tuple[list[str], str]:
    """How to run `dealer`: the console script beside this interpreter, else `python -m dealer`."""
    script = Path(sys.executable).parent / "dealer"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)], f"console script {script}"
    return [sys.executable, "-m", "dealer"], "python -m dealer (no console script beside the interpreter)"


def has_command(dealer: list[str], name: str, folder: Path) -> bool:
    run = subprocess.run([*dealer, name, "--help"], cwd=folder, capture_output=True, stdin=subprocess.DEVNULL)
    return run.returncode == 0


def run_once(command: list[str], folder: Path) -> float:
    # warm means bytecode cached, as after an install: the untimed first run writes what is missing
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if command[:1] == [ONE_BLAS_THREAD]:
        command = command[1:]
        env["OPENBLAS_NUM_THREADS"] = "1"
    start = time.perf_counter()
    run = subprocess.run(command, cwd=folder, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, env=env)
    elapsed = time.perf_counter() - start
    if run.returncode:
        raise RuntimeError(f"{' '.join(command)} failed ({run.returncode}): {run.stderr.decode()[-300:]}")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=21, help="timed runs of each command (default 21)")
    parser.add_argument("--quick", action="store_true", help="3 runs each (checks the script runs)")
    args = parser.parse_args(argv)
    reps = 3 if args.quick else args.reps
    dealer, how = dealer_command()
    header("Start-up of quick commands, whole processes", {
        "python -c pass": "the interpreter starting and stopping, nothing imported",
        "import serial": 'python -c "import serial": what a program that talks to a serial port pays',
        "import numpy": 'python -c "import numpy", as it is and with one BLAS thread (as dealer sets it)',
    }, f"{reps} warm runs of each command, round robin; dealer: {how}; load average "
       + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        subprocess.run([*dealer, "generate", "--boards", "1-32", "--seed", SEED, "-o", "b32.pbn"],
                       cwd=folder, check=True, capture_output=True)
        commands: dict[str, list[str]] = {
            "python -c pass": [sys.executable, "-c", "pass"],
            'python -c "import serial"': [sys.executable, "-c", "import serial"],
            'python -c "import numpy"': [sys.executable, "-c", "import numpy"],
            'python -c "import numpy", one BLAS thread': [ONE_BLAS_THREAD, sys.executable, "-c", "import numpy"],
            "dealer --help": [*dealer, "--help"],
        }
        if has_command(dealer, "ports", folder):
            commands["dealer ports"] = [*dealer, "ports"]
        else:
            print("dealer ports: no such command on this branch (not timed)")
        commands["dealer convert (32 boards, PBN -> DUP)"] = [*dealer, "convert", "b32.pbn", "b32.dup", "--force"]
        for command in commands.values():
            run_once(command, folder)  # warm
        times: dict[str, list[float]] = {label: [] for label in commands}
        for _ in range(reps):
            for label, command in commands.items():
                times[label].append(run_once(command, folder))
    print(f"\nWhole processes, warm, {reps} runs each, round robin:")
    medians = {label: statistics.median(series) for label, series in times.items()}
    width = max(len(label) for label in times)
    for label, series in times.items():
        print(f"  {label:<{width}}  median {medians[label]:.3f} s  min {min(series):.3f} s  max {max(series):.3f} s")
    serial = medians['python -c "import serial"']
    bare = medians["python -c pass"]
    print("\nAgainst the baselines (medians):")
    for label in ("dealer --help", "dealer ports"):
        if label in medians:
            ratio = medians[label] / serial
            verdict = "met" if ratio <= HELP_TARGET else "NOT met"
            print(f"  {label}: {ratio:.2f}x import serial, {medians[label] / bare:.2f}x python -c pass "
                  f"(target <= {HELP_TARGET:g}x import serial: {verdict})")
    convert = medians["dealer convert (32 boards, PBN -> DUP)"]
    verdict = "met" if convert <= CONVERT_TARGET else "NOT met"
    numpy = medians['python -c "import numpy"']
    floor = medians['python -c "import numpy", one BLAS thread']
    print(f"  dealer convert: {convert:.3f} s, {convert / serial:.2f}x import serial, {convert / numpy:.2f}x "
          f"import numpy, {convert / floor:.2f}x import numpy with one BLAS thread (as dealer runs it) "
          f"(target <= {CONVERT_TARGET} s: {verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
