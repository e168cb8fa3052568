"""The independent device as a process for tests: started on a pty, its ledger and control FIFO."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
FAST = ["--card-time", "0.002", "--scan-time", "0.01", "--recount-time", "0.01", "--operator-time", "0.01"]


@dataclass
class RunningDevice:
    """A started device: the port a host opens, its ledger, its control FIFO and its log."""

    port: str
    ledger: Path
    control: Path
    log: Path
    process: subprocess.Popen[str]

    def tell(self, command: str) -> None:
        """A line on the control FIFO (power, hang, insert KEY TURNS, remove)."""
        fd = os.open(self.control, os.O_WRONLY)
        try:
            os.write(fd, (command + "\n").encode())
        finally:
            os.close(fd)


@contextmanager
def running_device(folder: Path, *options: str, module: str = "tests.support.independent_device"
                   ) -> Iterator[RunningDevice]:
    """Start `python -m MODULE` (the independent device, or `tests.support.first_text_device`) with `options`;
    stop it (and wait) on exit."""
    folder.mkdir(parents=True, exist_ok=True)
    ledger, control, log = folder / "ledger.jsonl", folder / "control", folder / "device.log"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            module,
            *FAST,
            "--ledger",
            str(ledger),
            "--control",
            str(control),
            "--log",
            str(log),
            *options,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        port = process.stdout.readline().strip()
        if not port:
            raise RuntimeError(f"the independent device did not start (exit {process.wait()})")
        yield RunningDevice(port, ledger, control, log, process)
    finally:
        process.terminate()
        process.wait(timeout=30)
        if process.stdout is not None:
            process.stdout.close()


def practice_env(folder: Path) -> dict[str, str]:
    """An environment whose home, data folder and deal history all lie in `folder`."""
    home = folder / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.update(
        HOME=str(home),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CONFIG_HOME=str(home / ".config"),
        DEALER_HISTORY=str(folder / "history.sqlite"),
    )
    return env
