"""Kill the controller with SIGKILL at random points of a simulated session, again and again, resuming
each time: in the end every board is dealt exactly once and verified, and the journal is consistent
(`tests.support.kill_loops.kills_alone`). The suite runs a sample of 8 kills; ``python -m
tests.stress.kill_loops --kills 50`` (or more) runs the whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.kill_loops import kills_alone

KILLS = 8


@pytest.mark.slow
def test_kills_at_random_instants_deal_every_board_exactly_once(tmp_path: Path) -> None:
    loop = kills_alone(tmp_path, KILLS)
    assert loop.problems == [], "\n".join([loop.text(), *loop.problems])
    # the kills landed all over a board's life: jobs only loaded were released, boards possibly holding
    # cards were recounted before anything else (empty: dealt; full: verified without a second dealing)
    assert loop.kinds["released"] >= 1 and loop.kinds["resume-uncertain"] >= 1, loop.text()
