"""Congress scale: a large plan checked and its deals generated; the journal at 100,000 boards.

Run from the project root: ``python benchmarks/congress.py [--quick]``. Prints figures against the
goals of the congress issue and ratios against baselines measured in the same run:

1. A plan of 10 sessions x 3 sections x 32 boards x 4 copies: checked, deals generated, every deal
   file written, Law 6D2 checked and every job expanded. Goal: under 2 s. Baseline: the same deals
   generated and written with the engine and the format registry alone, without the plan.
2. The journal holding 100,000 boards (jobs): latency of each step (`advance` into every state,
   `claim_next`) and of a resume (open, every run's `uncertain_jobs` and `counts`). Goals: each step
   <= 2 ms, resume <= 1 s. Baseline: one bare SQLite UPDATE + INSERT transaction on the same file.
3. Eight simulated machines (pty simulators in real time, speed 20) on one controller dealing a congress
   plan through `dealer.plan.run`: wall time of the run against the busiest machine's dealing time
   (the seconds on boards the journal records, as `dealer report` counts them). Goal: within 5%.
   Baseline: one machine alone on the same controller dealing an eighth of the jobs.
"""

from __future__ import annotations

import argparse
import io
import math
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dealer import engines, formats  # noqa: E402
from dealer.core.dealset import DealSet  # noqa: E402
from dealer.dealing.journal import JobPlan, JobState, Journal  # noqa: E402
from dealer.plan import Plan  # noqa: E402

PLAN_GOAL_S = 2.0
STEP_GOAL_MS = 2.0
RESUME_GOAL_S = 1.0


def verdict(ok: bool) -> str:
    return "meets the goal" if ok else "MISSES the goal"


# --- 1. a large plan -------------------------------------------------------------------------------


def congress_text(sessions: int, sections: int, boards: int, copies: int) -> str:
    lines = ['[event]', 'name = "Benchmark Congress"', 'owner = "Benchmark"', "",
             '[[machines]]', 'name = "M1"', 'port = "sim://m1"', ""]
    for s in range(1, sessions + 1):
        lines += ["[[sessions]]", f'name = "S{s:02d}"', f'boards = "1-{boards}"', ""]
        for c in range(sections):
            lines += ["[[sessions.sections]]", f'name = "{"ABCDEFGH"[c]}"', f"copies = {copies}", ""]
    return "\n".join(lines)


def plan_benchmark(folder: Path) -> None:
    sessions, sections, boards, copies = 10, 3, 32, 4
    path = folder / "congress.toml"
    path.write_text(congress_text(sessions, sections, boards, copies), encoding="utf-8")
    t0 = time.perf_counter()
    plan = Plan.load(path)
    t1 = time.perf_counter()
    written = plan.generate()
    t2 = time.perf_counter()
    plan.check_reuse()
    jobs = sum(len(j) for _, j in plan.all_jobs())
    t3 = time.perf_counter()
    reloaded = Plan.load(path)
    again = [reloaded.deal_set(s) for s in reloaded.sessions]
    t4 = time.perf_counter()
    assert len(written) == sessions and jobs == sessions * sections * boards * copies
    assert all(a.same_deals(plan.deal_set(s)) for a, s in zip(again, plan.sessions, strict=True))

    base = folder / "baseline"
    base.mkdir()
    b0 = time.perf_counter()
    for s in range(sessions):
        seed = engines.fresh_seed("bigdeal")
        deals = DealSet.from_deals(engines.make_engine("bigdeal", seed, "Benchmark").deals(boards))
        formats.write_file(base / f"S{s:02d}.pbn", deals)
    b1 = time.perf_counter()

    total = t3 - t0
    print(f"1. plan of {sessions} sessions x {sections} sections x {boards} boards x {copies} copies "
          f"({sessions * boards} deals, {jobs} jobs)")
    print(f"   check {1e3 * (t1 - t0):8.1f} ms   generate + write {len(written)} files "
          f"{1e3 * (t2 - t1):8.1f} ms   6D2 + jobs {1e3 * (t3 - t2):6.1f} ms")
    print(f"   total {total:.3f} s (goal < {PLAN_GOAL_S:.0f} s: {verdict(total < PLAN_GOAL_S)})")
    print(f"   baseline, engine + write_file alone: {b1 - b0:.3f} s; plan / baseline = {total / (b1 - b0):.2f}")
    print(f"   reload and read every deal file back: {1e3 * (t4 - t3):.1f} ms")


