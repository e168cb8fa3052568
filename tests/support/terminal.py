"""A `dealer` command run with its standard error on a pseudo-terminal of a size people use (80×24 unless told),
the screen rebuilt from every byte it wrote (`tests.support.screen`): what a person at the terminal saw, frame by
frame, and the lines that scrolled off its top."""

from __future__ import annotations

import codecs
import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
from pathlib import Path

from tests.support.paths import ROOT
from tests.support.screen import Screen

COLUMNS, ROWS = 80, 24


def terminal_writes(args: list[str], cwd: Path, *, stdout_too: bool = False, size: tuple[int, int] = (COLUMNS, ROWS),
                    timeout: float = 240) -> tuple[list[bytes], str, int]:
    """Run `dealer ARGS` with standard error (and with `stdout_too` standard output) on a pseudo-terminal of
    `size` (columns, rows): what it wrote there, write by write; standard output when it was not on the terminal;
    the exit code."""
    master, slave = os.openpty()
    columns, rows = size
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
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
            os.killpg(proc.pid, signal.SIGKILL)  # its machines' processes too
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    return writes, out, code


def on_a_terminal(args: list[str], cwd: Path, timeout: float = 240) -> tuple[list[list[str]], str, int]:
    """Run `dealer ARGS` with standard error on a COLUMNS×ROWS pseudo-terminal: the screens seen after each
    write, standard output, and the exit code."""
    writes, out, code = terminal_writes(args, cwd, timeout=timeout)
    return frames(writes), out, code


def frames(writes: list[bytes], size: tuple[int, int] = (COLUMNS, ROWS)) -> list[list[str]]:
    """The screens seen after each write, on a terminal of `size` (columns, rows)."""
    screen, screens = Screen(*size), []
    decoder = codecs.getincrementaldecoder("utf-8")("replace")  # a letter may come in two writes
    for chunk in writes:
        screen.feed(decoder.decode(chunk))
        screens.append(screen.text())
    return screens


def final_screen(writes: list[bytes], size: tuple[int, int] = (COLUMNS, ROWS)) -> Screen:
    """The terminal of `size` (columns, rows) once every write has come: its screen and its scrollback."""
    screen = Screen(*size)
    screen.feed(b"".join(writes).decode("utf-8", "replace"))
    return screen
