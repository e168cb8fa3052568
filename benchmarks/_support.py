"""What the benchmark scripts share, so that every one of them times its baselines as it times ours.

* `header`: the first lines every script prints, naming each baseline measured in the same run.
* `timings` / `median`: a callable run `repeats` times, each run timed on its own; the median counts.
* `bigdealx_on_path`, `run_bigdealx`, `run_dealer_generate`: Big Deal's ``bigdealx`` (looked for on PATH
  alone) and ``python -m dealer generate``, each timed as a whole process from start to exit.
* `random_deals`: deals to time; and from `hil.bench` (what the simulator's tests use too):
  `load_commands`, `one_board_exchange` (wire traffic to time) and `DeviceBench` (a bare host `Link`
  driving a `hil.SimDevice` on a fake clock).
* `Watch`, `Simulators`: simulated machines on ptys in a process of their own, each recording from the
  device side when it was working (something of its own or its operator's was scheduled) and when it
  was only waiting for a command. Run as ``python benchmarks/_support.py serve COUNT --speed S --dir D``,
  this file is that process.

Nothing here imports from the project's tests.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

# --- the header and timing --------------------------------------------------------------------------


def header(title: str, baselines: dict[str, str], settings: str = "") -> None:
    """Print what is measured, the settings, and each baseline by name with what it is."""
    print(title)
    if settings:
        print(f"  {settings}")
    print(f"  Python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} CPUs")
    print("baselines (measured in this run, timed as ours are):" if baselines else "baselines: none")
    for name, what in baselines.items():
        print(f"  - {name}: {what}")
    sys.stdout.flush()


def timings(run: Callable[[], object], repeats: int, clock: Callable[[], float] = time.perf_counter) -> list[float]:
    """Seconds of each of `repeats` calls of `run`, read on `clock` (wall by default)."""
    out = []
    for _ in range(repeats):
        start = clock()
        run()
        out.append(clock() - start)
    return out


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def spread(values: Sequence[float], unit: str = "s", scale: float = 1.0, digits: int = 3) -> str:
    """'median X (min A, max B; n runs)' of a series."""
    return (f"median {median(values) * scale:.{digits}f} {unit} (min {min(values) * scale:.{digits}f}, "
            f"max {max(values) * scale:.{digits}f}; {len(values)} runs)")


# --- whole processes -------------------------------------------------------------------------------


def bigdealx_on_path() -> str | None:
    """Big Deal's ``bigdealx`` if it is on PATH, else None (no other place is searched)."""
    return shutil.which("bigdealx")


def run_bigdealx(binary: str, seed_hex: str, owner: str, count: int, fmt: str, workdir: Path) -> tuple[float, Path]:
    """Wall seconds of the whole ``bigdealx -h SEED -W OWNER -n COUNT -f FMT`` process, run in the fresh
    folder `workdir` (its HOME too: bigdealx keeps a log of the seeds it used and refuses a repeat), and
    the file it wrote."""
    workdir.mkdir(parents=True)
    (workdir / ".bigdealrc").write_text(f"[BigDeal]\nformats={fmt}\naskformats=no\nowner={owner}\n")
    command = [binary, "-h", seed_hex, "-W", owner, "-n", str(count), "-p", "bx", "-f", fmt]
    env = dict(os.environ, HOME=str(workdir))
    start = time.perf_counter()
    run = subprocess.run(command, cwd=workdir, env=env, stdin=subprocess.DEVNULL, capture_output=True)
    elapsed = time.perf_counter() - start
    written = sorted(p for p in workdir.glob("bx.*"))
    if run.returncode or not written:
        raise RuntimeError(f"bigdealx failed ({run.returncode}): {run.stderr.decode(errors='replace')[-300:]}")
    return elapsed, written[0]


def run_dealer_generate(seed_hex: str, owner: str, count: int, out: Path, cwd: Path,
                        env: dict[str, str] | None = None) -> float:
    """Wall seconds of the whole ``python -m dealer generate --engine bigdeal`` process writing `out`."""
    command = [sys.executable, "-m", "dealer", "generate", "--boards", f"1-{count}", "--engine", "bigdeal",
               "--seed", seed_hex, "--owner", owner, "-o", str(out), "--force"]
    start = time.perf_counter()
    run = subprocess.run(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True)
    elapsed = time.perf_counter() - start
    if run.returncode:
        raise RuntimeError(f"dealer generate failed ({run.returncode}): {run.stderr.decode()[-300:]}")
    return elapsed


