"""What the host costs in a dealing session, and whether the machines ever wait for it.

Run from the project root: ``python benchmarks/session.py [--speed 50] [--boards 8]``. The simulated
machines run in a separate process (this script with ``--serve``), each on its own pty, so this process
is the controller alone: its CPU time (``os.times``, every thread) is the host's, and the simulator's
own CPU never counts. Figures:

* **host CPU per board**: `dealer.dealing.run.deal_session` (journal, label checks, recounts, verification,
  progress) on one machine, against the goal of 20 ms, and beside the named baseline
  ``bare driver``: the same boards driven with `dealer.dealing.machine.Machine` calls alone (load, prompt,
  scan, deal, recount, eject), with no journal, no verifier, no stations.
* **machine waiting for the host**, seen from the simulator: every timed action of the machine and
  its operator (a scan, each card, a recount, an eject, an operator's reaction or swap) runs from the
  simulator's schedule; while nothing is scheduled, the machine can only be waiting for a command.
  Over each machine's working span (first LoadDeal to last board out) that idle time is summed, and
  the gap between each board coming out and the next LoadDeal is listed.
* **four machines on one controller**: the session's wall time against the busiest machine's own
  dealing time (the time its schedule was busy), goal within 5%, beside the baseline ``one machine
  alone`` with the same boards per machine.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dealer.core.boards import BoardLabel  # noqa: E402
from dealer.core.cards import pack  # noqa: E402
from dealer.core.dealset import DealSet  # noqa: E402
from dealer.dealing.machine import READ_SLICE, Machine  # noqa: E402
from dealer.dealing.run import RunOptions, deal_session  # noqa: E402
from firmware_protocol import Prompt  # noqa: E402
from tests.unit.test_cards import random_deals  # noqa: E402

CPU_GOAL = 0.020
WALL_GOAL = 1.05


# --- the simulator's side (the --serve process) ---------------------------------------------------


class Watch:
    """Records, inside one simulated machine, when each timed action was planned and due, each command
    received, and each board coming out. Installed on a started simulator's device under its lock."""

    def __init__(self, device: Any) -> None:
        self.device = device
        self.now = 0.0
        self.planned: list[tuple[float, float]] = []
        self.commands: list[tuple[float, str]] = []
        self.ejected: list[float] = []
        self._wrap(device)

    def _wrap(self, device: Any) -> None:
        schedule_at, command, on_ejected = device.schedule.at, device.firmware.command, device.on_ejected

        def at(when: float, action: Callable[[float], None], tag: str = "") -> None:
            self.planned.append((self.now, when))

            def run(t: float) -> None:
                self.now = t
                action(t)

            schedule_at(when, run, tag)

        def timed_command(msg: Any, now: float) -> Any:
            self.now = now
            self.commands.append((now, type(msg).__name__))
            return command(msg, now)

        def ejected(board: Any, t: float) -> None:
            self.ejected.append(t)
            on_ejected(board, t)

        device.schedule.at, device.firmware.command, device.on_ejected = at, timed_command, ejected

    def figures(self) -> dict[str, Any]:
        loads = [t for t, name in self.commands if name == "LoadDeal"]
        if not loads or not self.ejected:
            return {"boards": 0}
        start, end = loads[0], self.ejected[-1]
        idle = _uncovered(self.planned, start, end)
        named = dict(self.commands)
        by_command: dict[str, list[float]] = {}
        for a, b in idle:
            by_command.setdefault(named.get(b, "?"), []).append(b - a)
        gaps = [load - max(out for out in self.ejected if out <= load) for load in loads[1:]]  # from the board before
        hello = min(t for t, name in self.commands if name == "Hello")
        return {"boards": len(self.device.ledger.records), "hello": hello, "start": start, "end": end,
                "span": end - start,
                "idle": sum(b - a for a, b in idle), "idle_until": by_command, "eject_to_load": gaps}


