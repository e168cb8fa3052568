"""The goodness-of-fit tests: the pooling rule, that a perfect shuffle passes as often as it should (the
engines on fixed seeds, within an exact binomial bound), that hand shuffling is caught, and that the Monte
Carlo test is reproducible and honest.

The engines' acceptance: for each engine, 20 fixed seeds (SEEDS: seed i is the first bytes of
SHA-256("dealer stats acceptance <engine> <i>")), 10^5 deals each, every figure tested at the 1 % level.
A figure's rejections over the 20 independent seeds are Binomial(20, p) with p <= 0.01 when its test is
right; the test allows at most BOUND = 3 of 20, and P(Binomial(20, 0.01) >= 4) = 4.3e-5 (computed below),
so a right test fails this check with chance under 6.9e-4 over the 16 (engine, figure) counts. The check
is coarse: a test rejecting 10 % of the time would pass it 87 % of the time. What the tests' laws rest on
is checked more finely elsewhere: the covariance of a deal's counts against a sample of deals
(test_exact), the Monte Carlo p-values spread evenly (below).
"""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest

from dealer.engines import engine_names, make_engine, seed_length
from dealer.stats import analyse, analysis, exact, goodness, shuffling
from dealer.stats.goodness import MIN_EXPECTED, pooled_bins

SEEDS = tuple(range(1, 21))
DEALS = 100_000
LEVEL = 0.01
BOUND = 3
FLAG_DEALS = 5000
"""Deals from 3 riffle shuffles are flagged (p < 0.001) on this many deals (see dealer.stats.shuffling)."""


def binomial_tail(n: int, p: float, at_least: int) -> float:
    return sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(at_least, n + 1))


def engine_deals(name: str, seed: int, count: int) -> np.ndarray:
    key = hashlib.sha256(f"dealer stats acceptance {name} {seed}".encode()).digest()[:seed_length(name)]
    return make_engine(name, key, "stats").deals(count)


def test_the_bound_is_an_exact_binomial_tail() -> None:
    assert binomial_tail(len(SEEDS), LEVEL, BOUND + 1) < 4.3e-5
    assert 16 * binomial_tail(len(SEEDS), LEVEL, BOUND + 1) < 6.9e-4


@pytest.mark.parametrize("engine", engine_names())
def test_engines_are_rejected_no_more_often_than_chance_allows(engine: str) -> None:
    rejections = dict.fromkeys(exact.FIGURE_KEYS, 0)
    overall = 0
    for seed in SEEDS:
        deals = engine_deals(engine, seed, DEALS)
        result = goodness.check_sample(analysis.count_deals(deals), DEALS)
        for key, test in result.tests.items():
            assert test.method != "none"
            rejections[key] += test.p_value < LEVEL
        overall += result.overall < LEVEL
    assert max(rejections.values()) <= BOUND, rejections
    assert overall <= BOUND


def test_three_riffle_shuffles_are_flagged_and_the_engines_are_not() -> None:
    model = analyse(shuffling.model_deals(FLAG_DEALS, 3, np.random.default_rng(2024)), "3 riffles")
    assert model.chance < 0.001
    assert "not what a perfect shuffle gives" in model.sentence and "flatter" in model.sentence
    for engine in engine_names():
        sample = analyse(engine_deals(engine, 99, FLAG_DEALS), engine)
        assert sample.chance >= 0.001, (engine, sample.chance)


def test_bins_are_expected_at_least_five_times_each() -> None:
    for q in exact.quantities():
        for units in (4, 128, 4000, 400_000):
            bins = pooled_bins(q.shares, units)
            assert sorted(i for b in bins for i in b) == list(range(len(q.labels)))   # each category once
            assert all(b == list(range(b[0], b[-1] + 1)) for b in bins)              # consecutive
            expected = [units * q.shares[b].sum() for b in bins]
            assert len(bins) == 1 or min(expected) >= MIN_EXPECTED


def test_tiny_samples_have_no_chi_square_and_say_so() -> None:
    one = analyse(engine_deals("shuffle", 1, 1), "one deal")
    assert "This one deal is" in one.sentence
    assert one.figure("longest_in_deal").test.method == "none"
    assert one.figure("wild").test.method == "exact binomial"


def test_the_monte_carlo_test_is_reproducible_and_honest() -> None:
    """The same deals give the same p-values; over many random sessions of 32 deals the p-values are
    spread evenly (about 5 % below 0.05), as a valid test's must be."""
    deals = engine_deals("shuffle", 5, 32)
    first, again = analyse(deals, "a"), analyse(deals, "b")
    assert [f.test.p_value for f in first.figures] == [f.test.p_value for f in again.figures]
    assert first.figure("patterns").test.method == "Monte Carlo"
    rng = np.random.default_rng(11)
    small = [goodness.check_sample(analysis.count_deals(goodness.uniform_deals(32, rng)), 32, sets=99)
             for _ in range(200)]
    below = np.mean([r.tests["suit_lengths"].p_value <= 0.05 for r in small])
    overall = np.mean([r.overall <= 0.05 for r in small])
    assert below <= 0.12 and overall <= 0.12       # 5 % expected; 0.12 is 4.5 standard errors above


def test_a_biased_sample_is_found_by_the_right_figure() -> None:
    """Deals whose every hand is 4-3-3-3 or 4-4-3-2 (a flat deal): the patterns are flagged."""
    rng = np.random.default_rng(3)
    pool = goodness.uniform_deals(20_000, rng)
    lengths = analysis.suit_lengths(pool)
    flat = pool[(lengths.max(axis=2) <= 4).all(axis=1)][:300]
    sample = analyse(flat, "flat")
    assert sample.figure("patterns").test.p_value <= 0.001
    assert sample.figure("wild").counts[0] == 0 and "flatter" in sample.sentence
