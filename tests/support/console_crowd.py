"""The console under a crowd (`python -m tests.stress.console_crowd`, and its sample in the suite): idle and
slow-loris connections held open through a run, the console's open files limited; the figures printed, the
problems returned."""

from __future__ import annotations

import argparse
import contextlib
import errno
import http.client
import json
import os
import resource
import selectors
import socket
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.console_process import (
    MEMORY_BOUND_MB,
    RUNNING,
    Console,
    ConsoleError,
    generate,
    group_gone,
    mb,
    short,
    signals_end_the_run,
)

MACHINES = ["sim-5", "sim-6", "sim-7", "sim-8"]
"""The console's simulated machines without faults: every board verified."""
LOG_LINES_BOUND = 30
"""Lines the console's terminal may say through the crowd (a few a kind, never one a connection)."""


def limit_files(files: int) -> Callable[[], None]:
    """In the child, before the console starts: ``ulimit -n files``, soft and hard."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))
    return limit


@dataclass
class Slot:
    kind: str
    sock: socket.socket | None = None
    connected: bool = False
    reopen_at: float = 0.0
    next_line: float = 0.0
    lines: int = 0


@dataclass
class CrowdFigures:
    opened: int = 0
    connected: int = 0
    closed_by_console: Counter[str] = field(default_factory=Counter)
    answered_503: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    held_most: int = 0
    held_last: int = 0


class Crowd:
    """`idle` sockets that connect and say nothing, and `loris` sockets that send a request's first line, then a
    header line every `drip` seconds and never the end; each one the console closes is opened again after
    `pause` s, until `seconds` have passed (at most `most_opened` connections in all)."""

    def __init__(self, port: int, idle: int, loris: int, seconds: float, pause: float = 1.0, drip: float = 2.0,
                 most_opened: int = 400_000) -> None:
        self.port = port
        self.slots = [Slot("idle") for _ in range(idle)] + [Slot("loris") for _ in range(loris)]
        self.seconds = seconds
        self.pause = pause
        self.drip = drip
        self.most_opened = most_opened
        self.figures = CrowdFigures()
        self.up = threading.Event()
        self.began = 0.0
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self.began = time.monotonic()
        self.thread.start()

    def _open(self, sel: selectors.BaseSelector, slot: Slot, now: float) -> None:
        if self.figures.opened >= self.most_opened:
            slot.reopen_at = float("inf")
            return
        self.figures.opened += 1
        sock = socket.socket()
        sock.setblocking(False)
        try:
            sock.connect(("127.0.0.1", self.port))
        except BlockingIOError:
            pass
        except OSError as exc:
            self.figures.errors[errno.errorcode.get(exc.errno or 0, str(exc))] += 1
            sock.close()
            slot.reopen_at = now + self.pause
            return
        slot.sock, slot.connected, slot.lines = sock, False, 0
        sel.register(sock, selectors.EVENT_WRITE, slot)

    def _close(self, sel: selectors.BaseSelector, slot: Slot, now: float, why: str) -> None:
        if slot.sock is not None:
            with contextlib.suppress(KeyError, ValueError):
                sel.unregister(slot.sock)
            slot.sock.close()
        slot.sock, slot.connected = None, False
        slot.reopen_at = now + self.pause
        if why:
            self.figures.closed_by_console[why] += 1

    def _run(self) -> None:
        sel = selectors.DefaultSelector()
        deadline = self.began + self.seconds
        try:
            now = time.monotonic()
            for slot in self.slots:
                self._open(sel, slot, now)
            self.up.set()
            while (now := time.monotonic()) < deadline:
                for key, _events in sel.select(0.1):
                    slot = key.data
                    sock = slot.sock
                    if sock is None:
                        continue
                    if not slot.connected:
                        failed = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                        if failed:
                            self.figures.errors[errno.errorcode.get(failed, str(failed))] += 1
                            self._close(sel, slot, now, "")
                            continue
                        slot.connected = True
                        self.figures.connected += 1
                        sel.modify(sock, selectors.EVENT_READ, slot)
                        if slot.kind == "loris":
                            self._send(sel, slot, now, f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n")
                        continue
                    try:
                        got = sock.recv(65536)
                    except OSError:
                        got = b""
                    if got.startswith(b"HTTP/1.1 503"):
                        self.figures.answered_503 += 1
                    if not got:
                        self._close(sel, slot, now, slot.kind)
                for slot in self.slots:
                    if slot.sock is None and now >= slot.reopen_at:
                        self._open(sel, slot, now)
                    elif slot.kind == "loris" and slot.connected and now >= slot.next_line:
                        self._send(sel, slot, now, f"X-Slow-{slot.lines}: {slot.lines}\r\n")
                held = sum(1 for s in self.slots if s.connected)
                self.figures.held_most = max(self.figures.held_most, held)
                self.figures.held_last = held
        finally:
            for slot in self.slots:
                if slot.sock is not None:
                    slot.sock.close()
            sel.close()
            self.up.set()

    def _send(self, sel: selectors.BaseSelector, slot: Slot, now: float, text: str) -> None:
        assert slot.sock is not None
        slot.lines += 1
        slot.next_line = now + self.drip
        try:
            slot.sock.send(text.encode())
        except OSError:
            self._close(sel, slot, now, slot.kind)


class Director:
    """GET / and GET /api/room with the token, one after the other on fresh connections, from the crowd's start
    until told to stop: each answer's time since the crowd began, status and seconds taken."""

    def __init__(self, console: Console, began: float, every: float = 0.25) -> None:
        self.console = console
        self.began = began
        self.every = every
        self.asked: list[tuple[float, str, int, float]] = []
        self.run_ended = 0.0
        """When the Room first showed the run ended (seconds into the crowd)."""
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._ask, daemon=True)
        self.thread.start()

    def _ask(self) -> None:
        for k in range(100_000):
            if self.stopping.is_set():
                return
            path = "/" if k % 2 == 0 else "/api/room"
            sent = time.monotonic()
            status = 0
            connection = http.client.HTTPConnection("127.0.0.1", self.console.port, timeout=60)
            try:
                connection.request("GET", path, headers={"Authorization": f"Bearer {self.console.token}"})
                answer = connection.getresponse()
                body = answer.read()
                status = answer.status
                if path == "/api/room" and status == 200 and not self.run_ended:
                    said = json.loads(body)
                    if said.get("run") and said.get("status") not in RUNNING:
                        self.run_ended = time.monotonic() - self.began
            except OSError:
                status = -1
            finally:
                connection.close()
            self.asked.append((sent - self.began, path, status, time.monotonic() - sent))
            self.stopping.wait(self.every)


