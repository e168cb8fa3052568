"""The C device library's link, run in its test driver (`firmware_protocol/c/tests/link_driver.c`) and
driven in lockstep from Python, so that it can take a `FakeMachine`'s place in a `link_sim.Simulation`
against the Python host's `Link`; and the example device program on a pseudo-terminal, as a process.

The driver's clock is the simulation's: every call passes the fake time, in whole milliseconds.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from firmware_protocol import LinkEvent
from tests.support.c_build import sanitized_env, sanitizer_report


def _ms(now: float) -> int:
    return round(now * 1000)


class CDeviceLink:
    """The C device's link in a running link driver: `receive`, `poll`, `data_to_send` and `next_deadline`
    as `firmware_protocol.Link` has them. Its events stay in C: the driver's machine handles them."""

    def __init__(self, driver: Path) -> None:
        self._proc = subprocess.Popen([str(driver)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True, env=sanitized_env())
        self._out = bytearray()
        self._deadline: int | None = None

    def _pipes(self) -> tuple[IO[str], IO[str]]:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        return self._proc.stdin, self._proc.stdout

    def _ask(self, line: str) -> str:
        stdin, stdout = self._pipes()
        stdin.write(line + "\n")
        stdin.flush()
        answer = stdout.readline()
        if not answer:
            raise RuntimeError(f"the link driver stopped: {self.close()}")
        return answer

    def _step(self, line: str) -> list[LinkEvent]:
        written, deadline = self._ask(line).split()
        if written != "-":
            self._out += bytes.fromhex(written)
        self._deadline = None if deadline == "-" else int(deadline)
        return []

    def start(self, now: float) -> None:
        self._step(f"start {_ms(now)}")

    def receive(self, data: bytes, now: float) -> list[LinkEvent]:
        return self._step(f"rx {_ms(now)} {data.hex()}")

    def poll(self, now: float) -> list[LinkEvent]:
        return self._step(f"poll {_ms(now)}")

    def data_to_send(self) -> bytes:
        out, self._out = bytes(self._out), bytearray()
        return out

    def next_deadline(self) -> float | None:
        return None if self._deadline is None else self._deadline / 1000

    def stats(self) -> dict[str, Any]:
        """What the driver's machine carried out (`loads`: job -> times) and the link's counters."""
        figures: dict[str, Any] = json.loads(self._ask("stats"))
        return figures

    def close(self) -> str:
        """End the driver; its stderr. Raises if it failed or a sanitizer spoke."""
        if self._proc.poll() is None:
            try:
                _, err = self._proc.communicate("", timeout=30)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                _, err = self._proc.communicate()
        else:
            err = self._proc.stderr.read() if self._proc.stderr else ""
            self._proc.communicate()
        if self._proc.returncode != 0 or sanitizer_report(err):
            raise RuntimeError(f"link driver exit {self._proc.returncode}: {err[-3000:]}")
        return err


class CMachine:
    """A `link_sim.DeviceEnd` whose device is the C library in its link driver."""

    def __init__(self, driver: Path) -> None:
        self.link = CDeviceLink(driver)

    def start(self, now: float) -> None:
        self.link.start(now)

    def handle(self, events: Sequence[LinkEvent], now: float) -> None:
        """Nothing to do here: the C device answers its commands itself."""


class DeviceProcess:
    """The example device program on a pseudo-terminal, in its own session: `path` is the port to open.
    `stop` ends it (SIGTERM, then SIGKILL for its group) and returns its exit code and stderr."""

    def __init__(self, program: Path, args: Sequence[str], link: Path) -> None:
        self._proc = subprocess.Popen([str(program), *args, "--link", str(link)], stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True, env=sanitized_env(),
                                      start_new_session=True)
        assert self._proc.stdout is not None
        self.path = self._proc.stdout.readline().strip()
        if not self.path:
            code, err = self.stop()
            raise RuntimeError(f"the device program did not start ({code}): {err}")

    def stop(self) -> tuple[int, str]:
        if self._proc.poll() is None:
            os.killpg(self._proc.pid, signal.SIGTERM)
        try:
            _, err = self._proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self._proc.pid, signal.SIGKILL)
            _, err = self._proc.communicate()
        return self._proc.returncode, err