# --- 2. the journal at 100,000 boards --------------------------------------------------------------


def fill_journal(path: Path, total_jobs: int) -> tuple[int, int]:
    """A congress journal: every session begun, the first half verified, one session in progress.

    Returns (number of runs, id of the run in progress). The runs and jobs are made through the
    journal; the history of the finished half (states and events) is written by bulk SQL, because
    walking 50,000 boards through five transactions each would take minutes of setup.
    """
    per_session = 3 * 32 * 4
    sessions = math.ceil(total_jobs / per_session)
    rng = np.random.default_rng(7)
    sorted_deal = np.repeat(np.arange(4, dtype=np.uint8), 13)
    with Journal.open(path) as journal:
        for s in range(sessions):
            deals = DealSet.from_deals(rng.permuted(np.broadcast_to(sorted_deal, (32, 52)), axis=1))
            plan = [JobPlan(b, c, sec, f"{sec}{c}") for sec in "ABC" for c in range(1, 5) for b in range(1, 33)]
            journal.begin_run(f"S{s:03d}", "benchmark", deals, plan)
    done_runs = sessions // 2
    current = done_runs + 1
    db = sqlite3.connect(path)
    with db:
        db.execute("UPDATE jobs SET state = ?, machine = 'M1' WHERE run_id <= ?", (JobState.VERIFIED.value, done_runs))
        db.execute("UPDATE runs SET finished = '2025-01-01T00:00:00' WHERE id <= ?", (done_runs,))
        states = ", ".join(f"('{s}')" for s in ("loaded", "scanned", "dealing", "dealt", "verified"))
        db.execute("INSERT INTO events (run_id, job_id, at, machine, kind, state, detail) "
                   "SELECT j.run_id, j.id, '2025-01-01T00:00:00', 'M1', s.column1, s.column1, '{}' "
                   f"FROM jobs j, (VALUES {states}) AS s WHERE j.run_id <= ? ORDER BY j.id", (done_runs,))
        # the session in progress: a third verified, a few boards in the machines, the rest planned
        ids = [r[0] for r in db.execute("SELECT id FROM jobs WHERE run_id = ? ORDER BY seq", (current,))]
        third = len(ids) // 3
        db.executemany("UPDATE jobs SET state = 'verified', machine = 'M1' WHERE id = ?", [(i,) for i in ids[:third]])
        for i, state in zip(ids[third:third + 8], ("dealing", "dealt") * 4, strict=True):
            db.execute("UPDATE jobs SET state = ?, machine = 'M2' WHERE id = ?", (state, i))
    db.close()
    return sessions, current


def percentiles(ms: list[float]) -> str:
    q = statistics.quantiles(ms, n=100)
    return f"median {statistics.median(ms):6.3f}  p99 {q[98]:6.3f}  max {max(ms):6.3f} ms"