class Sampler:
    """The console's open files, counted from /proc every 0.2 s."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.most = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._count, daemon=True)
        self.thread.start()

    def _count(self) -> None:
        while not self.stopping.wait(0.2):
            with contextlib.suppress(OSError):
                self.most = max(self.most, len(os.listdir(f"/proc/{self.pid}/fd")))


def cpu_seconds(pid: int) -> float:
    """The CPU time a process has used (user and system), from /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def own_files(wanted: int) -> int:
    """This script's open-files soft limit, raised toward `wanted` (up to its hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        with contextlib.suppress(OSError, ValueError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted if hard == resource.RLIM_INFINITY else min(wanted, hard),
                                                        hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def crowd_run(folder: Path, args: argparse.Namespace) -> list[str]:
    """The crowd through one run: the figures printed, the problems returned."""
    problems: list[str] = []
    work = folder / "console" / "dealer-serve"
    work.mkdir(parents=True, mode=0o700)
    generate(work, "crowd.pbn", args.boards)
    console = Console(folder / "console", ("--sim-speed", f"{args.sim_speed:g}"), limit_files(args.files))
    print(f"console: pid {console.process.pid}, {console.address}, open files limited to {args.files} (soft and "
          f"hard); simulated machines at speed {args.sim_speed:g}", flush=True)
    sampler = Sampler(console.process.pid)
    crowd = Crowd(console.port, args.idle, args.loris, args.seconds)
    said_from = len(console.output())
    crowd.start()
    director = Director(console, crowd.began)
    try:
        crowd.up.wait(60)
        time.sleep(min(2.0, args.seconds / 4))
        started = console.post("/api/start", {"source": "crowd.pbn", "machines": MACHINES})
        if started.status != 200:
            problems.append(f"POST /api/start: {started.status} {short(started.text)}")
        run_began = time.monotonic() - crowd.began
        crowd.thread.join(args.seconds + 60)
        crowd_ended = time.monotonic() - crowd.began
        said = console.output(said_from)
        room = console.room()
        waited = time.monotonic()
        while room.get("status") in RUNNING and time.monotonic() - waited < args.run_within:
            time.sleep(0.2)
            room = console.room()
        run_ended = time.monotonic() - crowd.began
    finally:
        director.stopping.set()
        director.thread.join(90)
        sampler.stopping.set()
        sampler.thread.join(5)
    _, hwm = console.memory()
    cpu = cpu_seconds(console.process.pid)
    took = console.end(timeout=60)
    f = crowd.figures
    print(f"the crowd: {args.idle} idle and {args.loris} slow-loris sockets for {crowd_ended:.0f} s (each one closed "
          f"opened again after {crowd.pause:g} s): {f.opened} connections opened, {f.connected} connected; at most "
          f"{f.held_most} held at once, {f.held_last} at the end; closed by the console: "
          + (", ".join(f"{n} {k}" for k, n in sorted(f.closed_by_console.items())) or "none")
          + f"; {f.answered_503} answered 503"
          + (f"; connect errors {dict(f.errors)}" if f.errors else ""), flush=True)
    ended = director.run_ended or run_ended
    print(f"the run: {room.get('status')}, {room.get('verified')} of {room.get('total')} boards verified "
          f"(started {run_began:.1f} s into the crowd, at rest {ended:.1f} s into it); the console's CPU "
          f"{cpu:.1f} s", flush=True)
    late = [a for a in director.asked if a[0] >= args.settle]
    slow = [a for a in late if a[2] != 200 or a[3] > args.answer_within]
    worst = max((a[3] for a in late), default=0.0)
    times = sorted(a[3] for a in late)
    p95 = times[int(len(times) * 0.95)] if times else 0.0
    early = [a for a in director.asked if a[0] < args.settle]
    print(f"the director's Room: {len(director.asked)} requests (GET / and /api/room in turn); from {args.settle:g} s "
          f"into the crowd on, {len(late)} asked, {len(late) - len(slow)} answered 200 within {args.answer_within:g} "
          f"s, slowest {worst:.2f} s, 95th percentile {p95:.2f} s; before it, {len(early)} asked, slowest "
          f"{max((a[3] for a in early), default=0.0):.2f} s, statuses {dict(Counter(a[2] for a in early))}", flush=True)
    print(f"the console: VmHWM {mb(hwm)} (bound {MEMORY_BOUND_MB} MB), at most {sampler.most} open files (limit "
          f"{args.files}); its terminal said {len(said)} lines through the crowd; Ctrl-C ended it in "
          f"{'more than 60 s' if took is None else f'{took:.1f} s'}", flush=True)
    for line in said[:12]:
        print(f"    | {short(line, 220)}")
    if room.get("status") != "finished" or room.get("verified") != args.boards or room.get("total") != args.boards:
        problems.append(f"the run ended {room.get('status')!r} with {room.get('verified')} of {room.get('total')} "
                        f"boards verified ({args.boards} dealt): {short(str(room.get('message')), 200)}")
    if not late:
        problems.append(f"no request of the director's after {args.settle:g} s")
    if slow:
        problems.append(f"{len(slow)} of the director's requests after {args.settle:g} s not answered 200 within "
                        f"{args.answer_within:g} s: {[(round(t, 1), p, s, round(d, 2)) for t, p, s, d in slow[:5]]}")
    if hwm >= MEMORY_BOUND_MB * 1024:
        problems.append(f"the console's peak memory {mb(hwm)} passed {MEMORY_BOUND_MB} MB")
    if sampler.most >= args.files:
        problems.append(f"the console held {sampler.most} open files, its limit {args.files}")
    if len(said) > LOG_LINES_BOUND:
        problems.append(f"the console's terminal said {len(said)} lines through the crowd (bound {LOG_LINES_BOUND})")
    tracebacks = [line for line in console.output() if "Traceback" in line or line.startswith("ERROR")]
    if tracebacks:
        problems.append(f"the console's terminal shows {len(tracebacks)} error line(s): {short(tracebacks[0], 200)}")
    if took is None:
        problems.append("the console did not end on Ctrl-C within 60 s")
    return problems


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.stress.console_crowd",
                                description="The console under a crowd of idle and slow-loris connections")
    p.add_argument("--idle", type=int, default=1100, help="idle connections held (default 1100)")
    p.add_argument("--loris", type=int, default=300, help="slow-loris sockets held (default 300)")
    p.add_argument("--seconds", type=float, default=50.0, help="how long the crowd is held (default 50)")
    p.add_argument("--boards", type=int, default=40, help="boards of the run (default 40)")
    p.add_argument("--sim-speed", type=float, default=5.0,
                   help="the simulated machines' speed (default 5: the run lasts about as long as the crowd)")
    p.add_argument("--files", type=int, default=1024, help="the console's open-files limit (default 1024)")
    p.add_argument("--settle", type=float, default=10.0,
                   help="seconds into the crowd from which every Room request must be answered in time (default 10)")
    p.add_argument("--answer-within", type=float, default=5.0, help="seconds a Room request may take (default 5)")
    p.add_argument("--run-within", type=float, default=120.0,
                   help="seconds the run may go on after the crowd has gone (default 120)")
    args = p.parse_args(argv)
    if not (1 <= args.seconds <= 600 and 0 <= args.idle <= 5000 and 0 <= args.loris <= 5000):
        p.error("--seconds from 1 to 600, --idle and --loris up to 5000")
    began = time.monotonic()
    mine = own_files(args.idle + args.loris + 256)
    problems: list[str] = []
    if mine < args.idle + args.loris + 64:
        problems.append(f"this script may open {mine} files only: too few for {args.idle + args.loris} sockets")
    with signals_end_the_run(), tempfile.TemporaryDirectory(prefix="console-crowd-") as temp:
        folder = Path(temp)
        try:
            os.environ["DEALER_HISTORY"] = str(folder / "history.sqlite")  # its own, never this computer's
            from dealer.journal.history import DealHistory

            DealHistory.open(os.environ["DEALER_HISTORY"], create=True).close()
            if not problems:
                problems += crowd_run(folder, args)
        except KeyboardInterrupt as exc:
            problems.append(f"interrupted ({exc.args[0] if exc.args else 'SIGINT'}): the run is incomplete")
        except ConsoleError as exc:
            problems.append(f"the crowd could not go on: {exc}")
        finally:
            for console in Console.started:
                console.kill()
            left = [c.process.pid for c in Console.started if not group_gone(c.process.pid)]
            if left:
                problems.append(f"left behind: process groups {left}")
    for problem in problems:
        print(f"problem: {problem}")
    print(f"console crowd: {'held' if not problems else 'NOT HELD'}; {len(problems)} problem(s); in "
          f"{time.monotonic() - began:.0f} s", flush=True)
    return 1 if problems else 0
