"""Double-dummy analysis for hand records: the batched analysis on every core against one deal at a time.

    python benchmarks/records.py [--boards 200] [--reps 1] [--quick]

One deal file of --boards boards (bigdeal engine, fixed seed). The three ways of analysing run in one
process, interleaved: each block of 40 deals is solved by every way in turn (DDS's thread count set
before each), so all three meet the same machine load; --reps rounds:

- one deal at a time, one thread: endplay's ``calc_dd_table`` and ``par`` per deal, DDS limited to one
  thread (``SetMaxThreads(1)``): the analysis on one core;
- one deal at a time, DDS's threads: the same loop with DDS's default threads (one a core), which
  spreads the five strains of each single deal over the cores;
- batched (ours): ``dealer.printing.doubledummy.analyse``, deals in multi-deal batches
  (``calc_all_tables``) solved on DDS's threads;
- ``dealer records --dd`` writing the HTML sheet (the whole command, as a user runs it).

Each line gives the wall time, the CPU time of the process (all its threads) and boards/s; the ratios
are taken in the same round. The tricks and par of the batched run are compared with the one-thread,
one-at-a-time run, board by board. The load average is printed before and after: other work on the
machine slows every figure alike.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _support import header

ROOT = Path(__file__).resolve().parent.parent
SEED = "0123456789abcdef0123456789abcdef01234567"
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # bytecode cached, as installed
TARGET_SECONDS = 12.0  # for 200 boards on the 2-core machine the figure was set for

CHILD = """
import json, sys, time
sys.path.insert(0, {root!r})
import endplay._dds as raw
import endplay.dds as dds
from endplay.types import Deal, Player, Vul
from dealer import formats
from dealer.core.cards import to_pbn
from dealer.printing.doubledummy import analyse
deals = formats.read_file(sys.argv[1])
block = int(sys.argv[2])
vuls = (Vul.none, Vul.ns, Vul.ew, Vul.both)

def one_at_a_time(first, last):
    out = []
    for deal, dealer, vul in zip(deals.deals[first:last], deals.dealers[first:last], deals.vulnerabilities[first:last]):
        table = dds.calc_dd_table(Deal(to_pbn(deal)))
        par = dds.par(table, vuls[int(vul)], Player(int(dealer)))
        by = table.to_list()  # [denom S H D C NT][player N E S W]
        out.append(["".join(f"{{by[d][p]:x}}" for p in (0, 2, 1, 3) for d in (4, 0, 1, 2, 3)), par.score])
    return out

def batched(first, last):
    results = analyse(deals.deals[first:last], deals.dealers[first:last], deals.vulnerabilities[first:last])
    return [[r.pbn_tricks(), r.par_score] for r in results]

ways = {{"single-one-thread": (1, one_at_a_time), "single": (0, one_at_a_time), "batched": (0, batched)}}
report = {{mode: {{"wall": 0.0, "cpu": 0.0, "results": []}} for mode in ways}}
for first in range(0, len(deals), block):
    last = min(first + block, len(deals))
    for mode, (threads, way) in ways.items():
        raw.SetMaxThreads(threads)  # 0: DDS's default, one thread a core
        start, cpu = time.perf_counter(), time.process_time()
        report[mode]["results"] += way(first, last)
        report[mode]["wall"] += time.perf_counter() - start
        report[mode]["cpu"] += time.process_time() - cpu
