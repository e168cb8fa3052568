"""The console's memory through a long run, whatever its clients do: peak resident memory of `dealer serve`.

Run from the project root: ``python benchmarks/serve_memory.py [--boards 9999] [--seconds 300] [--quick]``.
A deal file of --boards boards is dealt by the console (``dealer serve --sim-speed 10000``, in a process of its
own, on four simulated machines without faults) while clients watch: a reader of the Room's event stream, a
stream asked for and never read, and the Room's snapshot asked for every second. Its VmRSS is read from /proc
every 0.1 s. A run that has not ended within --seconds is stopped there and its prefix measured (said so).

Figures, each a peak: the console at rest (started, no run: Python, Starlette, uvicorn and the project
imported), then by boards verified; the goal is 150 MB for the whole run. Linux only (reads /proc).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from _support import ROOT, header  # the project root on sys.path too

GOAL_MB = 150
MACHINES = ["sim-5", "sim-6", "sim-7", "sim-8"]


class Served:
    """`dealer serve` in `folder`, its address and token read from its terminal, its VmRSS sampled."""

    def __init__(self, folder: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "DEALER_HISTORY": str(folder / "history.sqlite")}
        self.process = subprocess.Popen([sys.executable, "-m", "dealer", "serve", "--port", "0", "--sim-speed",
                                         "10000"], cwd=folder, env=env, stdin=subprocess.PIPE,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                        start_new_session=True)
        self.port, self.token = 0, ""
        assert self.process.stderr is not None
        deadline = time.monotonic() + 60
        for line in self.process.stderr:
            found = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=(\S+)", line)
            if found:
                self.port, self.token = int(found[1]), found[2]
            if "Ctrl-C" in line or time.monotonic() > deadline:
                break
        if not self.port:
            raise SystemExit("dealer serve did not print its address")
        threading.Thread(target=self._drain, daemon=True).start()
        self.samples: list[tuple[float, int]] = []
        self.sampling = True
        threading.Thread(target=self._sample, daemon=True).start()

    def _drain(self) -> None:
        assert self.process.stderr is not None
        with contextlib.suppress(ValueError, OSError):
            for _line in self.process.stderr:
                pass

    def _sample(self) -> None:
        while self.sampling:
            self.samples.append((time.monotonic(), self.rss_kb()))
            time.sleep(0.1)

    def rss_kb(self) -> int:
        try:
            status = Path("/", "proc", str(self.process.pid), "status").read_text()
            found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
        except OSError:
            return 0
        return int(found[1]) if found else 0

    def hwm_kb(self) -> int:
        try:
            status = Path("/", "proc", str(self.process.pid), "status").read_text()
            found = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
        except OSError:
            return 0
        return int(found[1]) if found else 0

    def ask(self, method: str, path: str, body: Any = None) -> Any:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            connection.request(method, path, body=None if body is None else json.dumps(body),
                               headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"})
            return json.loads(connection.getresponse().read() or b"{}")
        finally:
            connection.close()

    def end(self) -> None:
        self.sampling = False
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGINT)
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)


def watch_stream(served: Served, stop: threading.Event) -> threading.Thread:
    """A reader of the event stream, reading all it is sent until `stop`."""
    def read() -> None:
        with socket.create_connection(("127.0.0.1", served.port), timeout=5) as sock:
            sock.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {served.token}\r\n\r\n"
                         .encode())
            while not stop.is_set():
                with contextlib.suppress(TimeoutError):
                    if not sock.recv(65536):
                        return
    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def silent_stream(served: Served) -> socket.socket:
    """An event stream asked for and never read."""
    sock = socket.create_connection(("127.0.0.1", served.port), timeout=5)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {served.token}\r\n\r\n".encode())
    return sock


def deal_alone(folder: Path, deals: Path, seconds: float) -> int:
    """The peak VmRSS (kB) of `dealer deal` on the same machines for `seconds` (then stopped as Ctrl-C stops it)."""
    ports = [arg for k in range(5, 5 + len(MACHINES)) for arg in ("--port", f"sim://?speed=10000&seed={k}")]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DEALER_HISTORY": str(folder / "alone-history.sqlite")}
    subprocess.run([sys.executable, "-m", "dealer", "history", "init", env["DEALER_HISTORY"]], env=env,
                   capture_output=True, check=True, timeout=60)
    process = subprocess.Popen([sys.executable, "-m", "dealer", "deal", str(deals), *ports, "--plain", "--journal",
                                str(folder / "alone.journal")], cwd=folder, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    peak = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        with contextlib.suppress(OSError, TypeError):
            status = Path("/", "proc", str(process.pid), "status").read_text()
            peak = max(peak, int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)[1]))  # type: ignore[index]
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGINT)
    try:
        process.wait(60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)
    return peak


def api(what: str) -> str:
    """The path of the console's API call `what`."""
    return "/".join(("", "api", what))


