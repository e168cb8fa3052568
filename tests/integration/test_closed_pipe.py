"""Output to a pipe whose reader has gone is dropped without a word, in every command: ``dealer plan ... | head
-1`` ends as if it had been read (exit 0, nothing on standard error), and a dealing run whose standard output
and error both lead nowhere still deals every board, each once, its story in the journal.

The reader is gone before the command writes a byte (the pipe's read end closed at the start), so every write
meets a closed pipe: what a late ``head`` or a ``tee`` ended by Ctrl-C leaves, at its worst."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dealer import formats
from dealer.journal.store import JobState, Journal
from tests.support.controllers import deal_set
from tests.support.paths import ROOT
from tests.support.processes import ENV

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a pipe's closed read end is POSIX's EPIPE")


def into_closed_pipes(args: list[str], cwd: Path, *, stderr_closed: bool = False) -> subprocess.CompletedProcess[str]:
    """`dealer ARGS` with standard output (and, if asked, standard error) a pipe no one reads."""
    read_out, write_out = os.pipe()
    read_err, write_err = os.pipe()
    os.close(read_out)
    if stderr_closed:
        os.close(read_err)
    try:
        proc = subprocess.Popen([sys.executable, "-m", "dealer", *args], cwd=cwd, env=dict(ENV), stdout=write_out,
                                stderr=write_err, stdin=subprocess.DEVNULL)
    finally:
        os.close(write_out)
        os.close(write_err)
    try:
        code = proc.wait(timeout=300)
        err = b""
        if not stderr_closed:
            with os.fdopen(read_err, "rb") as stream:
                err = stream.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return subprocess.CompletedProcess(args, code, "", err.decode())


@pytest.mark.parametrize("args", [["plan", "examples/congress.toml"], ["--help"], ["generate", "--help"],
                                  ["generate", "--boards", "1-2000", "-o", "-", "--format", "pbn"],
                                  ["history", "list"]],
                         ids=lambda a: " ".join(a))
def test_a_command_whose_reader_has_gone_ends_as_if_read(args: list[str], tmp_path: Path) -> None:
    work = tmp_path / "work"
    shutil.copytree(ROOT / "examples", work / "examples")
    event = Path("tests", "data", "squaredeal", "WBG2024")  # the SquareDeal event the congress example names
    shutil.copytree(ROOT / event, work / event)
    done = into_closed_pipes(args, work)
    assert (done.returncode, done.stderr) == (0, "")
    written = sorted(p.name for p in (work / "examples").iterdir())
    assert written == sorted(p.name for p in (ROOT / "examples").iterdir())  # nothing left behind


def test_a_dealing_run_with_no_one_reading_deals_every_board_once(tmp_path: Path) -> None:
    session = tmp_path / "s.pbn"
    formats.write_file(session, deal_set(31, 4))
    journal = tmp_path / "s.journal"
    done = into_closed_pipes(["deal", str(session), "--port", "sim://?speed=200&seed=3", "--journal", str(journal)],
                             tmp_path, stderr_closed=True)
    assert done.returncode == 0
    with Journal.open_read_only(journal) as j:
        (run,) = j.runs()
        assert run.finished and j.check_consistency(run.id) == []
        assert [job.state for job in j.jobs(run.id)] == [JobState.VERIFIED] * 4
        dealings = [e for e in j.events(run.id) if e.kind == "dealing"]
    assert len(dealings) == 4, [e.kind for e in j.events(run.id)]
