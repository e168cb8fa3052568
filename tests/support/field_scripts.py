"""Scripts from the field against the C program: each script file is run by `dealer generate --where` (as a
user runs it) and by the C program, and the acceptance rates and each `average` and `frequency` statistic
are compared within sampling error (|z| < 4).

    python -m tests.support.field_scripts SCRIPT_OR_FOLDER... [--produce 4000] [--generate 4000000]

The C program is DEALER_REFERENCE, default Debian's /usr/games/dealer. Exit 0 when every script runs and
agrees, 1 otherwise; one line a script, then a line for each statistic that disagrees.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dealer.core.cards import DealArray
from dealer.formats import read_file
from dealer.prepared import Compiled
from dealer.prepared.boards import load
from dealer.prepared.script import ScriptAction

REFERENCE = os.environ.get("DEALER_REFERENCE", "/usr/games/dealer")
Z_LIMIT = 4.0


@dataclass
class Verdict:
    """What one script gave: its rates and z, or why it could not be compared."""

    name: str
    ours: tuple[int, int] = (0, 0)  # kept, examined
    theirs: tuple[int, int] = (0, 0)  # produced, generated
    z: float = 0.0
    problems: list[str] = field(default_factory=list)
    statistics: int = 0

    @property
    def agrees(self) -> bool:
        return not self.problems

    def line(self) -> str:
        if self.ours[1] == 0 or self.theirs[1] == 0:
            return f"{self.name}: NOT RUN: {'; '.join(self.problems)}"
        ours, theirs = self.ours[0] / self.ours[1], self.theirs[0] / self.theirs[1]
        said = "agrees" if self.agrees else "DISAGREES"
        return (f"{self.name}: {said}: acceptance ours {self.ours[0]}/{self.ours[1]} = {ours:.5f}, the C program's "
                f"{self.theirs[0]}/{self.theirs[1]} = {theirs:.5f}, z = {self.z:+.2f}; "
                f"{self.statistics} statistics compared")


def two_proportions(a: int, n: int, b: int, m: int) -> float:
    """The z of the difference of two binomial proportions a/n and b/m (pooled); 0 when both are 0 or 1."""
    p = (a + b) / (n + m)
    spread = math.sqrt(p * (1 - p) * (1 / n + 1 / m))
    return 0.0 if spread == 0 else (a / n - b / m) / spread


def c_run(program: str, script: Path, produce: int, generate: int, seed: int) -> str:
    done = subprocess.run([program, "-s", str(seed), "-p", str(produce), "-g", str(generate), str(script)],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"the C program failed: {done.stderr.strip()[:200]}")
    return done.stdout


def _counts(out: str) -> tuple[int, int] | None:
    """The C program's deals produced and generated, from its totals."""
    made, produced = re.search(r"Generated (\d+) hands", out), re.search(r"Produced (\d+) hands", out)
    return None if made is None or produced is None else (int(produced.group(1)), int(made.group(1)))


def compare(script: Path, program: str, produce: int, generate: int, seed: int = 7) -> Verdict:
    """Run `script` both ways and compare."""
    verdict = Verdict(script.name)
    try:
        parsed = load(str(script))
    except Exception as exc:  # noqa: BLE001 - the one line a user would see is the verdict
        verdict.problems.append(f"ours refused it: {exc}")
        return verdict
    # the C program prints no totals when its bound on deals comes first (with a print action): a first short run
    # gives the rate, and the counted run asks for what about 80 % of the bound makes, with room to spare
    pilot = _counts(c_run(program, script, min(produce, 50), generate, seed))
    if pilot is None or pilot[0] == 0:
        verdict.problems.append(f"the C program produced no deal in {generate} (or printed no totals)")
        return verdict
    wanted = max(1, min(produce, int(0.8 * generate * pilot[0] / pilot[1])))
    for fewer in range(5):  # it leaves its totals out for some counts (727 of one script, not 700 or 800)
        out = c_run(program, script, max(1, wanted - fewer), 10 * generate, seed)
        if (counts := _counts(out)) is not None:
            break
    if counts is None or counts[0] == 0:
        verdict.problems.append("the C program printed no totals")
        return verdict
    made, produced = re.search(r"Generated (\d+) hands", out), re.search(r"Produced (\d+) hands", out)
    assert made is not None and produced is not None
    verdict.theirs = (int(produced.group(1)), int(made.group(1)))
    with tempfile.TemporaryDirectory() as tmp:
        deals_file, report_file = Path(tmp) / "out.pbn", Path(tmp) / "report.json"
        done = subprocess.run([sys.executable, "-m", "dealer", "generate", "--count", str(verdict.theirs[0]),
                               "--where", str(script), "--max-deals", str(50 * verdict.theirs[1] + 1_000_000),
                               "--seed", f"{seed:040x}", "-o", str(deals_file), "--report", str(report_file)],
                              capture_output=True, text=True, timeout=1200)
        if done.returncode != 0:
            verdict.problems.append(f"ours failed (exit {done.returncode}): {done.stderr.strip()[:200]}")
            return verdict
        report = json.loads(report_file.read_text())
        deals = read_file(deals_file).deals
    verdict.ours = (report["deals_kept"], report["deals_examined"])
    verdict.z = two_proportions(*verdict.ours, *verdict.theirs)
    if abs(verdict.z) >= Z_LIMIT:
        verdict.problems.append(f"acceptance z = {verdict.z:+.2f}")
    compiled = Compiled(parsed)
    cursor = 0
    for action, stats in zip([a for a in parsed.actions if a.kind in ("average", "frequency", "frequency2")],
                             report["statistics"], strict=True):
        if action.kind == "frequency2":
            continue  # not compared: a table whose cells are too thin at these sizes
        verdict.statistics += 1
        problems, cursor = _statistic(action, stats, compiled, deals, out, cursor, verdict.theirs[0])
        verdict.problems.extend(problems)
    return verdict


