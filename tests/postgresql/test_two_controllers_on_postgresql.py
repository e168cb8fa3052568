"""The race of two controllers on one run (`tests.support.controller_race`) with the journal in PostgreSQL: a
sample of races, each on a new database, judged by the simulated machines' ledgers: every board dealt exactly
once and none skipped, the loser refused (the run held by the winner, named; or Law 6D2 if both began the deal
set at once) having dealt nothing, and another controller's resume after the winner is killed finishing the run.
``python -m tests.stress.two_controllers --postgresql`` runs the series."""

from __future__ import annotations

from pathlib import Path

from tests.support.controller_race import Setup, offsets, run_races
from tests.support.postgres import ThrowawayServer

RACES = 6
BUDGET = 40.0
"""Seconds after which no new race is begun (a slow computer runs fewer races, never a longer test)."""


def test_two_controllers_racing_for_one_run_in_postgresql_deal_every_board_exactly_once(
        postgres: ThrowawayServer, tmp_path: Path) -> None:
    figures = run_races(RACES, steps=offsets(0.05, 0.2), keep=tmp_path, budget=BUDGET,
                        setup=Setup(journal_at=postgres.new_database))
    assert figures.races >= 1
    assert figures.twice == 0 and figures.skipped == 0 and figures.loser_dealt == 0, figures.text()
    assert figures.good == figures.races, figures.text() + "".join(f"\n{r.problems}" for r in figures.bad)