def journal_benchmark(folder: Path, total_jobs: int, steps: int) -> None:
    path = folder / "congress.journal"
    t0 = time.perf_counter()
    runs, current = fill_journal(path, total_jobs)
    setup = time.perf_counter() - t0
    with Journal.open(path) as journal:
        jobs_held = sum(sum(journal.counts(r.id).values()) for r in journal.runs())
    print(f"2. journal holding {jobs_held} jobs in {runs} runs (setup {setup:.1f} s)")

    # resume: what a restarted controller asks before anything else
    resume: list[float] = []
    for _ in range(5):
        t = time.perf_counter_ns()
        with Journal.open(path) as journal:
            for run in journal.runs():
                if not run.finished:
                    journal.uncertain_jobs(run.id)
                journal.counts(run.id)
        resume.append((time.perf_counter_ns() - t) / 1e6)

    claims: list[float] = []
    per_state: dict[JobState, list[float]] = {s: [] for s in
                                              (JobState.SCANNED, JobState.DEALING, JobState.DEALT, JobState.VERIFIED)}
    baseline: list[float] = []
    synced: list[float] = []
    bare, bare_synced = BareSQLite(path, sync=False), BareSQLite(path, sync=True)
    with Journal.open(path) as journal:
        for i in range(steps):
            t = time.perf_counter_ns()
            job = journal.claim_next(current, "M1")
            claims.append((time.perf_counter_ns() - t) / 1e6)
            if job is None:
                current += 1
                continue
            for state, samples in per_state.items():
                t = time.perf_counter_ns()
                journal.advance(job.id, state, machine="M1")
                samples.append((time.perf_counter_ns() - t) / 1e6)
            # the baselines interleaved with the steps, so both see the same disk at the same time
            baseline.append(bare.step(i + 1))
            synced.append(bare_synced.step(i + 1))
    bare.close()
    bare_synced.close()

    print(f"   claim_next          {percentiles(claims)}")
    for state, samples in per_state.items():
        note = "  (synced to disk)" if state is JobState.DEALING else ""
        print(f"   advance -> {state.value:8} {percentiles(samples)}{note}")
    print(f"   baseline, bare SQLite UPDATE+INSERT transaction:        {percentiles(baseline)}")
    print(f"   baseline, the same transaction synced to disk (FULL):   {percentiles(synced)}")
    unsynced = [claims] + [v for s, v in per_state.items() if s is not JobState.DEALING]
    worst_median = max(statistics.median(v) for v in unsynced)
    worst_p99 = max(statistics.quantiles(v, n=100)[98] for v in unsynced)
    dealing = statistics.median(per_state[JobState.DEALING])
    print(f"   steps not synced: slowest median {worst_median:.3f} ms ({verdict(worst_median <= STEP_GOAL_MS)} "
          f"of <= {STEP_GOAL_MS:.0f} ms), slowest p99 {worst_p99:.3f} ms ({verdict(worst_p99 <= STEP_GOAL_MS)}); "
          f"median advance / bare transaction = "
          f"{statistics.median(per_state[JobState.SCANNED]) / statistics.median(baseline):.1f}")
    print(f"   step into DEALING (synced): median {dealing:.3f} ms ({verdict(dealing <= STEP_GOAL_MS)}); "
          f"/ bare synced transaction = {dealing / statistics.median(synced):.1f}")
    worst = max(resume)
    print(f"   resume (open + every run's uncertain_jobs and counts): median {statistics.median(resume):.1f} ms, "
          f"max {worst:.1f} ms (goal <= {RESUME_GOAL_S:.0f} s: {verdict(worst / 1e3 <= RESUME_GOAL_S)})")


class BareSQLite:
    """The floor under a journal step: one UPDATE and one INSERT in a transaction, nothing else
    (`sync`: committed to disk, as the step into DEALING is)."""

    def __init__(self, path: Path, sync: bool) -> None:
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(f"PRAGMA synchronous={'FULL' if sync else 'NORMAL'}")

    def step(self, job_id: int) -> float:
        t = time.perf_counter_ns()
        self.db.execute("BEGIN IMMEDIATE")
        self.db.execute("UPDATE jobs SET machine = 'M9' WHERE id = ?", (job_id,))
        self.db.execute("INSERT INTO events (run_id, job_id, at, kind, detail) VALUES (1, ?, 'x', 'bench', '{}')",
                        (job_id,))
        self.db.execute("COMMIT")
        return (time.perf_counter_ns() - t) / 1e6

    def close(self) -> None:
        self.db.close()


# --- 3. eight simulated machines -------------------------------------------------------------------


MACHINES = 8
SIM_SPEED = 20.0
WALL_GOAL = 1.05


