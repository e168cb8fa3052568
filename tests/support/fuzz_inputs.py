"""Mutated plans and deal files through `dealer plan`, `dealer convert` and `dealer deal` under a memory limit:
every input ends in one of the README's exit codes, never a traceback, a MemoryError or a kill.

Run the full count with ``python -m tests.stress.fuzz_inputs --inputs 1200``; the test suite runs a sample of
it (`tests/stress/test_fuzz_inputs.py`). The inputs are the project's congress example and test plan
and real deal files of other programs (tests/data), each mutated by a seeded generator: bytes flipped, lines
dropped, doubled or cut, and numbers swapped for huge ones (a board range of a billion boards, a count of copies no
room holds). A batch of inputs runs in one child process under ``RLIMIT_AS`` (as ``ulimit -v`` sets it), calling
the command line in-process: an exception that escapes `dealer.cli.main` is a traceback, a child that dies is a
kill, and either is a failure, named with the input that caused it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MEMORY_KB = 2_000_000
"""The address space each child gets, in KiB (``ulimit -v 2000000``)."""
EXIT_CODES = frozenset({0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 130})
"""The README's table; 1 is a bug's code and counted apart."""
SEEDS_OF_PLANS = [ROOT / "examples" / "congress.toml"]
DEAL_FILES = [ROOT / "tests" / "data" / "pbn" / "big-deal.pbn", ROOT / "tests" / "data" / "pbn" / "Schiphol.pbn",
              *sorted((ROOT / "tests" / "data" / "field" / "deal-convert").glob("test.*")),
              ROOT / "tests" / "data" / "field" / "duplimate" / "1.dlm"]
HUGE = ["999999999", "99999999999999999999", "100000", "0", "-1", "1e9", "65536"]


@dataclass(frozen=True)
class Case:
    """One mutated input and the command run on it."""

    number: int
    command: str
    name: str
    data: bytes


def mutate(data: bytes, rng: random.Random) -> bytes:
    """`data` changed in one or two ways a damaged or hostile file would be."""
    for _ in range(1 if rng.random() < 0.7 else 2):
        how = rng.randrange(6)
        lines = data.split(b"\n")
        if how == 0 and data:  # a byte flipped
            i = rng.randrange(len(data))
            data = data[:i] + bytes([rng.randrange(256)]) + data[i + 1:]
        elif how == 1 and len(lines) > 1:  # a line dropped
            del lines[rng.randrange(len(lines))]
            data = b"\n".join(lines)
        elif how == 2 and lines:  # a line doubled, a few times
            i = rng.randrange(len(lines))
            lines[i:i] = [lines[i]] * rng.randint(1, 40)
            data = b"\n".join(lines)
        elif how == 3 and data:  # cut short
            data = data[:rng.randrange(len(data))]
        else:  # a number made huge (or zero, or negative)
            numbers = list(re.finditer(rb"\d+", data))
            if numbers:
                m = rng.choice(numbers)
                data = data[:m.start()] + rng.choice(HUGE).encode() + data[m.end():]
    return data


def cases(count: int, seed: int) -> list[Case]:
    """`count` inputs: a third plans (`dealer plan`), the rest deal files (`convert`, and `deal` on a
    simulated machine for one in four)."""
    rng = random.Random(seed)
    made = []
    for n in range(count):
        if n % 3 == 0:
            source = rng.choice(SEEDS_OF_PLANS)
            made.append(Case(n, "plan", "plan.toml", mutate(source.read_bytes(), rng)))
        else:
            source = rng.choice(DEAL_FILES)
            command = "deal" if n % 4 == 1 else "convert"
            made.append(Case(n, command, f"in{source.suffix}", mutate(source.read_bytes(), rng)))
    return made


def argv_of(case: Case, folder: Path) -> list[str]:
    path = str(folder / case.name)
    if case.command == "plan":
        return ["plan", path]
    if case.command == "convert":
        return ["convert", path, str(folder / "out.pbn"), "--force"]
    return ["deal", path, "--port", "sim://?speed=2000", "--quiet", "--journal", str(folder / "run.journal"),
            "--history", str(folder / "history.sqlite")]


def child(batch: list[Case]) -> None:
    """Run `batch` in this process (already under its memory limit); one JSON line a case on stdout."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from dealer.cli import main
    from dealer.journal.history import DealHistory

    for case in batch:
        with tempfile.TemporaryDirectory(prefix="fuzz-") as tmp:
            folder = Path(tmp)
            (folder / case.name).write_bytes(case.data)
            if case.name == "plan.toml":  # what the example's plan names beside it
                for extra in (ROOT / "examples").iterdir():
                    if extra.is_file() and extra.suffix in {".pbn", ".sqd", ".sqk", ".json"}:
                        (folder / extra.name).write_bytes(extra.read_bytes())
            DealHistory.open(folder / "history.sqlite", create=True).close()
            err = io.StringIO()
            outcome: dict[str, object] = {"n": case.number, "command": case.command}
            try:
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                    outcome["code"] = main(argv_of(case, folder))
            except BaseException as exc:  # what would have been a traceback
                outcome["code"] = None
                outcome["escaped"] = f"{type(exc).__name__}: {str(exc)[:200]}"
            lines = [line for line in err.getvalue().splitlines() if line.startswith("dealer: error: ")]
            outcome["lines"] = len(lines)
            print(json.dumps(outcome), flush=True)


