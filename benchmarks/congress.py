"""Congress scale: a large plan checked and its deals generated; the journal at 100,000 boards; eight
machines on one controller.

Run from the project root: ``python benchmarks/congress.py [--quick] [--repeats 3]``. Prints figures
against the goals of the congress issue and ratios against baselines measured in the same run, each
timed as ours is (the same number of runs, in turn; medians):

1. A plan of 10 sessions x 3 sections x 32 boards x 4 copies, in process: ``Plan.load`` (check),
   ``generate`` (deals made and every deal file written), Law 6D2 checked and every job expanded; wall
   seconds, median of --repeats runs, each in a fresh folder. Goal: under 2 s. Baseline ``engine +
   write_file``: the same number of deals generated and written with the engine and the format
   registry alone, without the plan, in process, the same number of runs.
2. The journal holding 100,000 boards (jobs): latency of each step (``claim_next``, ``advance`` into
   every state) as median / p99 / max over the steps, and of a resume (open, every run's
   ``uncertain_jobs`` and ``counts``), median and max of 5. Goals: each step <= 2 ms, resume <= 1 s.
   Baselines ``bare SQLite transaction`` (one UPDATE + INSERT in a transaction on the same file) and
   the same synced to disk, each timed once per step, interleaved with ours.
3. Eight simulated machines (pty simulators at --speed, default 20, in a process of their own) on one controller
   dealing a congress plan through ``dealer.plan.run.deal_plan``. Figures, each the median of --repeats
   runs:

   * *wall*: host seconds from the start of ``deal_plan`` to its return;
   * *own time* of each machine, measured in the simulator (``_support.Watch``): from its first
     LoadDeal to its last board out, less the time when nothing of the machine's or its operator's was
     scheduled (when it could only wait for the host). The busiest machine's own time is the least
     wall time any controller could take;
   * *wall / busiest own time*: what the controller adds (goal: within 5%, i.e. <= 1.05);
   * for contrast, the "time on boards" the journal records (as ``dealer report`` counts it): the
     host's record of its own steps on each board, not a measure of the machine.

   Baseline ``one machine alone``: one machine on the same controller dealing an eighth of the jobs,
   the same figures.
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
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from _support import Simulators, header, median  # the project root on sys.path too

from dealer import engines, formats
from dealer.core.dealset import DealSet
from dealer.journal.history import DealHistory
from dealer.journal.jobplan import JobPlan
from dealer.journal.store import JobState, Journal
from dealer.plan import Plan

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


def plan_once(folder: Path, shape: tuple[int, int, int, int]) -> tuple[float, float, float, float]:
    """One run of the plan in a fresh `folder`: seconds to check, to generate and write, to check 6D2 and
    expand the jobs, and to reload and read every deal file back."""
    sessions, sections, boards, copies = shape
    folder.mkdir()
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
    return t1 - t0, t2 - t1, t3 - t2, t4 - t3


def engine_and_write_once(folder: Path, sessions: int, boards: int) -> float:
    """The baseline: the same deals made with the engine and written with the format registry alone."""
    folder.mkdir()
    start = time.perf_counter()
    for s in range(sessions):
        seed = engines.fresh_seed("bigdeal")
        deals = DealSet.from_deals(engines.make_engine("bigdeal", seed, "Benchmark").deals(boards))
        formats.write_file(folder / f"S{s:02d}.pbn", deals)
    return time.perf_counter() - start


def plan_benchmark(folder: Path, repeats: int) -> None:
    shape = sessions, sections, boards, copies = 10, 3, 32, 4
    ours: list[tuple[float, float, float, float]] = []
    base: list[float] = []
    for k in range(repeats):  # in turn, so both see the same machine load
        ours.append(plan_once(folder / f"plan{k}", shape))
        base.append(engine_and_write_once(folder / f"baseline{k}", sessions, boards))
    check, generate, expand, reread = (median(column) for column in zip(*ours, strict=True))
    totals = [a + b + c for a, b, c, _ in ours]
    total = median(totals)
    ratios = [t / b for t, b in zip(totals, base, strict=True)]
    print(f"1. plan of {sessions} sessions x {sections} sections x {boards} boards x {copies} copies "
          f"({sessions * boards} deals, {sessions * sections * boards * copies} jobs); medians of {repeats} runs")
    print(f"   check {1e3 * check:8.1f} ms   generate + write {sessions} files {1e3 * generate:8.1f} ms   "
          f"6D2 + jobs {1e3 * expand:6.1f} ms")
    print(f"   total {total:.3f} s (goal < {PLAN_GOAL_S:.0f} s: {verdict(total < PLAN_GOAL_S)})")
    print(f"   baseline engine + write_file: {median(base):.3f} s; plan / baseline = {median(ratios):.2f} "
          f"(median of the runs' ratios)")
    print(f"   reload and read every deal file back: {1e3 * reread:.1f} ms")


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
        # the session in progress: a third verified, a few boards in the machines, the rest planned (each job's
        # events leading to its state, as a journal opened to write checks them)
        ids = [r[0] for r in db.execute("SELECT id FROM jobs WHERE run_id = ? ORDER BY seq", (current,))]
        third = len(ids) // 3
        path_to = ("loaded", "scanned", "dealing", "dealt", "verified")
        now = [(i, "verified", "M1") for i in ids[:third]]
        now += [(i, state, "M2") for i, state in zip(ids[third:third + 8], ("dealing", "dealt") * 4, strict=True)]
        for i, state, machine in now:
            db.execute("UPDATE jobs SET state = ?, machine = ? WHERE id = ?", (state, machine, i))
            db.executemany("INSERT INTO events (run_id, job_id, at, machine, kind, state, detail) "
                           "VALUES (?, ?, '2025-01-01T00:00:00', ?, ?, ?, '{}')",
                           [(current, i, machine, step, step) for step in path_to[:path_to.index(state) + 1]])
    db.close()
    return sessions, current


def percentiles(ms: list[float]) -> str:
    q = statistics.quantiles(ms, n=100, method="inclusive")
    return f"median {statistics.median(ms):6.3f}  p99 {q[98]:6.3f}  max {max(ms):6.3f} ms"


def journal_benchmark(folder: Path, total_jobs: int, steps: int, resumes: int = 5) -> None:
    path = folder / "congress.journal"
    t0 = time.perf_counter()
    runs, current = fill_journal(path, total_jobs)
    setup = time.perf_counter() - t0
    with Journal.open(path) as journal:
        jobs_held = sum(sum(journal.counts(r.id).values()) for r in journal.runs())
    print(f"2. journal holding {jobs_held} jobs in {runs} runs (setup {setup:.1f} s)")

    # resume: what a restarted controller asks before anything else
    resume: list[float] = []
    for _ in range(resumes):
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
    worst_p99 = max(statistics.quantiles(v, n=100, method="inclusive")[98] for v in unsynced)
    dealing = statistics.median(per_state[JobState.DEALING])
    print(f"   steps not synced: slowest median {worst_median:.3f} ms ({verdict(worst_median <= STEP_GOAL_MS)} "
          f"of <= {STEP_GOAL_MS:.0f} ms), slowest p99 {worst_p99:.3f} ms ({verdict(worst_p99 <= STEP_GOAL_MS)}); "
          f"median advance / bare transaction = "
          f"{statistics.median(per_state[JobState.SCANNED]) / statistics.median(baseline):.1f}")
    print(f"   step into DEALING (synced): median {dealing:.3f} ms ({verdict(dealing <= STEP_GOAL_MS)}); "
          f"/ bare synced transaction = {dealing / statistics.median(synced):.1f}")
    worst = max(resume)
    print(f"   resume (open + every run's uncertain_jobs and counts; {resumes} runs): median "
          f"{statistics.median(resume):.1f} ms, "
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


@dataclass
class MachinesRun:
    """One run of a plan on simulated machines: the host's wall seconds, and per machine the boards it
    dealt, its own time (simulator side), its waiting in its working span, and the journal's time on boards."""

    wall: float
    boards: dict[str, int]
    own: dict[str, float]
    waiting: dict[str, float]
    journal_busy: dict[str, float]

    @property
    def busiest(self) -> float:
        return max(self.own.values())


