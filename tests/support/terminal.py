"""A `dealer` command run with its standard error on a pseudo-terminal of the size people use (80×24), the screen
rebuilt from every byte it wrote (`tests.support.screen`): what a person at the terminal saw, frame by frame."""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

from tests.support.paths import ROOT
from tests.support.screen import Screen

COLUMNS, ROWS = 80, 24


def terminal_writes(args: list[str], cwd: Path, *, stdout_too: bool = False,
                    timeout: float = 240) -> tuple[list[bytes], str, int]:
    """Run `dealer ARGS` with standard error (and with `stdout_too` standard output) on a COLUMNS×ROWS
    pseudo-terminal: what it wrote there, write by write; standard output when it was not on the terminal; the
    exit code."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    env.update(PYTHONPATH=str(ROOT), TERM="xterm-256color")
    proc = subprocess.Popen([sys.executable, "-m", "dealer", *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=slave if stdout_too else subprocess.PIPE, stderr=slave, start_new_session=True)
    os.close(slave)
    writes: list[bytes] = []
    try:
        while True:
            ready, _, _ = select.select([master], [], [], timeout)
            if not ready:
                raise AssertionError("the command wrote nothing for a long time")
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the command ended and closed its terminal
                break
            if not chunk:
                break
            writes.append(chunk)
        out = proc.stdout.read().decode() if proc.stdout is not None else ""
        code = proc.wait(timeout=timeout)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    return writes, out, code


def on_a_terminal(args: list[str], cwd: Path, timeout: float = 240) -> tuple[list[list[str]], str, int]:
    """Run `dealer ARGS` with standard error on a COLUMNS×ROWS pseudo-terminal: the screens seen after each
    write, standard output, and the exit code."""
    writes, out, code = terminal_writes(args, cwd, timeout=timeout)
    screen, screens = Screen(COLUMNS, ROWS), []
    for chunk in writes:
        screen.feed(chunk.decode("utf-8", "replace"))
        screens.append(screen.text())
    return screens, out, code
