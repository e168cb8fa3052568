"""Every engine's deals against the exact probabilities of bridge, under chi-square bounds.

Deterministic: each engine runs from a fixed seed, so a pass is a pass for good. The bounds are
upper chi-square quantiles at ALPHA = 1e-6 by the Wilson-Hilferty approximation (standard library
only, no scipy); for 10 to 156 degrees of freedom the true tail beyond it is 0.6e-6 to 1e-6 (checked
against the exact series for even df). A uniform engine passes a chosen seed with probability
1 - 1e-6 per test; a biased one fails (see the last test: the bounds catch a half-done shuffle).

- Hand patterns: for each seat, the counts of the patterns (4-4-3-2, 5-3-3-2, ...) over the deals
  are multinomial, one independent hand per deal; the probability of a pattern is computed exactly
  with math.comb. Patterns expected fewer than MIN_EXPECTED times are pooled into one bin.
- Card to seat: the 52 x 4 table of how often each card went to each seat, each cell expected n/4.
  The cells are dependent (each deal puts every card in one seat and 13 cards in each seat), so the
  Pearson statistic is not chi-square with 156 df: its deviations live in the 153-dimensional space of
  tables with zero row and column sums, on which the dealing's symmetry (any permutation of cards, any
  of seats) makes the covariance a multiple of the identity. The mean, 52 x 4 x (3/4) = 156, fixes
  the multiple: statistic x 51/52 is chi-square with 153 df for large n.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from fractions import Fraction
from functools import cache
from statistics import NormalDist

import numpy as np
import numpy.typing as npt
import pytest

from dealer.core.cards import check_deals
from dealer.engines import engine_names, make_engine, seed_length

ALPHA = 1e-6
DEALS = 100_000
MIN_EXPECTED = 20
HANDS = math.comb(52, 13)


def chi_square_bound(df: int, alpha: float = ALPHA) -> float:
    """Upper alpha quantile of chi-square with df degrees of freedom (Wilson-Hilferty)."""
    z = NormalDist().inv_cdf(1 - alpha)
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


@cache
def pattern_probabilities() -> dict[tuple[int, ...], Fraction]:
    """Exact probability of each hand pattern (suit lengths, longest first) of a random 13-card hand."""
    out: dict[tuple[int, ...], Fraction] = {}
    for lengths in itertools.product(range(14), repeat=4):
        if sum(lengths) == 13:
            pattern = tuple(sorted(lengths, reverse=True))
            ways = math.prod(math.comb(13, n) for n in lengths)
            out[pattern] = out.get(pattern, Fraction(0)) + Fraction(ways, HANDS)
    return out


def pattern_code(lengths: npt.NDArray[np.intp]) -> npt.NDArray[np.intp]:
    """One integer per pattern from suit lengths (..., 4), longest first."""
    ordered = -np.sort(-lengths, axis=-1)
    code: npt.NDArray[np.intp] = ordered @ np.array([14**3, 14**2, 14, 1])
    return code


def hand_patterns(deals: npt.NDArray[np.uint8]) -> npt.NDArray[np.intp]:
    """Pattern codes of every hand, shape (n, 4 seats)."""
    by_suit = deals.reshape(-1, 4, 13)
    lengths = np.stack([(by_suit == seat).sum(axis=2) for seat in range(4)], axis=1)
    return pattern_code(lengths)


def pattern_statistic(codes: npt.NDArray[np.intp]) -> tuple[float, int]:
    """Pearson statistic and df of one seat's pattern codes against the exact probabilities."""
    n = codes.size
    common = {p: q for p, q in pattern_probabilities().items() if n * q >= MIN_EXPECTED}
    common_codes = pattern_code(np.array(list(common)))
    observed = [int((codes == c).sum()) for c in common_codes]
    expected = [n * float(q) for q in common.values()]
    observed.append(n - sum(observed))
    expected.append(n * float(1 - sum(common.values())))
    statistic = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))
    return statistic, len(observed) - 1