def _uncovered(intervals: Sequence[tuple[float, float]], start: float, end: float) -> list[tuple[float, float]]:
    """The stretches of [start, end] outside every interval: when nothing was planned."""
    out, reach = [], start
    for a, b in sorted((max(a, start), min(b, end)) for a, b in intervals):
        if a > reach:
            out.append((reach, a))
        reach = max(reach, b)
    if reach < end:
        out.append((reach, end))
    return out


def serve(count: int, speed: float, folder: Path) -> int:
    """Run `count` simulated machines until a line on stdin; then print each one's figures (JSON)."""
    from hil import PtySimulator, SimConfig

    sims = [PtySimulator(SimConfig(speed=speed, seed=i + 1, serial=f"SIM-{i + 1:04d}"), link=folder / f"m{i + 1}")
            for i in range(count)]
    watches = []
    for sim in sims:
        sim.start()
        with sim.lock:
            watches.append(Watch(sim.device))
    print(json.dumps({"ports": [sim.path for sim in sims]}), flush=True)
    sys.stdin.readline()
    for sim in sims:
        sim.stop()
    print(json.dumps({"machines": [w.figures() for w in watches], "cpu": time.process_time()}), flush=True)
    return 0


# --- the host's side ------------------------------------------------------------------------------


class Simulators:
    """The --serve process: its ports, then (on `stop`) its machines' figures."""

    def __init__(self, count: int, speed: float, folder: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, __file__, "--serve", str(count), "--speed", str(speed),
                                      "--dir", str(folder)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, start_new_session=True)
        assert self.proc.stdout is not None
        self.ports: list[str] = json.loads(self.proc.stdout.readline())["ports"]

    def stop(self) -> dict[str, Any]:
        try:
            out, _ = self.proc.communicate("stop\n", timeout=30)
            figures: dict[str, Any] = json.loads(out.splitlines()[-1])
            return figures
        finally:
            if self.proc.poll() is None:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def session_deals(boards: int, seed: int = 1) -> DealSet:
    return DealSet.from_deals(random_deals(seed, boards), list(range(1, boards + 1)))


def measured(run: Callable[[], object]) -> tuple[float, float, float]:
    """(start, wall seconds, this process's CPU seconds, every thread) of `run()`; the start is
    `time.monotonic()`, the clock the simulator process reads too."""
    t0, c0 = time.monotonic(), time.process_time()
    run()
    return t0, time.monotonic() - t0, time.process_time() - c0


def run_session(ports: list[str], deals: DealSet, folder: Path) -> None:
    result = deal_session(deals, "bench.pbn", RunOptions(ports=ports, journal=folder / f"j{time.monotonic_ns()}.db",
                                                          quiet=True, out=io.StringIO()))
    assert result.complete, result.summary


def bare_driver(port: str, deals: DealSet) -> None:
    """The same boards driven with Machine calls alone: the protocol's own cost on the host."""
    packed = pack(deals.deals)
    with Machine(port) as m:
        m.connect()
        for i, board in enumerate(int(b) for b in deals.boards):
            m.load(i + 1, board, bytes(packed[i]))
            m.display(Prompt.INSERT_BOARD, board, BoardLabel.for_board("A", board).payload(), f"board {board}")
            assert m.wait_board(True, 60)
            m.scan()
            m.deal(i + 1, 60)
            m.recount(i + 1)
            m.scan()
            m.eject()


def one_run(count: int, speed: float, deals: DealSet, folder: Path,
            host: Callable[[list[str]], object]) -> tuple[float, float, dict[str, Any]]:
    """Start `count` machines, run `host` on their ports; (wall, host CPU, simulator figures). The
    figures get "startup" (host start to the first LoadDeal) and "tail" (last board out to host end)."""
    sims = Simulators(count, speed, folder)
    try:
        start, wall, cpu = measured(lambda: host(sims.ports))
    finally:
        figures = sims.stop()
    machines = figures["machines"]
    figures["to_hello"] = min(f["hello"] for f in machines) - start
    figures["startup"] = min(f["start"] for f in machines) - start
    figures["tail"] = start + wall - max(f["end"] for f in machines)
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