print(json.dumps(report))
"""

WAYS = {
    "single-one-thread": "one deal at a time, one thread",
    "single": "one deal at a time, DDS's threads",
    "batched": "batched multi-deal calls (ours), DDS's threads",
}
BLOCK = 40  # deals each way takes in turn: one batch of the batched analysis


def run_ways(path: Path) -> dict[str, dict[str, object]]:
    """The three ways in one process, interleaved block by block (each block of deals solved by every
    way in turn, so all meet the same machine load); wall and CPU seconds and results of each way."""
    run = subprocess.run([sys.executable, "-c", CHILD.format(root=str(ROOT)), str(path), str(BLOCK)],
                         capture_output=True, text=True, env=ENV)
    if run.returncode:
        raise RuntimeError(f"the analysis failed: {run.stderr[-500:]}")
    result: dict[str, dict[str, object]] = json.loads(run.stdout)
    return result


def run_records(path: Path, out: Path) -> tuple[float, float]:
    """Wall and CPU seconds of `dealer records --dd` writing an HTML sheet, as a whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "dealer", "records", str(path), "-o", str(out), "--dd", "--force"],
                         cwd=ROOT, capture_output=True, text=True, env=ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode:
        raise RuntimeError(f"dealer records failed: {run.stderr[-500:]}")
    progress = [line for line in run.stderr.splitlines() if line.startswith("double-dummy analysis:")]
    print(f"    (dealer records showed {len(progress)} progress lines on stderr, the last: {progress[-1]!r})")
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=200, help="boards analysed (default 200)")
    parser.add_argument("--reps", type=int, default=1, help="rounds (default 1; a round takes minutes)")
    parser.add_argument("--quick", action="store_true", help="4 boards, one round (checks the script runs)")
    args = parser.parse_args(argv)
    if args.quick:
        args.boards, args.reps = 4, 1
    try:
        endplay_version = importlib.metadata.version("endplay")
    except importlib.metadata.PackageNotFoundError:
        print("endplay (extra 'dd') is not installed: nothing to measure")
        return 1
    header("Double-dummy analysis of hand records: batched on every core against one deal at a time", {
        "one deal at a time, one thread": "endplay calc_dd_table and par per deal, DDS on one thread",
        "one deal at a time, DDS's threads": "the same loop with DDS's default threads (one a core)",
    }, f"{args.boards} boards, {args.reps} round(s), endplay {endplay_version}; load average before: "
       + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    walls: dict[str, list[float]] = {label: [] for label in (*WAYS, "records")}
    cpus: dict[str, list[float]] = {label: [] for label in walls}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "session.pbn"
        subprocess.run([sys.executable, "-m", "dealer", "generate", "--boards", f"1-{args.boards}", "--seed", SEED,
                        "-o", str(path)], cwd=ROOT, check=True, capture_output=True)
        same = True
        for rep in range(args.reps):
            print(f"  round {rep + 1}:")
            report = run_ways(path)
            for mode, label in WAYS.items():
                walls[mode].append(float(report[mode]["wall"]))  # type: ignore[arg-type]
                cpus[mode].append(float(report[mode]["cpu"]))  # type: ignore[arg-type]
                print(f"    {label:<48} {walls[mode][-1]:7.2f} s wall {cpus[mode][-1]:7.2f} s CPU")
            same = same and report["batched"]["results"] == report["single-one-thread"]["results"]
            wall, cpu = run_records(path, Path(tmp) / "records.html")
            walls["records"].append(wall)
            cpus["records"].append(cpu)
            print(f"    {'dealer records --dd (whole command, HTML)':<48} {wall:7.2f} s wall {cpu:7.2f} s CPU")
    print(f"\nMedians over {args.reps} round(s), {args.boards} boards:")
    labels = {**WAYS, "records": "dealer records --dd (whole command, HTML)"}
    for mode, label in labels.items():
        wall = statistics.median(walls[mode])
        print(f"  {label:<48} {wall:7.2f} s ({args.boards / wall:5.1f} boards/s; "
              f"CPU {statistics.median(cpus[mode]):6.2f} s)")
    for base in ("single-one-thread", "single"):
        ratios = [b / o for b, o in zip(walls[base], walls["batched"], strict=True)]
        print(f"  {WAYS[base]} takes {statistics.median(ratios):.2f}x the time of the batched analysis")
    target = TARGET_SECONDS * args.boards / 200
    batched = statistics.median(walls["batched"])
    print(f"  target: {args.boards} boards in <= {target:.1f} s: {'met' if batched <= target else 'NOT met'} "
          f"(batched {batched:.2f} s, dealer records {statistics.median(walls['records']):.2f} s)")
    print(f"  tricks and par of the batched run equal one deal at a time, board by board: {'yes' if same else 'NO'}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