def card_seat_statistic(deals: npt.NDArray[np.uint8]) -> float:
    """Pearson statistic of the card x seat table, scaled by 51/52 to chi-square with 153 df."""
    counts = np.stack([(deals == seat).sum(axis=0) for seat in range(4)], axis=1)
    expected = deals.shape[0] / 4
    return float(((counts - expected) ** 2).sum() / expected) * 51 / 52


def engine_deals(name: str, count: int) -> npt.NDArray[np.uint8]:
    """`count` deals of an engine from a fixed seed."""
    seed = hashlib.sha256(f"dealer statistics test {name}".encode()).digest()[:seed_length(name)]
    engine = make_engine(name, seed, "statistics test")
    return check_deals(engine.deals(count))


@pytest.fixture(scope="module", params=engine_names())
def deals(request: pytest.FixtureRequest) -> npt.NDArray[np.uint8]:
    name: str = request.param
    return engine_deals(name, DEALS)


def test_pattern_probabilities_are_exact() -> None:
    probabilities = pattern_probabilities()
    assert len(probabilities) == 39 and sum(probabilities.values()) == 1
    assert probabilities[(4, 4, 3, 2)] == Fraction(136852887600, HANDS)  # 21.55 %
    assert probabilities[(13, 0, 0, 0)] == Fraction(4, HANDS)
    assert round(float(probabilities[(5, 3, 3, 2)]), 6) == 0.155168


def test_wilson_hilferty_bound_is_a_far_tail() -> None:
    # exact upper tail of chi-square with even df: exp(-x/2) * sum_{k < df/2} (x/2)^k / k!
    for df in (10, 30, 156):
        half = chi_square_bound(df) / 2
        tail = math.exp(-half) * sum(half**k / math.factorial(k) for k in range(df // 2))
        assert 0.5 * ALPHA < tail < ALPHA


@pytest.mark.parametrize("seat", range(4), ids="NESW")
def test_hand_patterns_match_exact_probabilities(deals: npt.NDArray[np.uint8], seat: int) -> None:
    statistic, df = pattern_statistic(hand_patterns(deals)[:, seat])
    assert df >= 15
    assert statistic < chi_square_bound(df), f"pattern chi-square {statistic:.1f} on {df} df"


def test_common_patterns_are_near_their_frequencies(deals: npt.NDArray[np.uint8]) -> None:
    codes = hand_patterns(deals).ravel()
    for pattern in [(4, 4, 3, 2), (5, 3, 3, 2), (5, 4, 3, 1), (5, 4, 2, 2), (4, 3, 3, 3), (6, 3, 2, 2)]:
        p = float(pattern_probabilities()[pattern])
        share = float((codes == pattern_code(np.array(pattern))).mean())
        # 4n hands, at most 4 per deal: the standard error is below sqrt(p(1-p)/n)
        assert abs(share - p) < 5 * math.sqrt(p * (1 - p) / DEALS), pattern


def test_cards_go_to_each_seat_a_quarter_of_the_time(deals: npt.NDArray[np.uint8]) -> None:
    statistic = card_seat_statistic(deals)
    assert statistic < chi_square_bound(153), f"card-seat chi-square {statistic:.1f} on 153 df"


def test_the_bounds_reject_a_half_done_shuffle() -> None:
    """A deck dealt round robin and then given 20 random transpositions: visibly not random."""
    rng = np.random.default_rng(1)
    n = 20_000
    deals = np.tile(np.arange(52, dtype=np.uint8) % 4, (n, 1))
    rows = np.arange(n)
    for _ in range(20):
        a, b = rng.integers(0, 52, size=(2, n))
        deals[rows, a], deals[rows, b] = deals[rows, b], deals[rows, a]
    statistic, df = pattern_statistic(hand_patterns(deals)[:, 0])
    assert statistic > chi_square_bound(df)
    assert card_seat_statistic(deals) > chi_square_bound(153)