# --- deals and wire traffic ------------------------------------------------------------------------

SORTED_DEAL = np.repeat(np.arange(4, dtype=np.uint8), 13)


def random_deals(seed: int, n: int) -> np.ndarray:
    """`n` deals, (n, 52) uint8 seat per card, from numpy's generator (no engine needed)."""
    rng = np.random.default_rng(seed)
    return rng.permuted(np.broadcast_to(SORTED_DEAL, (n, 52)), axis=1).astype(np.uint8)


# --- simulated machines in their own process, watched from the device side -----------------------


class Watch:
    """Records, inside one simulated machine, when each timed action (of the machine or its operator) was
    planned and when it was due, each command received, and each board coming out. While nothing is
    planned, the machine can only be waiting for a command from the host. Installed on a started
    simulator's device under its lock (the simulator's clock is `time.monotonic`, as the host's is)."""

    def __init__(self, device: Any) -> None:
        self.device = device
        self.now = 0.0
        self.planned: list[tuple[float, float]] = []
        self.commands: list[tuple[float, str]] = []
        self.ejected: list[float] = []
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
        """The machine's working span (first LoadDeal to last board out), the time in it that nothing was
        planned (`idle`: waiting for the host), its own time (`own` = span - idle), the waits grouped by
        the command that ended them, and the gaps from each board out to the next LoadDeal."""
        loads = [t for t, name in self.commands if name == "LoadDeal"]
        if not loads or not self.ejected:
            return {"boards": 0}
        start, end = loads[0], self.ejected[-1]
        idle = uncovered(self.planned, start, end)
        named = dict(self.commands)
        by_command: dict[str, list[float]] = {}
        for a, b in idle:
            by_command.setdefault(named.get(b, "?"), []).append(b - a)
        gaps = [load - max(out for out in self.ejected if out <= load) for load in loads[1:]]
        waited = sum(b - a for a, b in idle)
        return {"boards": len(self.device.ledger.records), "hello": min(t for t, n in self.commands if n == "Hello"),
                "start": start, "end": end, "span": end - start, "idle": waited, "own": end - start - waited,
                "idle_until": by_command, "eject_to_load": gaps}


def uncovered(intervals: Sequence[tuple[float, float]], start: float, end: float) -> list[tuple[float, float]]:
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
    """Run `count` simulated machines (seeds 1..count) until a line on stdin; print their ports first
    and each one's `Watch.figures` last (JSON lines)."""
    from hil import PtySimulator, SimConfig

    sims = [PtySimulator(SimConfig(speed=speed, seed=i + 1, serial=f"SIM-{i + 1:04d}"), link=folder / f"m{i + 1}")
            for i in range(count)]
    watches = []
    try:
        for sim in sims:
            sim.start()
            with sim.lock:
                watches.append(Watch(sim.device))
        print(json.dumps({"ports": [sim.path for sim in sims]}), flush=True)
        sys.stdin.readline()
    finally:
        for sim in sims:
            sim.stop()
    print(json.dumps({"machines": [w.figures() for w in watches], "cpu": time.process_time()}), flush=True)
    return 0


class Simulators:
    """The serving process: `ports` at once, then (on `stop`) its machines' figures and its own CPU time.
    The host's process never runs a simulator, so its CPU time is the host's alone."""

    def __init__(self, count: int, speed: float, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen([sys.executable, __file__, "serve", str(count), "--speed", str(speed),
                                      "--dir", str(folder)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, start_new_session=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            self.stop()
            raise RuntimeError("the simulators' process ended before giving its ports")
        self.ports: list[str] = json.loads(line)["ports"]

    def stop(self) -> dict[str, Any]:
        try:
            out, _ = self.proc.communicate("stop\n", timeout=30)
            figures: dict[str, Any] = json.loads(out.splitlines()[-1])
            return figures
        finally:
            if self.proc.poll() is None:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="simulated machines for the benchmarks, in their own process")
    sub = parser.add_subparsers(dest="command", required=True)
    serving = sub.add_parser("serve", help="run COUNT simulated machines until a line on stdin")
    serving.add_argument("count", type=int)
    serving.add_argument("--speed", type=float, required=True)
    serving.add_argument("--dir", type=Path, required=True)
    args = parser.parse_args(argv)
    return serve(args.count, args.speed, args.dir)


if __name__ == "__main__":
    sys.exit(main())