def run(count: int, seed: int, batch: int = 50) -> dict[str, object]:
    """Every case through a child process per batch; the tally, with every failure named."""
    made = cases(count, seed)
    codes: Counter[str] = Counter()
    failures: list[str] = []
    started = time.monotonic()
    for first in range(0, len(made), batch):
        group = made[first:first + batch]
        seen = _run_child(group)
        for case in group:
            outcome = seen.get(case.number)
            if outcome is None:
                failures.append(f"input {case.number} ({case.command}): the process was killed or died")
                codes["killed"] += 1
                break  # the rest of the batch did not run: counted as not run, not as passed
            code = outcome.get("code")
            codes[str(code)] += 1
            if "escaped" in outcome:
                failures.append(f"input {case.number} ({case.command}): {outcome['escaped']}")
            elif code not in EXIT_CODES or code == 1:
                failures.append(f"input {case.number} ({case.command}): exit {code}")
            elif code != 0 and outcome.get("lines") != 1:
                failures.append(f"input {case.number} ({case.command}): exit {code} with "
                                f"{outcome.get('lines')} error lines")
    ran = sum(n for code, n in codes.items() if code != "killed")
    return {"inputs": count, "ran": ran, "codes": dict(codes), "failures": failures,
            "seconds": round(time.monotonic() - started, 1)}


def _run_child(group: list[Case]) -> dict[int, dict[str, object]]:
    payload = json.dumps([{"number": c.number, "command": c.command, "name": c.name, "data": c.data.hex()}
                          for c in group])
    limit = MEMORY_KB * 1024
    proc = subprocess.run([sys.executable, "-c", "from tests.support.fuzz_inputs import main; main(['--child'])"],
                          input=payload,
                          capture_output=True, text=True, cwd=ROOT, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT)},
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
    seen = {}
    for line in proc.stdout.splitlines():
        with contextlib.suppress(ValueError):
            outcome = json.loads(line)
            seen[int(outcome["n"])] = outcome
    return seen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.stress.fuzz_inputs", description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=1200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        batch = [Case(c["number"], c["command"], c["name"], bytes.fromhex(c["data"])) for c in json.load(sys.stdin)]
        child(batch)
        return 0
    tally = run(args.inputs, args.seed)
    print(json.dumps(tally, indent=1))
    return 1 if tally["failures"] or tally["ran"] != args.inputs else 0
