"""A journal damaged after a run stopped gets one advice from every command that meets it: `dealer deal` with
and without --resume alike say it can be neither resumed nor added to (keep it aside), never that the run can be
continued with --resume."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.controllers import env


def dealer(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dealer", *args], cwd=folder, env=env(), text=True,
                          capture_output=True, timeout=240)


def test_a_damaged_journal_gets_the_same_advice_with_and_without_resume(tmp_path: Path) -> None:
    assert dealer(tmp_path, "generate", "--boards", "1-4", "-o", "s.pbn").returncode == 0
    stopped = dealer(tmp_path, "deal", "s.pbn", "--port", "sim://?speed=500&set=A&boards=1-2", "--board-timeout", "1",
                     "--plain")
    assert stopped.returncode == 5, stopped.stderr  # boards 3-4 never came: the run is unfinished
    journal = tmp_path / "s.pbn.journal"
    size = journal.stat().st_size
    with open(journal, "r+b") as f:  # its second half overwritten: its first pages (the tables) still read
        f.seek(size // 2)
        f.write(os.urandom(size - size // 2))
    said = []
    for resume in ([], ["--resume"]):
        ended = dealer(tmp_path, "deal", "s.pbn", "--port", "sim://?speed=500", "--plain", *resume)
        assert ended.returncode == 9 and ended.stderr.count("\n") == 1, ended.stderr
        said.append(ended.stderr)
    assert all("keep it aside" in line and "continue it with --resume" not in line for line in said), said