def deal_on_simulators(folder: Path, machines: int, boards: int, speed: float,
                       shape: tuple[int, int, int] = (2, 2, 2)) -> MachinesRun:
    """Deal the plan on `machines` simulated machines (in their own process, real time)."""
    from dealer.dealing.run import RunOptions
    from dealer.journal import run_report as report
    from dealer.plan.run import deal_plan

    folder.mkdir()
    sims = Simulators(machines, speed, folder / "sims")
    try:
        plan = Plan.load(machines_plan(folder, sims.ports, boards, shape))
        plan.generate()
        DealHistory.open(folder / "history.sqlite", create=True).close()
        options = RunOptions(ports=[], journal=plan.event.journal, quiet=True, out=io.StringIO(),
                             history=folder / "history.sqlite")  # a benchmark's deals: not this computer's
        t0 = time.perf_counter()
        result = deal_plan(plan, options)
        wall = time.perf_counter() - t0
    finally:
        figures = sims.stop()
    assert result.complete, result.unresolved[:3]
    with Journal.open(plan.event.journal) as journal:
        rep = report.build(journal)
    names = [f"M{k}" for k in range(1, machines + 1)]  # the plan's machines, in the simulators' order
    seen = figures["machines"]
    return MachinesRun(wall, {n: f["boards"] for n, f in zip(names, seen, strict=True)},
                       {n: f.get("own", 0.0) for n, f in zip(names, seen, strict=True)},
                       {n: f.get("idle", 0.0) for n, f in zip(names, seen, strict=True)},
                       {n: rep.machines[n].busy if n in rep.machines else 0.0 for n in names})


