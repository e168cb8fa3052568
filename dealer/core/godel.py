"""Big Deal's deal numbering: the bijection between the numbers 0 .. D-1 and all bridge deals.

D = C(52,13) * C(39,13) * C(26,13) = 53,644,737,765,488,792,839,237,440,000 (96 bits).
Cards are numbered in Law 1 order (our card index: spade ace first, club two last). North's 13
cards, as increasing positions p_0 < .. < p_12 among the 52, are written a_j = p_j - j; East's cards
likewise by their positions among the 39 cards North does not hold (b_j), South's among the 26
left (c_j); West's hand is what remains. Deals are ordered lexicographically by (a, b, c), and a
deal's number is its place in that order (Big Deal's ``godel.tex``):

    G = C(39,13) * C(26,13) * G_a + C(26,13) * G_b + G_c

where G_x is the lexicographic rank of one hand's 13-subset among the n = 52, 39 or 26 free cards.
Telescoping the sum in ``godel.tex`` gives the closed form used here:

    G_x = C(n,13) - 1 - sum_j C(n - 1 - p_j, 13 - j)

so ranking is a table look-up per card and unranking is the greedy combinatorial number system
(each greedy step a table look-up on the leading bits of the remainder, see :func:`largest_at_most`),
both vectorised over a batch in numpy. Every part is below C(52,13) < 2**40, so the arrays are uint64;
only the join into one 96-bit number uses Python ints.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from math import comb
from typing import Final

import numpy as np
import numpy.typing as npt

from dealer.core import parallel
from dealer.core.cards import DECK_SIZE, DealArray, check_deals

HAND: Final = 13
# sizes of the three ranked hands' card pools: North among 52, East among 39, South among 26
POOLS: Final = (52, 39, 26)
C52: Final = comb(52, 13)
C39: Final = comb(39, 13)
C26: Final = comb(26, 13)
DEAL_COUNT: Final = C52 * C39 * C26
_NORTH_UNIT: Final = C39 * C26

PartArray = npt.NDArray[np.uint64]
_CHUNK: Final = 1 << 15  # deals decoded at once: keeps the index arrays small and in cache

# _BINOM[q, k] = C(q, k) for q in 0..52, k in 0..13
_BINOM: Final = np.array([[comb(q, k) for k in range(HAND + 1)] for q in range(DECK_SIZE + 1)],
                         dtype=np.uint64)


def split_number(number: int) -> tuple[int, int, int]:
    """The three hand ranks (G_a, G_b, G_c) of a deal number; `ValueError` outside 0 .. D-1."""
    if not 0 <= number < DEAL_COUNT:
        raise ValueError(f"deal number {number} is outside 0 .. {DEAL_COUNT - 1}")
    g_a, rest = divmod(number, _NORTH_UNIT)
    g_b, g_c = divmod(rest, C26)
    return g_a, g_b, g_c


def join_parts(g_a: int, g_b: int, g_c: int) -> int:
    """The deal number from its three hand ranks."""
    return (g_a * C39 + g_b) * C26 + g_c


def split_numbers(numbers: Iterable[int]) -> PartArray:
    """Hand ranks of many deal numbers as an (n, 3) uint64 array."""
    parts = [split_number(int(g)) for g in numbers]
    return np.array(parts, dtype=np.uint64).reshape(-1, 3)


def join_numbers(parts: PartArray) -> list[int]:
    """Deal numbers (Python ints) from an (n, 3) array of hand ranks."""
    return [join_parts(a, b, c) for a, b, c in np.asarray(parts).tolist()]


def parts_to_deals(parts: npt.ArrayLike, *, threads: int = 1) -> DealArray:
    """Deals (n, 52) from an (n, 3) array of hand ranks (G_a, G_b, G_c), vectorised, in chunks decoded
    on up to `threads` threads."""
    arr = np.asarray(parts, dtype=np.uint64).reshape(-1, 3)
    for col, pool in enumerate(POOLS):
        if arr.size and int(arr[:, col].max()) >= comb(pool, HAND):
            raise ValueError(f"hand rank {int(arr[:, col].max())} is not below C({pool},13)")
    deals = np.empty((len(arr), DECK_SIZE), dtype=np.uint8)
    parallel.map_spans(lambda first, last: _fill_deals(arr[first:last], deals[first:last]), len(arr), _CHUNK,
                       threads, even=True)
    return deals


def _fill_deals(parts: PartArray, out: DealArray) -> None:
    """Write the deals of a chunk of hand ranks into `out` (a C-contiguous (n, 52) slice)."""
    north = unrank_subsets(parts[:, 0], 52)
    # East's positions among the 39 cards North lacks, then South's among the 26 left, as cards
    east_in_39 = unrank_subsets(parts[:, 1], 39)
    east = _skip_over(east_in_39, north)
    south = _skip_over(_skip_over(unrank_subsets(parts[:, 2], 26), east_in_39), north)
    flat = out.reshape(-1)
    flat[:] = 3
    row_start = np.arange(len(parts), dtype=np.intp) * DECK_SIZE
    for seat, cards in enumerate((north, east, south)):
        flat[(row_start + cards).reshape(-1)] = seat


def unrank_subsets(ranks: PartArray, pool: int) -> npt.NDArray[np.int8]:
    """Positions (13, n) in 0..pool-1, increasing down each column, of the 13-subsets of a pool with
    these lexicographic ranks (hand-major layout: row j holds every deal's j-th card)."""
    rest = np.uint64(comb(pool, HAND) - 1) - np.asarray(ranks, dtype=np.uint64)
    positions = np.empty((HAND, len(rest)), dtype=np.int8)
    for j in range(HAND):
        q = largest_at_most(rest, HAND - j)
        rest = rest - _BINOM_COLUMNS[HAND - j].take(q)
        np.subtract(pool - 1, q, out=positions[j], casting="unsafe")
    return positions


# The greedy step of unranking: the largest q with C(q, k) <= rest, for every rest of a batch. A table
# indexed by the leading bits of rest + 1 as a float64 (its exponent and 6 bits of mantissa, so each
# bucket spans less than 1/64 of its values) gives that q or one less: with q <= 52 two consecutive
# C(q, k) differ by a factor of at least 52/51 > 1 + 1/64, so a bucket holds at most one of them, and one
# comparison settles it. Every rest is below 2**40, exact in a float64.
_BUCKET_BITS: Final = 6
_BUCKET_SHIFT: Final = np.uint64(52 - _BUCKET_BITS)
_BUCKET_BASE: Final = np.uint64(1023 << _BUCKET_BITS)  # the bucket of 1.0
_BUCKETS: Final = 41 << _BUCKET_BITS  # values 1 .. 2**41
_BINOM_COLUMNS: Final = [np.ascontiguousarray(_BINOM[:, k]) for k in range(HAND + 1)]


def bucket_lows() -> npt.NDArray[np.float64]:
    """The smallest value of each bucket of the look-up tables."""
    keys = np.arange(_BUCKETS, dtype=np.uint64) + _BUCKET_BASE
    lows: npt.NDArray[np.float64] = (keys << _BUCKET_SHIFT).view(np.float64)
    return lows


def _bucket_tables() -> npt.NDArray[np.uint8]:
    """(14, buckets): for k and a bucket, the largest q with C(q, k) below the bucket's smallest value
    (at most 51, the largest q a valid rank can need)."""
    lows = bucket_lows()
    tables = np.zeros((HAND + 1, _BUCKETS), dtype=np.uint8)
    for k in range(1, HAND + 1):
        below = np.searchsorted(_BINOM[:, k].astype(np.float64), lows, side="left") - 1
        tables[k] = np.minimum(below, DECK_SIZE - 1)
    return tables


_BUCKET_TABLES: Final = _bucket_tables()


def largest_at_most(rest: PartArray, k: int) -> npt.NDArray[np.intp]:
    """For each value of `rest` (below C(52, k)), the largest q with C(q, k) <= it."""
    value = rest.astype(np.float64)
    value += 1.0
    bucket = value.view(np.uint64) >> _BUCKET_SHIFT
    bucket -= _BUCKET_BASE
    q: npt.NDArray[np.intp] = _BUCKET_TABLES[k].take(bucket).astype(np.intp)
    q += _BINOM_COLUMNS[k].take(q + 1) <= rest
    return q


def _skip_over(positions: npt.NDArray[np.int8], taken: npt.NDArray[np.int8]) -> npt.NDArray[np.int8]:
    """Map positions among the items not `taken` to positions among all items (deal by deal).

    Both are (13, n) hand-major. With `taken` increasing, the free item at free-position e is
    e + #{j : taken_j - j <= e}: the taken items before it are those with at most e free items ahead.
    """
    out = positions.copy()
    for j in range(taken.shape[0]):
        out += positions >= taken[j] - np.int8(j)
    return out


def deals_to_parts(deals: npt.ArrayLike) -> PartArray:
    """Hand ranks (n, 3) of a batch of deals (checked), vectorised."""
    arr = check_deals(np.asarray(deals).reshape(-1, DECK_SIZE))
    n = len(arr)
    parts = np.empty((n, 3), dtype=np.uint64)
    js = HAND - np.arange(HAND)
    for seat, pool in enumerate(POOLS):
        # position of each card among the cards not held by an earlier seat
        free = arr >= seat
        rank_in_pool = np.cumsum(free, axis=1) - 1
        mine = arr == seat
        positions = rank_in_pool[mine].reshape(n, HAND)
        terms = _BINOM[pool - 1 - positions, js]
        parts[:, seat] = np.uint64(comb(pool, HAND) - 1) - terms.sum(axis=1, dtype=np.uint64)
    return parts


def numbers_to_deals(numbers: Sequence[int] | Iterable[int]) -> DealArray:
    """Deals (n, 52) for deal numbers in 0 .. D-1."""
    return parts_to_deals(split_numbers(numbers))


def deals_to_numbers(deals: npt.ArrayLike) -> list[int]:
    """Deal numbers of a batch of deals."""
    return join_numbers(deals_to_parts(deals))


def number_to_deal(number: int) -> DealArray:
    """The (52,) deal with this number."""
    deal: DealArray = parts_to_deals(np.array([split_number(number)], dtype=np.uint64))[0]
    return deal


def deal_to_number(deal: npt.ArrayLike) -> int:
    """The number of one (52,) deal."""
    return deals_to_numbers(np.asarray(deal).reshape(1, DECK_SIZE))[0]
