"""Kill the controller with SIGKILL at random points of a simulated session, and each time delete or truncate
the journal's -wal and -shm files before it resumes: every board is still dealt exactly once and verified,
none is skipped, and Law 6D2 still knows every deal (the journal's own record and the deal history); a
journal left part-written (a kill during a checkpoint, its -wal then lost) is refused, never dealt on
(`tests.support.kill_loops.kills_and_lost_side_files`). The suite runs a sample of 6 kills, each damage
at least once; ``python -m tests.stress.kill_loops --kills 50`` (or more) runs the whole."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.kill_loops import DAMAGES, kills_and_lost_side_files

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")

KILLS = 6


@pytest.mark.slow
def test_kills_and_lost_side_files_deal_every_board_exactly_once(tmp_path: Path) -> None:
    loop = kills_and_lost_side_files(tmp_path, KILLS)
    assert loop.problems == [], "\n".join([loop.text(), *loop.problems])
    assert all(loop.damages[how] >= 1 for how in DAMAGES), loop.text()