def own_time(f: dict[str, Any]) -> float:
    """A machine's own dealing time: its working span less the time it waited for the host."""
    return float(f["span"] - f["idle"])


def describe_wall(name: str, wall: float, figures: dict[str, Any]) -> float:
    own = max(own_time(f) for f in figures["machines"])
    print(f"  {name}: session wall {wall:.3f} s, busiest machine's own dealing time {own:.3f} s: "
          f"{wall / own:.3f}x; before the first LoadDeal {figures['startup'] * 1e3:.1f} ms (of which after "
          f"the first Hello {(figures['startup'] - figures['to_hello']) * 1e3:.1f} ms), after the last board out "
          f"{figures['tail'] * 1e3:.1f} ms")
    return wall / own


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--speed", type=float, default=50.0, help="simulated machines' speed factor (default 50)")
    parser.add_argument("--boards", type=int, default=16, help="boards per machine (default 16)")
    parser.add_argument("--machines", type=int, default=4, help="machines in the multi-machine run (default 4)")
    parser.add_argument("--slow-speed", type=float, default=5.0,
                        help="speed of the one-machine run showing the cost of waiting (default 5; 0: skip)")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        return serve(args.serve, args.speed, args.dir)
    n, speed, count = args.boards, args.speed, args.machines
    print(f"simulated machines at speed {speed:g}, {n} boards per machine, the simulators in their own process")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        deals, many_deals, few = session_deals(n), session_deals(n * count, seed=2), session_deals(2, seed=3)
        _, bare_cpu, _ = one_run(1, speed, deals, folder, lambda ports: bare_driver(ports[0], deals))
        one_wall, one_cpu, one = one_run(1, speed, deals, folder, lambda ports: run_session(ports, deals, folder))
        many_wall, many_cpu, many = one_run(count, speed, many_deals, folder,
                                            lambda ports: run_session(ports, many_deals, folder))
        slow = one_run(1, args.slow_speed, few, folder, lambda ports: run_session(ports, few, folder)) \
            if args.slow_speed else None
    per_board = one_cpu / n
    print("(a) host CPU per board (process CPU time; the simulators' CPU is in their own process):")
    print(f"  dealing run, one machine: {per_board * 1e3:.2f} ms/board, goal <= {CPU_GOAL * 1e3:.0f} ms: "
          f"{'met' if per_board <= CPU_GOAL else 'MISSED'} ({per_board / (bare_cpu / n):.2f}x the bare driver)")
    print(f"  baseline bare driver:     {bare_cpu / n * 1e3:.2f} ms/board")
    print(f"  dealing run, {count} machines:  {many_cpu / (n * count) * 1e3:.2f} ms/board")
    if slow is not None:
        wall, cpu, figures = slow
        span = figures["machines"][0]["span"] / 2
        print(f"  dealing run at speed {args.slow_speed:g}: {cpu / 2 * 1e3:.2f} ms/board ({span:.2f} s a board; the "
              f"driver's reads wake every {READ_SLICE * 1e3:.0f} ms while it waits)")
    print("(a) the machine waiting for the host, seen from the simulator (nothing planned by machine or operator):")
    describe_waiting("one machine alone", one["machines"])
    describe_waiting(f"{count} machines", many["machines"])
    print(f"(b) session wall time against the busiest machine's own dealing time (goal <= {WALL_GOAL:.2f}x):")
    ratio = describe_wall(f"{count} machines on one controller", many_wall, many)
    describe_wall("baseline one machine alone", one_wall, one)
    print(f"  {count} machines: {'met' if ratio <= WALL_GOAL else 'MISSED'}")
    print(f"  simulator process CPU: {one['cpu']:.2f} s (one machine), {many['cpu']:.2f} s ({count} machines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