def _statistic(action: ScriptAction, stats: dict[str, Any], compiled: Compiled, deals: DealArray, out: str,
               cursor: int, produced: int) -> tuple[list[str], int]:
    """The disagreements of one statistic with the C program's, whose printing is read from `cursor` on (its
    statistics come in the script's order); and where the next one's is read from."""
    label = stats.get("label") or ""
    if stats["action"] == "average":
        line = rf"^\f?{re.escape(label)}: (\S+)$" if label else r"^\f?(-?[0-9][0-9.e+-]*)$"  # \f: a new page
        found = re.compile(line, re.M).search(out, cursor)
        if found is None:
            return [f"average {label!r}: the C program printed no value"], cursor
        values = compiled.values(action.exprs[0], deals).astype(float)
        spread = math.sqrt(max(float(values.var(ddof=1)), 1e-12) * (1 / len(values) + 1 / produced))
        z = (stats["average"] - float(found.group(1))) / spread
        return ([] if abs(z) < Z_LIMIT else [f"average {label!r}: ours {stats['average']:.4g}, the C program's "
                                             f"{found.group(1)}, z = {z:+.2f}"]), found.end()
    heading = out.find(f"Frequency {label}:", cursor)
    if heading < 0:
        return [f"frequency {label!r}: the C program printed no table"], cursor
    rows = re.compile(r"\n\s*(-?\d+|Low|High)\s+(\d+)(?=\n)")
    theirs: dict[int, int] = {}
    at = out.index("\n", heading)
    while (row := rows.match(out, at)) is not None:
        if row.group(1) not in ("Low", "High"):
            theirs[int(row.group(1))] = int(row.group(2))
        at = row.end()
    problems = []
    kept = sum(stats["counts"]) + stats["below"] + stats["above"]
    for value, count in zip(range(stats["low"], stats["high"] + 1), stats["counts"], strict=True):
        z = two_proportions(count, kept, theirs.get(value, 0), produced)
        if abs(z) >= Z_LIMIT:
            problems.append(f"frequency {label!r} at {value}: ours {count}/{kept}, "
                            f"the C program's {theirs.get(value, 0)}/{produced}, z = {z:+.2f}")
    return problems, at


def scripts(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        found.extend(sorted(p for p in path.iterdir() if p.is_file()) if path.is_dir() else [path])
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--produce", type=int, default=4000)
    parser.add_argument("--generate", type=int, default=4_000_000)
    args = parser.parse_args()
    if not Path(REFERENCE).is_file():
        print(f"the C program is not installed ({REFERENCE}): apt-get install dealer, or DEALER_REFERENCE=PATH")
        return 1
    verdicts = [compare(path, REFERENCE, args.produce, args.generate) for path in scripts(args.paths)]
    for verdict in verdicts:
        print(verdict.line())
        for problem in verdict.problems if verdict.ours[1] else []:
            print(f"    {problem}")
    agreeing = sum(v.agrees for v in verdicts)
    print(f"{agreeing} of {len(verdicts)} scripts run and agree with the C program")
    return 0 if agreeing == len(verdicts) else 1


if __name__ == "__main__":
    raise SystemExit(main())