def machines_benchmark(folder: Path, quick: bool, repeats: int, speed: float) -> None:
    boards = 2 if quick else 12  # per session; 8 jobs a board over 2 sessions
    jobs = 2 * 2 * 2 * boards
    many: list[MachinesRun] = []
    one: list[MachinesRun] = []
    for k in range(repeats):  # in turn, so both see the same machine load
        many.append(deal_on_simulators(folder / f"eight{k}", MACHINES, boards, speed))
        one.append(deal_on_simulators(folder / f"one{k}", 1, jobs // MACHINES, speed, (1, 1, 1)))
    print(f"3. {MACHINES} simulated machines (pty, speed {speed:g}, simulators in their own process) on one "
          f"controller: a plan of {jobs} jobs (2 sessions x 2 sections x 2 copies x {boards} boards); medians of "
          f"{repeats} runs")
    last = many[-1]
    print("   per machine (last run): " + ", ".join(
        f"{n} {last.boards[n]} boards, own {last.own[n]:.2f} s, waiting {last.waiting[n]:.2f} s" for n in last.own))
    describe_machines(f"{MACHINES} machines", many)
    describe_machines("baseline one machine alone", one)
    ratio = median([r.wall / r.busiest for r in many])
    print(f"   {MACHINES} machines: wall / busiest own time {ratio:.3f} (goal <= {WALL_GOAL:.2f}: "
          f"{verdict(ratio <= WALL_GOAL)}); against one machine alone "
          f"{ratio / median([r.wall / r.busiest for r in one]):.3f}x")


def describe_machines(name: str, runs: list[MachinesRun]) -> None:
    ratios = [r.wall / r.busiest for r in runs]
    journal = [max(r.journal_busy.values()) for r in runs]
    print(f"   {name}: wall {median([r.wall for r in runs]):.2f} s, busiest machine's own time "
          f"{median([r.busiest for r in runs]):.2f} s, wall / own {median(ratios):.3f} (runs: "
          f"{', '.join(f'{x:.3f}' for x in ratios)}); the journal's largest time on boards "
          f"{median(journal):.2f} s (the host's own record of its steps on boards)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true",
                        help="a first look: one run, a 2,000-job journal and 50 steps, 2 boards a session, speed 200")
    parser.add_argument("--repeats", type=int, default=3, help="runs of ours and of each baseline (default 3)")
    parser.add_argument("--speed", type=float, default=20.0, help="the simulated machines' speed (default 20)")
    parser.add_argument("--skip-plan", action="store_true", help="only the journal and the machines")
    parser.add_argument("--machines-only", action="store_true", help="only the eight machines")
    args = parser.parse_args(argv)
    repeats, speed = (1, 200.0) if args.quick else (args.repeats, args.speed)
    jobs, steps = (2_000, 50) if args.quick else (100_000, 500)
    header("congress: a large plan, the journal at scale, eight machines on one controller",
           {"engine + write_file": "the plan's deals made by the engine and written by the format registry alone",
            "bare SQLite transaction": "one UPDATE + INSERT transaction on the journal's file (and the same synced)",
            "one machine alone": "one simulated machine dealing an eighth of the jobs on the same controller"},
           f"{repeats} runs of ours and of each baseline, in turn; medians; journal of {jobs:,} jobs, {steps} steps")
    with tempfile.TemporaryDirectory(prefix="dealer-congress-") as tmp:
        folder = Path(tmp)
        if not args.skip_plan and not args.machines_only:
            plan_benchmark(folder, repeats)
        if not args.machines_only:
            journal_benchmark(folder, jobs, steps)
        machines_benchmark(folder, args.quick, repeats, speed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
