"""The exact probabilities of everything `dealer stats` counts, and the covariance of one deal's counts.

Counted, never sampled, in integer arithmetic (``Fraction``): each quantity depends on a deal only through
its 4 x 4 matrix of suit lengths, whose deals factor by hand. How each is counted:
docs/decisions/2026-12-01-exact-probabilities.md.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Final

import numpy as np
import numpy.typing as npt

from dealer.language import N_

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

HANDS: Final = math.comb(52, 13)
DEALS: Final = math.factorial(52) // math.factorial(13) ** 4
POINTS: Final = (4, 3, 2, 1)
"""High-card points of the ace, king, queen and jack."""

FIGURE_KEYS: Final = ("patterns", "hcp", "suit_lengths", "longest_in_hand", "shortest_in_hand",
                      "longest_in_deal", "longest_fit", "wild")


@dataclass(frozen=True)
class Quantity:
    """One thing counted over deals: its categories, their exact probabilities, and how one deal adds to it.

    `per_deal` units of it come with every deal (4 hands, 16 suit holdings, 2 partnerships or 1 deal);
    `covariance` is the exact covariance matrix of the counts one deal adds (``per_deal`` in total).
    """

    key: str
    title: str
    """In English (the JSON's), marked for the catalogue: said with `_`."""
    unit: str
    per_deal: int
    labels: tuple[str, ...]
    probabilities: tuple[Fraction, ...]
    covariance: FloatArray
    computed: str
    """How the probabilities are counted, in a sentence (English, marked: said with `_`)."""

    @property
    def shares(self) -> FloatArray:
        """The probabilities as floats."""
        return np.array([float(p) for p in self.probabilities])


# --- the 560 suit-length vectors of a hand ------------------------------------------------------------


@cache
def length_vectors() -> IntArray:
    """Every hand's possible suit lengths (♠ ♥ ♦ ♣), shape (560, 4), in lexicographic order."""
    rows = [(a, b, c, 13 - a - b - c) for a, b, c in itertools.product(range(14), repeat=3) if a + b + c <= 13]
    return np.array(rows, dtype=np.int64)


def vector_index(lengths: npt.NDArray[np.integer]) -> npt.NDArray[np.intp]:
    """The key ``a♠ * 196 + a♥ * 14 + a♦`` of length vectors (..., 4): what `lookup` tables are indexed by."""
    arr = np.asarray(lengths)
    key: npt.NDArray[np.intp] = arr[..., 0].astype(np.intp) * 196 + arr[..., 1] * 14 + arr[..., 2]
    return key


@cache
def hand_counts() -> tuple[int, ...]:
    """How many 13-card hands have each of `length_vectors()`: ``Π_s C(13, a_s)``."""
    return tuple(math.prod(math.comb(13, int(x)) for x in a) for a in length_vectors())


def pattern_of(lengths: Sequence[int]) -> tuple[int, ...]:
    """A hand pattern: the suit lengths longest first."""
    return tuple(sorted((int(x) for x in lengths), reverse=True))


def pattern_label(pattern: Sequence[int]) -> str:
    return "-".join(str(x) for x in pattern)


@cache
def patterns() -> tuple[tuple[int, ...], ...]:
    """The 39 hand patterns, most likely first (ties in increasing order: 7-5-1-0 before 8-3-2-0)."""
    totals: dict[tuple[int, ...], int] = {}
    for a, count in zip(length_vectors(), hand_counts(), strict=True):
        key = pattern_of(a)
        totals[key] = totals.get(key, 0) + count
    return tuple(sorted(totals, key=lambda p: (-totals[p], p)))


def is_wild_hand(lengths: Sequence[int]) -> bool:
    """A wild hand: a suit of 7 or more cards, a 6-5, or a void."""
    pattern = pattern_of(lengths)
    return pattern[0] >= 7 or pattern[:2] == (6, 5) or pattern[3] == 0


# --- per hand: categories of a length vector -------------------------------------------------------------

HandCategory = Callable[[Sequence[int]], int]


def _pattern_category(a: Sequence[int]) -> int:
    return patterns().index(pattern_of(a))


def _longest_category(a: Sequence[int]) -> int:
    return max(int(x) for x in a) - 4        # 4..13 -> 0..9


def _shortest_category(a: Sequence[int]) -> int:
    return min(int(x) for x in a)            # 0..3


HAND_CATEGORIES: Final[dict[str, HandCategory]] = {
    "patterns": _pattern_category, "longest_in_hand": _longest_category, "shortest_in_hand": _shortest_category,
}


@cache
def lookup(key: str) -> npt.NDArray[np.int16]:
    """A table from `vector_index` of a hand's lengths to its category of `key` (-1 where no hand is),
    or, for key ``"wild"``, to 1 for a wild hand and 0 for a tame one."""
    table = np.full(14 * 196, -1, dtype=np.int16)
    for a in length_vectors():
        value = int(is_wild_hand(a)) if key == "wild" else HAND_CATEGORIES[key](a)
        table[int(vector_index(a))] = value
    return table


def _hand_distribution(category: HandCategory, size: int) -> tuple[Fraction, ...]:
    counts = [0] * size
    for a, count in zip(length_vectors(), hand_counts(), strict=True):
        counts[category(a)] += count
    return tuple(Fraction(c, HANDS) for c in counts)


# --- the joint law of two hands (for covariances) ------------------------------------------------------


@cache
def _two_hands() -> tuple[IntArray, IntArray, FloatArray]:
    """Every pair (first hand's vector, second hand's vector) two different hands of a deal can have,
    as row numbers into `length_vectors()`, with its probability."""
    vectors = length_vectors()
    binom = np.array([[math.comb(n, k) for k in range(14)] for n in range(14)], dtype=np.float64)
    small = vectors.astype(np.int8)  # lengths up to 13: the (560, 560, 4) sums stay a byte each
    both = small[:, None, :] + small[None, :, :]
    first, second = np.nonzero((both <= 13).all(axis=2))
    del both
    a, b = small[first], small[second]
    ways = np.ones(len(first))
    for suit in range(a.shape[1]):  # a suit at a time: the pairs' temporaries stay a column each
        ways *= binom[13, a[:, suit]] * binom[13 - a[:, suit], b[:, suit]]
    return first, second, ways / (float(HANDS) * math.comb(39, 13))


def _hand_pair_joint(category: HandCategory, size: int) -> FloatArray:
    codes = np.array([category(a) for a in length_vectors()])
    first, second, prob = _two_hands()
    joint = np.zeros((size, size))
    np.add.at(joint, (codes[first], codes[second]), prob)
    return joint


def _covariance(per_deal: int, shares: FloatArray, pairs: Sequence[tuple[int, FloatArray]]) -> FloatArray:
    """Covariance of the counts one deal adds, from `per_deal` units with marginal `shares` and, per kind
    of pair of distinct units, (how many ordered pairs of that kind a deal has, their joint law)."""
    outer = np.outer(shares, shares)
    cov: FloatArray = per_deal * (np.diag(shares) - outer)
    for count, joint in pairs:
        cov = cov + count * ((joint + joint.T) / 2 - outer)
    return cov


# --- the quantities ---------------------------------------------------------------------------------------


def _patterns() -> Quantity:
    probs = _hand_distribution(_pattern_category, 39)
    joint = _hand_pair_joint(_pattern_category, 39)
    shares = np.array([float(p) for p in probs])
    return Quantity("patterns", N_("Hand patterns"), "hand", 4, tuple(pattern_label(p) for p in patterns()), probs,
                    _covariance(4, shares, [(12, joint)]),
                    N_("hands counted by their suit lengths: Π C(13, a_s) of the C(52, 13) hands, summed by pattern"))


def _longest_in_hand() -> Quantity:
    probs = _hand_distribution(_longest_category, 10)
    shares = np.array([float(p) for p in probs])
    return Quantity("longest_in_hand", N_("Longest suit in a hand"), "hand", 4, tuple(str(m) for m in range(4, 14)),
                    probs, _covariance(4, shares, [(12, _hand_pair_joint(_longest_category, 10))]),
                    N_("hands counted by their suit lengths, summed by the longest"))


def _shortest_in_hand() -> Quantity:
    probs = _hand_distribution(_shortest_category, 4)
    shares = np.array([float(p) for p in probs])
    return Quantity("shortest_in_hand", N_("Voids and singletons: shortest suit in a hand"), "hand", 4,
                    (N_("void"), N_("singleton"), N_("doubleton"), N_("three (4-3-3-3)")), probs,
                    _covariance(4, shares, [(12, _hand_pair_joint(_shortest_category, 4))]),
                    N_("hands counted by their suit lengths, summed by the shortest"))


def _suit_lengths() -> Quantity:
    probs = tuple(Fraction(math.comb(13, k) * math.comb(39, 13 - k), HANDS) for k in range(14))
    shares = np.array([float(p) for p in probs])
    vectors = length_vectors()
    weights = np.array(hand_counts(), dtype=np.float64) / HANDS
    same_hand = np.zeros((14, 14))              # spades and hearts of one hand
    np.add.at(same_hand, (vectors[:, 0], vectors[:, 1]), weights)
    first, second, prob = _two_hands()
    same_suit = np.zeros((14, 14))              # spades of two hands
    np.add.at(same_suit, (vectors[first, 0], vectors[second, 0]), prob)
    neither = np.zeros((14, 14))                # spades of one hand, hearts of another
    np.add.at(neither, (vectors[first, 0], vectors[second, 1]), prob)
    # 16 holdings a deal; ordered pairs: 4 hands x 3 x 4 suits of one hand, 4 suits x 4 x 3 hands of one
    # suit, 4 x 3 hands x 4 x 3 suits of neither
    cov = _covariance(16, shares, [(48, same_hand), (48, same_suit), (144, neither)])
    return Quantity("suit_lengths", N_("Suit lengths"), "suit holding", 16, tuple(str(k) for k in range(14)), probs,
                    cov, N_("C(13, k) C(39, 13 - k) / C(52, 13): k cards of a suit in a hand"))


def _hcp_counts() -> list[int]:
    counts = [0] * 38
    for held in itertools.product(range(5), repeat=4):
        honours = sum(held)
        if honours <= 13:
            points = sum(x * v for x, v in zip(held, POINTS, strict=True))
            counts[points] += math.prod(math.comb(4, x) for x in held) * math.comb(36, 13 - honours)
    return counts


def _hcp_pair_joint() -> FloatArray:
    """P(first hand has p points, second hand has q), over honours shared between the two hands."""
    # state[h1, h2, p1, p2]: ways for the honours so far to give h1, h2 honours and p1, p2 points
    state = np.zeros((17, 17, 41, 41))
    state[0, 0, 0, 0] = 1.0
    for value in POINTS:
        grown = np.zeros_like(state)
        for x in range(5):
            for y in range(5 - x):
                ways = math.comb(4, x) * math.comb(4 - x, y)
                px, py = value * x, value * y
                grown[x:, y:, px:, py:] += ways * state[:17 - x, :17 - y, :41 - px, :41 - py]
        state = grown
    joint = np.zeros((38, 38))
    for h1 in range(14):
        for h2 in range(14):
            spots = math.comb(36, 13 - h1) * math.comb(23 + h1, 13 - h2)
            joint += spots * state[h1, h2, :38, :38]
    result: FloatArray = joint / (float(HANDS) * math.comb(39, 13))
    return result


def _hcp() -> Quantity:
    probs = tuple(Fraction(c, HANDS) for c in _hcp_counts())
    shares = np.array([float(p) for p in probs])
    return Quantity("hcp", N_("High-card points in a hand"), "hand", 4, tuple(str(p) for p in range(38)), probs,
                    _covariance(4, shares, [(12, _hcp_pair_joint())]),
                    N_("hands counted by their aces, kings, queens and jacks, Π C(4, x), times C(36, 13 - honours) "
                       "spot cards"))


def _longest_fit() -> Quantity:
    total = math.comb(52, 26)
    counts = [0] * 7
    joint = np.zeros((7, 7))
    for f in itertools.product(range(14), repeat=3):
        last = 26 - sum(f)
        if not 0 <= last <= 13:
            continue
        lengths = (*f, last)
        ways = math.prod(math.comb(13, x) for x in lengths)
        mine, theirs = max(lengths), 13 - min(lengths)   # the other side holds 13 - f_s of each suit
        counts[mine - 7] += ways
        joint[mine - 7, theirs - 7] += ways / total
    probs = tuple(Fraction(c, total) for c in counts)
    shares = np.array([float(p) for p in probs])
    return Quantity("longest_fit", N_("Longest fit of a partnership"), "partnership", 2,
                    tuple(str(k) for k in range(7, 14)), probs, _covariance(2, shares, [(2, joint)]),
                    N_("the 26 cards of a partnership counted by suit lengths: Π C(13, f_s) / C(52, 26)"))


def deals_where_every_hand(allowed: Callable[[Sequence[int]], bool]) -> int:
    """How many of the 52!/(13!)^4 deals have every hand's suit-length vector `allowed` (a rule that does not
    depend on which suit is which): the coefficient of x^(13,13,13,13) in the fourth power of
    P = Σ_{allowed a} 13!/Π a_s! x^a, in exact integers.

    The fourth power is a square of squares: with Q = P², the coefficient is Σ_e Q[e] Q[(13,13,13,13) - e]
    over the exponents e of two hands (Σ e = 26, each e_s <= 13). P, and so Q, is the same under any
    order of the suits, so Q is needed only at e sorted longest first, each standing for its permutations.
    """
    factorial = [math.factorial(k) for k in range(14)]
    single = {tuple(int(x) for x in a): factorial[13] // math.prod(factorial[int(x)] for x in a)
              for a in length_vectors() if allowed(a)}
    two_hands = [e for e in itertools.product(range(14), repeat=4)
                 if sum(e) == 26 and e[0] >= e[1] >= e[2] >= e[3]]
    square: dict[tuple[int, ...], int] = {}
    for e in two_hands:
        square[e] = sum(w * single.get((e[0] - a[0], e[1] - a[1], e[2] - a[2], e[3] - a[3]), 0)
                        for a, w in single.items())
    total = 0
    for e in two_hands:
        rest = tuple(sorted((13 - x for x in e), reverse=True))
        orders = math.factorial(4) // math.prod(math.factorial(e.count(x)) for x in set(e))
        total += orders * square[e] * square[rest]
    return total


def _no_suit_longer_than(most: int) -> Callable[[Sequence[int]], bool]:
    return lambda lengths: max(lengths) <= most


def _longest_in_deal() -> Quantity:
    at_most = [deals_where_every_hand(_no_suit_longer_than(m)) for m in range(4, 13)] + [DEALS]
    counts = [at_most[0]] + [hi - lo for lo, hi in itertools.pairwise(at_most)]
    probs = tuple(Fraction(c, DEALS) for c in counts)
    shares = np.array([float(p) for p in probs])
    return Quantity("longest_in_deal", N_("Longest suit in the deal"), "deal", 1, tuple(str(m) for m in range(4, 14)),
                    probs, _covariance(1, shares, []),
                    N_("counted over whole deals: the deals in which no hand has a suit longer than m are the "
                       "coefficient of x♠¹³x♥¹³x♦¹³x♣¹³ in (Σ 13!/Π a_s! x^a)⁴, the sum over the suit lengths a with "
                       "no suit longer than m; then differences over m"))


def _wild() -> Quantity:
    tame = deals_where_every_hand(lambda a: not is_wild_hand(a))
    probs = (Fraction(DEALS - tame, DEALS), Fraction(tame, DEALS))
    shares = np.array([float(p) for p in probs])
    return Quantity("wild", N_("Wild deals: a 7+ card suit, a 6-5 or a void in some hand"), "deal", 1,
                    (N_("wild"), N_("not wild")), probs, _covariance(1, shares, []),
                    N_("counted over whole deals: the deals in which no hand has a 7+ suit, a 6-5 or a void are the "
                       "coefficient of x♠¹³x♥¹³x♦¹³x♣¹³ in (Σ 13!/Π a_s! x^a)⁴, the sum over the suit lengths a of "
                       "such hands"))


_BUILDERS: Final[dict[str, Callable[[], Quantity]]] = {
    "patterns": _patterns, "hcp": _hcp, "suit_lengths": _suit_lengths, "longest_in_hand": _longest_in_hand,
    "shortest_in_hand": _shortest_in_hand, "longest_in_deal": _longest_in_deal, "longest_fit": _longest_fit,
    "wild": _wild,
}


@cache
def quantity(key: str) -> Quantity:
    """The quantity named `key` (one of `FIGURE_KEYS`), computed once per process."""
    return _BUILDERS[key]()


def quantities() -> tuple[Quantity, ...]:
    """Every quantity, in report order."""
    return tuple(quantity(key) for key in FIGURE_KEYS)
