"""The console (`dealer serve`) as a subprocess for the stress runs: started in a folder of its own, its address,
token and PIN read from its terminal, its memory sampled, asked over loopback, ended with its process group."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from tests.support.processes import ENV

MEMORY_BOUND_MB = 300
"""The console's peak resident memory (VmHWM) allowed through the whole run."""
RUNNING = ("starting", "dealing", "stopping")
"""A run's statuses while it deals (`dealer.serve.runs`); any other means it has ended."""
STARTUP_SECONDS = 60.0


class ConsoleError(RuntimeError):
    """The console did not start or answer as a console does, or a command the attacks need failed."""


@dataclass
class Answer:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    cookies: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            return {}

    def problems(self) -> str:
        """What a refusal or a check says (its problems, or its text)."""
        said = self.json()
        if isinstance(said, dict) and (said.get("problems") or said.get("error")):
            return " ".join(said.get("problems") or [said["error"]])
        return self.text.strip()


class Console:
    """`dealer serve --port 0` (and `args`) started in `folder` (its default work folder, ./dealer-serve, inside it),
    in a session of its own (`preexec_fn` run in the child before it starts); its output drained and kept, its
    memory sampled from /proc."""

    started: list[Console] = []
    """Every console started by this script (each is ended at the end, whatever happens)."""

    def __init__(self, folder: Path, args: tuple[str, ...] = (), preexec_fn: Callable[[], None] | None = None) -> None:
        self.folder = folder
        self.workdir = folder / "dealer-serve"
        folder.mkdir(parents=True, exist_ok=True)
        self.lines: list[tuple[float, str]] = []
        self._seen = threading.Condition()
        self.rss_peak_kb = 0
        self.hwm_kb = 0
        self.samples: list[tuple[float, int]] = []
        """(when, VmRSS in kB) of every sample."""
        self._sampling = True
        self.process = subprocess.Popen([sys.executable, "-m", "dealer", "serve", "--port", "0", *args], cwd=folder,
                                        env=dict(ENV), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, start_new_session=True,
                                        preexec_fn=preexec_fn)
        Console.started.append(self)
        self._drains = [threading.Thread(target=self._drain, args=(stream,), daemon=True)
                        for stream in (self.process.stdout, self.process.stderr)]
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        for thread in (*self._drains, self._sampler):
            thread.start()
        room = self.wait_for(r"the room at (http://127\.0\.0\.1:(\d+)/)\?token=(\S+)", STARTUP_SECONDS)
        pin = self.wait_for(r"director's PIN is (\d+)", STARTUP_SECONDS)
        self.address, self.port, self.token = room.group(1), int(room.group(2)), room.group(3)
        self.pin = pin.group(1)
        self.wait_for(r"work folder .*Ctrl-C stops", STARTUP_SECONDS)
        self.started_lines = len(self.output())
        """The lines the console printed as it started (its address, PIN and work folder)."""

    def _drain(self, stream: Any) -> None:
        with contextlib.suppress(ValueError, OSError):
            for line in stream:
                with self._seen:
                    self.lines.append((time.monotonic(), line.rstrip("\n")))
                    self._seen.notify_all()

    def _sample(self) -> None:
        while self._sampling and self.process.poll() is None:
            self.memory()
            time.sleep(0.05)

    def memory(self) -> tuple[int, int]:
        """VmRSS and VmHWM now, in kB (kept as the peaks seen)."""
        try:
            status = Path(f"/proc/{self.process.pid}/status").read_text()
        except OSError:
            return 0, self.hwm_kb
        found = dict(re.findall(r"^(VmRSS|VmHWM):\s+(\d+) kB", status, re.M))
        rss, hwm = int(found.get("VmRSS", 0)), int(found.get("VmHWM", 0))
        self.rss_peak_kb, self.hwm_kb = max(self.rss_peak_kb, rss), max(self.hwm_kb, hwm)
        self.samples.append((time.monotonic(), rss))
        return rss, hwm

    def peak_since(self, began: float) -> int:
        """The highest VmRSS (kB) sampled since `began` (a `time.monotonic()`), now included."""
        now = self.memory()[0]
        return max([now, *(rss for t, rss in self.samples[-20000:] if t >= began)])

    def wait_for(self, pattern: str, timeout: float, after: int = 0) -> re.Match[str]:
        """The first line printed (from line `after` on) matching `pattern`; ConsoleError after `timeout` s."""
        deadline = time.monotonic() + timeout
        with self._seen:
            while True:
                for _, line in self.lines[after:]:
                    found = re.search(pattern, line)
                    if found:
                        return found
                left = deadline - time.monotonic()
                if left <= 0 or (self.process.poll() is not None and not any(t.is_alive() for t in self._drains)):
                    raise ConsoleError(f"no line matching {pattern!r} within {timeout:g} s; the console said: "
                                       + " | ".join(line for _, line in self.lines[-8:]))
                self._seen.wait(min(left, 0.2))

    def output(self, after: int = 0) -> list[str]:
        with self._seen:
            return [line for _, line in self.lines[after:]]

    def alive(self) -> bool:
        return self.process.poll() is None

    def call(self, method: str, path: str, body: bytes | str | None = None, headers: dict[str, str] | None = None,
             timeout: float = 60, token: bool = True) -> Answer:
        """One request over a connection of its own, with the token (as `Authorization: Bearer`)."""
        sent = {"Authorization": f"Bearer {self.token}"} if token else {}
        if body is not None:
            sent["Content-Type"] = "application/json"
        sent.update(headers or {})
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request(method, path, body=body.encode() if isinstance(body, str) else body, headers=sent)
            answer = connection.getresponse()
            got = answer.read()
            return Answer(answer.status, got, {k.lower(): v for k, v in answer.getheaders()},
                          answer.headers.get_all("Set-Cookie") or [])
        finally:
            connection.close()

    def post(self, path: str, value: Any) -> Answer:
        return self.call("POST", path, json.dumps(value))

    def room(self) -> dict[str, Any]:
        room: dict[str, Any] = self.call("GET", "/api/room").json()
        return room

    def wait_at_rest(self, timeout: float) -> tuple[float, dict[str, Any]]:
        """Poll the room until no run deals (at most `timeout` s): the seconds it took and the room."""
        began = time.monotonic()
        room = self.room()
        while room.get("status") in RUNNING and time.monotonic() - began < timeout:
            time.sleep(0.05)
            room = self.room()
        return time.monotonic() - began, room

    def end(self, sig: int = signal.SIGINT, timeout: float = 60) -> float | None:
        """`sig` to the console (as a terminal's Ctrl-C, by default); the seconds it took to exit, or None if it
        had not within `timeout` s (then its group is killed). Its output is drained either way."""
        self.memory()
        began = time.monotonic()
        took: float | None = None
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(sig)
            try:
                self.process.wait(timeout)
                took = time.monotonic() - began
            except subprocess.TimeoutExpired:
                pass
        self.kill()
        return took

    def kill(self) -> None:
        """End the console and anything left in its process group (SIGKILL), reap it, close its pipes."""
        self._sampling = False
        with contextlib.suppress(ProcessLookupError, PermissionError):  # (none left in its group: nothing to do)
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(30)
        for thread in self._drains:
            thread.join(10)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            with contextlib.suppress(OSError, ValueError):
                if stream is not None:
                    stream.close()

    def port_closed(self) -> bool:
        with socket.socket() as probe:
            probe.settimeout(2)
            try:
                probe.connect(("127.0.0.1", self.port))
            except OSError:
                return True
        return False


def group_gone(pid: int) -> bool:
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def mb(kb: int) -> str:
    return f"{kb / 1024:.0f} MB"


def short(text: str, n: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 3] + "..."


def generate(folder: Path, name: str, boards: int) -> Path:
    path = folder / name
    done = subprocess.run([sys.executable, "-m", "dealer", "generate", "--boards", f"1-{boards}", "-o", str(path)],
                          env=dict(ENV), capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise ConsoleError(f"dealer generate failed (exit {done.returncode}): {short(done.stderr, 300)}")
    return path


@contextlib.contextmanager
def signals_end_the_run() -> Iterator[None]:
    """SIGTERM and SIGHUP to this script end it as Ctrl-C does: through every `finally`, consoles stopped."""
    def stop(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    before = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
