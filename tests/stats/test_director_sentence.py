"""The run report's statistics sentence speaks only at a level that should worry a director: sessions a
perfect shuffle made are told nothing calls for a second look, whatever their chance above the family-wise
level (every figure's test taken together); hand-shuffled deals are named with the figures Holm's
step-down picks. The false-alarm rate per honest session is measured by benchmarks/stats_alarms.py."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from dealer.stats import analyse, shuffling
from dealer.stats.goodness import uniform_deals
from dealer.stats.summary import DIRECTOR_ALARM, director_sentence, holm


def test_an_honest_session_that_the_old_sentence_called_uneven_is_told_nothing_is_wrong() -> None:
    rng = np.random.default_rng(7)
    uneven = next(s for s in (analyse(uniform_deals(16, rng), "club") for _ in range(200)) if s.chance < 0.05)
    assert "worth a second look" in uneven.sentence  # the statistician's sentence (dealer stats) says so
    said = director_sentence(uneven)
    assert said == "These 16 deals are what a perfect shuffle would give: nothing in them calls for a second look."


def test_hand_shuffled_deals_are_named_with_the_figures_holm_picks() -> None:
    stats = analyse(shuffling.model_deals(5000, 3, np.random.default_rng(2024)), "3 riffles")
    assert stats.chance <= DIRECTOR_ALARM
    named = holm(stats, DIRECTOR_ALARM)
    said = director_sentence(stats)
    assert named and said.startswith(f"These 5000 deals are not what a perfect shuffle gives ({named[0].lower()}")
    assert "flatter than random" in said and "Ask who shuffled or dealt them" in said


def test_holm_steps_down_and_stops_at_the_first_figure_kept() -> None:
    stats = analyse(uniform_deals(40, np.random.default_rng(3)), "club")
    figures = list(stats.figures)
    tested = [i for i, f in enumerate(figures) if f.test.tested]
    m = len(tested)
    # the smallest p just under level/m, the next just over level/(m-1): one named, the step-down stops there
    chosen = {tested[0]: 0.001 / m * 0.99, tested[1]: 0.001 / (m - 1) * 1.01}
    for i, p in chosen.items():
        figures[i] = replace(figures[i], test=replace(figures[i].test, p_value=p))
    for i in tested[2:]:
        figures[i] = replace(figures[i], test=replace(figures[i].test, p_value=0.5))
    assert holm(replace(stats, figures=tuple(figures)), 0.001) == [figures[tested[0]].quantity.title]
