"""Running commands as a user runs them: in their own process group, killed with it on a timeout."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from tests.support.paths import ROOT


class _Environment(Mapping[str, str]):
    """The process's environment as it is when read (a test's own `DEALER_HISTORY` included), with the
    source tree on PYTHONPATH and wide lines."""

    def _now(self) -> dict[str, str]:
        return {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "400"}

    def __getitem__(self, key: str) -> str:
        return self._now()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._now())

    def __len__(self) -> int:
        return len(self._now())


ENV: Mapping[str, str] = _Environment()
"""The environment of a `dealer` run from the source tree (wide lines: nothing wraps), read when used."""


def run(command: Sequence[str], *, cwd: Path, timeout: float = 300, env: Mapping[str, str] | None = None,
        shell: bool = False, umask: int = -1) -> subprocess.CompletedProcess[str]:
    """Run `command` to its end in its own session (with `umask`, if not -1); on a timeout its whole group
    is killed and the test fails with the end of what it printed (where it was stuck)."""
    proc = subprocess.Popen(command[0] if shell else list(command), cwd=cwd, env=dict(env or ENV), shell=shell,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                            start_new_session=True, umask=umask)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise AssertionError(f"still running after {timeout:g} s, killed: {list(command)[-1][-300:]!r}\n"
                             f"its output:\n{out[-3000:]}\nits errors:\n{err[-3000:]}") from None
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def dealer(*args: str, cwd: Path, timeout: float = 300, umask: int = -1) -> subprocess.CompletedProcess[str]:
    """`python -m dealer ARGS` from the source tree (with `umask`, if not -1)."""
    return run([sys.executable, "-m", "dealer", *args], cwd=cwd, timeout=timeout, umask=umask)


def stop_group(proc: subprocess.Popen[str], sig: int = signal.SIGTERM, timeout: float = 20) -> None:
    """Stop a process started in its own session: `sig` to its group, then SIGKILL if it has not ended
    within `timeout` seconds; reaped either way."""
    os.killpg(proc.pid, sig)
    try:
        proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()


def released_at_once(scripts: Sequence[Sequence[str]], timeout: float = 180) -> list[tuple[int, str, str]]:
    """Run each `python -c SCRIPT ARGS...` (`scripts`: the script and its arguments), which prints "ready" and
    waits for a line on its standard input; release them all at once when all are ready; their exit codes,
    outputs after "ready" and errors."""
    procs = [subprocess.Popen([sys.executable, "-c", *script], cwd=ROOT, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for script in scripts]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=timeout)
        results.append((proc.returncode, out, err))
    return results
