"""What the host costs in a dealing session, and whether the machines ever wait for it.

Run from the project root: ``python benchmarks/session.py [--speed 50] [--boards 16] [--repeats 3] [--quick]``.
The simulated machines run in a process of their own (``benchmarks/_support.py serve``), each on its own
pty, so this process is the controller alone: its CPU time (``os.times``, every thread) is the host's,
and the simulators' CPU never counts. Every run is repeated ``--repeats`` times, ours and each baseline
alike, in turn; each figure is the median over the runs. Figures:

* **host CPU per board**: `dealer.dealing.run.deal_session` (journal, label checks, recounts,
  verification, progress) on one machine, against the goal of 20 ms, and beside the named baseline
  ``bare driver``: the same boards driven with `dealer.dealing.machine.Machine` calls alone (load,
  prompt, scan, deal, recount, eject), with no journal, no verifier, no stations.
* **machine waiting for the host**, seen from the simulator (`_support.Watch`): every timed action of
  the machine and its operator (a scan, each card, a recount, an eject, an operator's reaction or swap)
  runs from the simulator's schedule; while nothing is scheduled, the machine can only be waiting for
  a command. Over each machine's working span (first LoadDeal to last board out) that idle time is
  summed, and the gap between each board coming out and the next LoadDeal is listed (from the last run).
* **machines on one controller**: the session's wall time (host side, start of `deal_session` to its
  return) against the busiest machine's own time (its working span less its waiting, measured in the
  simulator), goal within 5%, beside the baseline ``one machine alone`` with the same boards per machine.

``--real-speed`` measures instead what an idle controller costs: 4 machines at real speed (about 5 s a
board) dealing for ``--minutes`` (default 5) under `deal_session`, the controller's CPU time as a share
of one core over the session and its boards per hour, goal <= 0.5 %; beside the baseline ``polling every
50 ms``: the same session with `Machine(poll_interval=0.05)`, the driver's reads waking every 50 ms as
they did before waits blocked until the link's next deadline. The two run in turn, `--repeats` times.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _support import Simulators, header, median, random_deals  # the project root on sys.path too

from dealer.core.cards import pack
from dealer.core.dealset import DealSet
from dealer.dealing.machine import Machine, OperatorPrompt
from dealer.dealing.run import RunOptions, deal_session
from dealer.journal.history import DealHistory
from firmware_protocol.labels import BoardLabel

CPU_GOAL = 0.020
WALL_GOAL = 1.05


def session_deals(boards: int, seed: int = 1) -> DealSet:
    return DealSet.from_deals(random_deals(seed, boards), list(range(1, boards + 1)))


def measured(run: Callable[[], object]) -> tuple[float, float, float]:
    """(start, wall seconds, this process's CPU seconds, every thread) of `run()`; the start is
    `time.monotonic()`, the clock the simulator process reads too."""
    t0, c0 = time.monotonic(), time.process_time()
    run()
    return t0, time.monotonic() - t0, time.process_time() - c0


def run_session(ports: list[str], deals: DealSet, folder: Path, poll_interval: float | None = None) -> None:
    run_folder = folder / f"run{time.monotonic_ns()}"
    run_folder.mkdir()
    DealHistory.open(run_folder / "history.sqlite", create=True).close()
    options = RunOptions(ports=ports, journal=run_folder / "journal.db", quiet=True, out=io.StringIO(),
                         machine_factory=lambda url: Machine(url, poll_interval=poll_interval),
                         history=run_folder / "history.sqlite")  # the runs deal the same deals: not this computer's
    result = deal_session(deals, "bench.pbn", options)
    assert result.complete, result.summary


REAL_SPEED = 3.2
"""Simulator speed at which a board takes about 5 s, operator's swap included (16 s at speed 1)."""
IDLE_GOAL = 0.005


def real_speed(minutes: float, count: int, repeats: int) -> int:
    """The idle controller: CPU share of one core and boards/hour, blocking waits against 50 ms polling."""
    boards = max(1, round(minutes * 60 / 5.0)) * count
    header("session at real speed: what an idle controller costs",
           {"polling every 50 ms": "the same session, the driver's reads waking every 50 ms while it waits"},
           f"{count} simulated machines at speed {REAL_SPEED:g} (about 5 s a board), {boards} boards (about "
           f"{minutes:g} minutes), {repeats} run(s) of each in turn (medians), the simulators in their own process")
    deals = session_deals(boards, seed=5)
    figures: dict[str, list[tuple[float, float]]] = {"blocking waits (ours)": [], "polling every 50 ms": []}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for _ in range(repeats):
            for name, poll in (("blocking waits (ours)", None), ("polling every 50 ms", 0.05)):
                wall, cpu, _ = one_run(count, REAL_SPEED, folder,
                                       lambda ports, p=poll: run_session(ports, deals, folder, p))  # type: ignore[misc]
                figures[name].append((wall, cpu))
                print(f"  {name}: {wall:.1f} s, controller CPU {cpu:.2f} s", flush=True)
    for name, runs in figures.items():
        wall, cpu = median([w for w, _ in runs]), median([c for _, c in runs])
        verdict = f"goal <= {IDLE_GOAL:.1%}: {'met' if cpu / wall <= IDLE_GOAL else 'MISSED'}" if "ours" in name else ""
        print(f"{name:24s} controller CPU {cpu / wall:.2%} of one core, {boards / wall * 3600:.0f} boards/hour "
              f"({cpu * 1e3 / boards:.1f} ms CPU a board) {verdict}")
    return 0


def bare_driver(port: str, deals: DealSet) -> None:
    """The same boards driven with Machine calls alone: the protocol's own cost on the host."""
    packed = pack(deals.deals)
    with Machine(port) as m:
        m.connect()
        for i, board in enumerate(int(b) for b in deals.boards):
            m.load(i + 1, board, bytes(packed[i]))
            m.display(OperatorPrompt.INSERT_BOARD, board, BoardLabel.for_board("A", board).payload(), f"board {board}")
            assert m.wait_board(True, 60)
            m.scan()
            m.deal(i + 1, 60)
            m.recount(i + 1)
            m.scan()
            m.eject()


def one_run(count: int, speed: float, folder: Path,
            host: Callable[[list[str]], object]) -> tuple[float, float, dict[str, Any]]:
    """Start `count` machines, run `host` on their ports; (wall, host CPU, simulator figures). The
    figures get "startup" (host start to the first LoadDeal) and "tail" (last board out to host end)."""
    sims = Simulators(count, speed, folder / f"sims{time.monotonic_ns()}")
    try:
        start, wall, cpu = measured(lambda: host(sims.ports))
    finally:
        figures = sims.stop()
    machines = figures["machines"]
    figures["to_hello"] = min(f["hello"] for f in machines) - start
    figures["startup"] = min(f["start"] for f in machines) - start
    figures["tail"] = start + wall - max(f["end"] for f in machines)
    figures["own"] = max(f["own"] for f in machines)
    return wall, cpu, figures


def describe_waiting(name: str, machines: list[dict[str, Any]]) -> None:
    for i, f in enumerate(machines, 1):
        gaps, boards = f["eject_to_load"], f["boards"]
        print(f"  {name}, machine {i}: {boards} boards in {f['span']:.3f} s; waiting for the host "
              f"{f['idle'] * 1e3:.1f} ms ({f['idle'] / boards * 1e3:.2f} ms/board); board out -> next LoadDeal "
              f"mean {sum(gaps) / max(1, len(gaps)) * 1e3:.2f} ms, max {max(gaps, default=0) * 1e3:.2f} ms")
        waits = sorted(f["idle_until"].items(), key=lambda kv: -sum(kv[1]))
        print("    waits ended by: " + ", ".join(
            f"{cmd} {sum(w) / boards * 1e3:.2f} ms/board (longest {max(w) * 1e3:.1f})" for cmd, w in waits))


def describe_wall(name: str, runs: list[tuple[float, float, dict[str, Any]]]) -> float:
    """Median over the runs of wall / busiest machine's own time; the other figures are medians too."""
    ratios = [wall / figures["own"] for wall, _, figures in runs]
    walls = [wall for wall, _, _ in runs]
    owns = [figures["own"] for _, _, figures in runs]
    startup = [figures["startup"] for _, _, figures in runs]
    after_hello = [figures["startup"] - figures["to_hello"] for _, _, figures in runs]
    tail = [figures["tail"] for _, _, figures in runs]
    print(f"  {name}: session wall {median(walls):.3f} s, busiest machine's own time {median(owns):.3f} s: "
          f"wall / own {median(ratios):.3f}x (runs: {', '.join(f'{r:.3f}' for r in ratios)}); before the first "
          f"LoadDeal {median(startup) * 1e3:.1f} ms (of which after the first Hello {median(after_hello) * 1e3:.1f} "
          f"ms), after the last board out {median(tail) * 1e3:.1f} ms")
    return median(ratios)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--speed", type=float, default=50.0, help="simulated machines' speed factor (default 50)")
    parser.add_argument("--boards", type=int, default=16, help="boards per machine (default 16)")
    parser.add_argument("--machines", type=int, default=4, help="machines in the multi-machine run (default 4)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of ours and of each baseline (default 3)")
    parser.add_argument("--slow-speed", type=float, default=5.0,
                        help="speed of the one-machine run showing the cost of waiting (default 5; 0: skip)")
    parser.add_argument("--quick", action="store_true",
                        help="a first look: 2 boards, 2 machines, speed 200, one run, no slow run")
    parser.add_argument("--real-speed", action="store_true",
                        help="the idle controller: 4 machines at real speed for --minutes, against 50 ms polling")
    parser.add_argument("--minutes", type=float, default=5.0, help="length of a --real-speed session (default 5)")
    args = parser.parse_args(argv)
    if args.real_speed:
        repeats = 1 if args.quick or "--repeats" not in (argv or sys.argv) else args.repeats  # 10 min a pair
        return real_speed(0.2 if args.quick else args.minutes, args.machines, repeats)
    if args.quick:
        args.boards, args.machines, args.speed, args.repeats, args.slow_speed = 2, 2, 200.0, 1, 0.0
    n, speed, count, repeats = args.boards, args.speed, args.machines, args.repeats
    header("session: host CPU per board, machines waiting for the host, wall time against the machines' own time",
           {"bare driver": "the same boards driven with Machine calls alone (host CPU per board)",
            "one machine alone": f"one machine dealing {n} boards under deal_session (wall / own time)"},
           f"simulated machines at speed {speed:g}, {n} boards per machine, {count} machines, {repeats} runs of "
           "each (medians), the simulators in their own process")
    bare: list[float] = []
    one: list[tuple[float, float, dict[str, Any]]] = []
    many: list[tuple[float, float, dict[str, Any]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        deals, many_deals, few = session_deals(n), session_deals(n * count, seed=2), session_deals(2, seed=3)
        for _ in range(repeats):  # in turn, so ours and the baselines see the same machine load
            bare.append(one_run(1, speed, folder, lambda ports: bare_driver(ports[0], deals))[1])
            one.append(one_run(1, speed, folder, lambda ports: run_session(ports, deals, folder)))
            many.append(one_run(count, speed, folder, lambda ports: run_session(ports, many_deals, folder)))
        slow = one_run(1, args.slow_speed, folder, lambda ports: run_session(ports, few, folder)) \
            if args.slow_speed else None
    bare_cpu = median(bare) / n
    per_board = median([cpu for _, cpu, _ in one]) / n
    print(f"(a) host CPU per board (process CPU time; the simulators' CPU is in their own process; median of "
          f"{repeats}):")
    print(f"  dealing run, one machine: {per_board * 1e3:.2f} ms/board, goal <= {CPU_GOAL * 1e3:.0f} ms: "
          f"{'met' if per_board <= CPU_GOAL else 'MISSED'} ({per_board / bare_cpu:.2f}x the bare driver)")
    print(f"  baseline bare driver:     {bare_cpu * 1e3:.2f} ms/board")
    print(f"  dealing run, {count} machines:  {median([cpu for _, cpu, _ in many]) / (n * count) * 1e3:.2f} ms/board")
    if slow is not None:
        wall, cpu, figures = slow
        span = figures["machines"][0]["span"] / 2
        print(f"  dealing run at speed {args.slow_speed:g} (one run): {cpu / 2 * 1e3:.2f} ms/board ({span:.2f} s a "
              f"board; the driver's waits block until bytes or the link's next deadline)")
    print("(a) the machine waiting for the host, seen from the simulator (nothing planned by machine or operator; "
          "last run):")
    describe_waiting("one machine alone", one[-1][2]["machines"])
    describe_waiting(f"{count} machines", many[-1][2]["machines"])
    print(f"(b) session wall time against the busiest machine's own time (goal <= {WALL_GOAL:.2f}x; median of "
          f"{repeats}):")
    ratio = describe_wall(f"{count} machines on one controller", many)
    describe_wall("baseline one machine alone", one)
    print(f"  {count} machines: {'met' if ratio <= WALL_GOAL else 'MISSED'}")
    print(f"  simulator process CPU (last run): {one[-1][2]['cpu']:.2f} s (one machine), "
          f"{many[-1][2]['cpu']:.2f} s ({count} machines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