def machines_plan(folder: Path, ports: list[str], boards: int, shape: tuple[int, int, int] = (2, 2, 2)) -> Path:
    """A plan of `shape` (sessions, sections, copies) x `boards` boards, every board set its own, on `ports`."""
    sessions, sections, copies = shape
    lines = ['[event]', 'name = "Benchmark Congress"', 'journal = "congress.journal"', ""]
    for k, port in enumerate(ports, start=1):
        lines += ["[[machines]]", f'name = "M{k}"', f'port = "{port}"', ""]
    for s in range(sessions):
        lines += ["[[sessions]]", f'name = "S{s + 1}"', f'boards = "1-{boards}"', ""]
        for c in range(sections):
            section = "ABCDEFGH"[s * sections + c]
            sets = ", ".join(f'"{section}{k}"' for k in range(1, copies + 1))
            lines += ["[[sessions.sections]]", f'name = "{section}"', f"sets = [{sets}]", ""]
    path = folder / "congress.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def deal_on_simulators(folder: Path, machines: int, boards: int, shape: tuple[int, int, int] = (2, 2, 2)
                       ) -> tuple[float, dict[str, tuple[int, float]]]:
    """Deal the plan on `machines` simulated machines on ptys (real time); wall seconds of the whole run,
    and per machine (boards verified, seconds on boards as the journal's report counts them)."""
    from dealer.dealing import report
    from dealer.dealing.run import RunOptions
    from dealer.plan.run import deal_plan
    from hil.config import SimConfig
    from hil.pty_sim import PtySimulator

    folder.mkdir()
    sims = [PtySimulator(SimConfig(speed=SIM_SPEED, seed=k)) for k in range(1, machines + 1)]
    try:
        ports = [sim.start() for sim in sims]
        plan = Plan.load(machines_plan(folder, ports, boards, shape))
        plan.generate()
        options = RunOptions(ports=[], journal=plan.event.journal, quiet=True, out=io.StringIO())
        t0 = time.perf_counter()
        result = deal_plan(plan, options)
        wall = time.perf_counter() - t0
    finally:
        for sim in sims:
            sim.stop()
    assert result.complete, result.unresolved[:3]
    with Journal.open(plan.event.journal) as journal:
        rep = report.build(journal)
    return wall, {name: (m.verified, m.busy) for name, m in rep.machines.items()}


def machines_benchmark(folder: Path, quick: bool) -> None:
    boards = 6 if quick else 12  # per session; 8 jobs a board over 2 sessions
    jobs = 2 * 2 * 2 * boards
    wall, figures = deal_on_simulators(folder / "eight", MACHINES, boards)
    busiest = max(busy for _, busy in figures.values())
    print(f"3. {MACHINES} simulated machines (pty, speed {SIM_SPEED:g}) on one controller: a plan of {jobs} jobs "
          f"(2 sessions x 2 sections x 2 copies x {boards} boards)")
    print("   per machine: " + ", ".join(f"{name} {n} boards {busy:.2f} s" for name, (n, busy)
                                          in sorted(figures.items())))
    ratio = wall / busiest
    print(f"   wall {wall:.2f} s; busiest machine's dealing time {busiest:.2f} s; wall / busiest = {ratio:.3f} "
          f"(goal <= {WALL_GOAL:.2f}: {verdict(ratio <= WALL_GOAL)})")
    # baseline: one machine alone dealing an eighth of the jobs, on the same controller
    one_wall, one = deal_on_simulators(folder / "one", 1, jobs // MACHINES, (1, 1, 1))
    ((n1, busy1),) = one.values()
    per_board = (wall / max(n for n, _ in figures.values())) / (one_wall / n1)
    print(f"   baseline, 1 machine alone dealing {n1} jobs: wall {one_wall:.2f} s, dealing time {busy1:.2f} s, "
          f"wall / dealing time = {one_wall / busy1:.3f}; wall per board of the busiest of {MACHINES} machines / "
          f"of 1 machine alone = {per_board:.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a 10,000-job journal and fewer steps")
    parser.add_argument("--skip-plan", action="store_true", help="only the journal and the machines")
    parser.add_argument("--machines-only", action="store_true", help="only the eight machines")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="dealer-congress-") as tmp:
        folder = Path(tmp)
        if not args.skip_plan and not args.machines_only:
            plan_benchmark(folder)
        if not args.machines_only:
            journal_benchmark(folder, 10_000 if args.quick else 100_000, 100 if args.quick else 500)
        machines_benchmark(folder, args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