def mb(kb: int) -> str:
    return f"{kb / 1024:.0f} MB"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--boards", type=int, default=9999, help="boards of the deal file (default 9999)")
    p.add_argument("--seconds", type=float, default=300.0,
                   help="the run is stopped after this long, its prefix measured (default 300)")
    p.add_argument("--alone", type=float, default=30.0, help="seconds of dealer deal alone (default 30)")
    p.add_argument("--quick", action="store_true", help="20 boards, 8 seconds at most")
    args = p.parse_args()
    if args.quick:
        args.boards, args.seconds, args.alone = 20, 8.0, 2.0
    header("The console's peak memory (VmRSS) through a long run, its clients watching",
           {"the console at rest": "dealer serve started, no run: Python, Starlette, uvicorn and the project "
                                   "imported, measured first",
            "dealer deal alone": "the same file dealt by the command line on the same machines, no console, for "
                                 "--alone seconds: what the run itself takes"},
           f"{args.boards} boards on {len(MACHINES)} simulated machines at speed 10000; stopped after "
           f"{args.seconds:g} s if not done; goal {GOAL_MB} MB")
    print()
    if not sys.platform.startswith("linux"):
        print("not measured: reads the console's memory from /proc (Linux)")
        return 0
    with tempfile.TemporaryDirectory(prefix="serve-memory-") as temp:
        folder = Path(temp)
        work = folder / "dealer-serve"
        work.mkdir(mode=0o700)
        made = subprocess.run([sys.executable, "-m", "dealer", "generate", "--boards", f"1-{args.boards}", "-o",
                               str(work / "long.pbn")], env={**os.environ, "PYTHONPATH": str(ROOT)},
                              capture_output=True, text=True, timeout=600)
        if made.returncode != 0:
            raise SystemExit(f"dealer generate failed: {made.stderr[-500:]}")
        subprocess.run([sys.executable, "-m", "dealer", "history", "init", str(folder / "history.sqlite")],
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, check=True, timeout=60)
        alone = deal_alone(folder, work / "long.pbn", args.alone)
        print(f"  - dealer deal alone: VmRSS peak {mb(alone)} over {args.alone:g} s", flush=True)
        served = Served(folder)
        stop = threading.Event()
        silent: socket.socket | None = None
        try:
            time.sleep(2)
            rest = max(rss for _, rss in served.samples)
            print(f"  - the console at rest: VmRSS {mb(rest)}")
            reader = watch_stream(served, stop)
            silent = silent_stream(served)
            began = time.monotonic()
            started = served.ask("POST", api("start"), {"source": "long.pbn", "machines": MACHINES})
            if not started.get("ok"):
                raise SystemExit(f"the run did not start: {started}")
            marks = sorted({m for m in (100, 1000, 2500, 5000, 7500, args.boards) if m <= args.boards})
            shown = 0
            room: dict[str, Any] = {}
            stopped = False
            while True:
                time.sleep(1.0)
                room = served.ask("GET", api("room"))
                verified = int(room.get("verified") or 0)
                while shown < len(marks) and verified >= marks[shown]:
                    peak = max(rss for _, rss in served.samples)
                    print(f"  {marks[shown]:>5} boards verified at {time.monotonic() - began:6.1f} s: VmRSS peak so "
                          f"far {mb(peak)}", flush=True)
                    shown += 1
                if room.get("status") not in ("starting", "dealing", "stopping"):
                    break
                if not stopped and time.monotonic() - began > args.seconds:
                    served.ask("POST", api("stop"))
                    stopped = True
            took = time.monotonic() - began
            hwm = served.hwm_kb()
            stop.set()
            reader.join(5)
        finally:
            if silent is not None:
                silent.close()
            served.end()
    verified = int(room.get("verified") or 0)
    part = ("the whole run" if verified >= args.boards
            else f"a prefix of {verified} boards (stopped at {args.seconds:g} s)")
    print()
    print(f"ours: {part}, {verified} of {args.boards} boards in {took:.0f} s ({room.get('status')}); the console's "
          f"peak VmRSS {mb(max(rss for _, rss in served.samples))}, VmHWM {mb(hwm)}; at rest {mb(rest)}; goal "
          f"{GOAL_MB} MB: {'held' if hwm < GOAL_MB * 1024 else 'NOT held'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
