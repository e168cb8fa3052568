"""The room's time dealing: the time any machine was on a board, each moment counted once, so that the hours
between a stop and its resume are not counted (`dealer.serve.figures.union_length`). Expected values
worked out by hand from the spans."""

from __future__ import annotations

import pytest

from dealer.journal.run_report import union_length


@pytest.mark.parametrize(("spans", "expected"), [
    ([], 0.0),
    ([(10.0, 12.5)], 2.5),
    ([(0.0, 4.0), (2.0, 6.0)], 6.0),  # two machines at once: 0-6
    ([(0.0, 4.0), (1.0, 2.0)], 4.0),  # one span inside another
    ([(0.0, 3.0), (3.0, 5.0)], 5.0),  # one board straight after another
    ([(0.0, 60.0), (7200.0, 7230.0)], 90.0),  # stopped for two hours, then resumed: 60 s + 30 s
    ([(7200.0, 7230.0), (0.0, 60.0), (30.0, 90.0)], 120.0),  # in any order
])
def test_time_dealing_counts_each_moment_once_and_no_gap(spans: list[tuple[float, float]], expected: float) -> None:
    assert union_length(spans) == pytest.approx(expected)
