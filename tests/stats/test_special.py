"""The statistical functions against closed forms, printed tables and R's documented example."""

from __future__ import annotations

import math

import pytest

from dealer.stats import special


@pytest.mark.parametrize("x", [0.01, 0.5, 1.0, 3.0, 10.0, 40.0, 200.0])
def test_chi_square_tails_match_their_closed_forms(x: float) -> None:
    # df 1: erfc(sqrt(x/2)); df 2: exp(-x/2); df 3: erfc(sqrt(x/2)) + sqrt(2x/pi) exp(-x/2);
    # even df: exp(-x/2) * sum_{k < df/2} (x/2)^k / k!
    assert special.chi_square_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-12, abs=1e-300)
    assert special.chi_square_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-12, abs=1e-300)
    three = math.erfc(math.sqrt(x / 2)) + math.sqrt(2 * x / math.pi) * math.exp(-x / 2)
    assert special.chi_square_sf(x, 3) == pytest.approx(three, rel=1e-11, abs=1e-300)
    for df in (10, 40, 156):
        even = math.exp(-x / 2) * sum((x / 2) ** k / math.factorial(k) for k in range(df // 2))
        assert special.chi_square_sf(x, df) == pytest.approx(even, rel=1e-10, abs=1e-300)


@pytest.mark.parametrize(("df", "x", "p"), [(1, 3.841, 0.05), (1, 6.635, 0.01), (5, 11.070, 0.05),
                                            (10, 23.209, 0.01), (30, 50.892, 0.01), (100, 135.807, 0.01),
                                            (7.5, 0.0, 1.0)])
def test_chi_square_tails_match_the_printed_table(df: float, x: float, p: float) -> None:
    """Upper critical values of chi-square, as printed to three decimals in the usual tables."""
    assert special.chi_square_sf(x, df) == pytest.approx(p, rel=2e-3)


def test_the_binomial_test_matches_r() -> None:
    # R's documentation of binom.test: binom.test(682, 925, p = 0.75) has p-value = 0.3825
    assert round(special.binomial_two_sided(682, 925, 0.75), 4) == 0.3825


@pytest.mark.parametrize(("n", "p"), [(10, 0.5), (32, 0.288), (7, 0.9), (200, 0.05)])
def test_the_binomial_test_sums_every_outcome_no_likelier_than_the_one_seen(n: int, p: float) -> None:
    pmf = [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
    for k in range(n + 1):
        want = min(1.0, sum(q for q in pmf if q <= pmf[k] * (1 + 1e-7)))
        assert special.binomial_two_sided(k, n, p) == pytest.approx(want, rel=1e-9, abs=1e-300)
    # the fair coin: twice the lower tail
    if p == 0.5:
        assert special.binomial_two_sided(2, n, p) == pytest.approx(2 * sum(pmf[:3]))


def test_weighted_chi_square_with_equal_weights_is_a_scaled_chi_square() -> None:
    p, scale, df = special.weighted_chi_square_sf(26.0, [2.0] * 6 + [0.0])
    assert (scale, df) == (2.0, 6.0)
    assert p == pytest.approx(special.chi_square_sf(13.0, 6))
    # unequal weights keep the mean (scale * df = sum of weights) and the variance (2 scale^2 df = 2 sum w^2)
    p, scale, df = special.weighted_chi_square_sf(10.0, [1.7, 1.0, 1.0, 0.8])
    assert scale * df == pytest.approx(4.5) and scale**2 * df == pytest.approx(1.7**2 + 2 + 0.64)
