"""A sample of the stress run of two controllers on one journal (`python -m tests.stress.two_controllers`):
up to 12 races, the second controller started together with the first or up to 200 ms later, each judged
by the simulated machines' ledgers - every board dealt exactly once and none skipped, the loser refused
naming the holder, a resume after the holder is killed finishing the run. The figures of the full run
(1,000 races, both cores busy) are in docs/decisions/2026-12-01-two-controllers-stress.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.controller_race import offsets, run_races

pytestmark = [pytest.mark.pty,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")]

RACES = 12
BUDGET = 12.0
"""Seconds after which no new race is begun, so that a slow computer runs fewer races, never a longer test;
how many ran does not change the verdict on those that did."""


def test_two_controllers_racing_for_one_journal_deal_every_board_exactly_once(tmp_path: Path) -> None:
    figures = run_races(RACES, steps=offsets(0.01, 0.2), keep=tmp_path, budget=BUDGET)
    assert figures.races >= 1
    assert figures.twice == 0 and figures.skipped == 0, figures.text()
    assert figures.refused_naming == figures.races and figures.loser_dealt == 0, figures.text()
    assert figures.good == figures.races, figures.text()
