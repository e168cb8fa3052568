"""Big Deal's deal numbering against the numbers and deals Big Deal itself published (WBG 2024)."""

from __future__ import annotations

import math
import re
from math import comb
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer.core import godel
from dealer.core.cards import from_pbn

WBG = Path(__file__).resolve().parent.parent / "data" / "squaredeal" / "WBG2024"
GOE_FILES = sorted(WBG.glob("*.goe"))
D = 53_644_737_765_488_792_839_237_440_000


def read_goe(path: Path) -> list[int]:
    """Numbers of a Big Deal .goe file: one a line, right-aligned with thousands commas."""
    return [int(line.replace(",", "").strip()) for line in path.read_text().splitlines() if line.strip()]


def read_pbn_deals(path: Path) -> np.ndarray:
    return np.array([from_pbn(d) for d in re.findall(r'\[Deal "([^"]+)"\]', path.read_text())])


def test_deal_count_is_the_number_of_bridge_deals() -> None:
    assert godel.DEAL_COUNT == D == comb(52, 13) * comb(39, 13) * comb(26, 13)
    assert 2**95 < D < 2**96


def test_reference_files_are_present() -> None:
    assert len(GOE_FILES) == 9


@pytest.mark.parametrize("goe", GOE_FILES, ids=lambda p: p.name)
def test_numbers_map_to_the_published_deals(goe: Path) -> None:
    numbers = read_goe(goe)
    deals = read_pbn_deals(goe.with_suffix(".pbn"))
    assert len(numbers) == len(deals) == 16
    assert np.array_equal(godel.numbers_to_deals(numbers), deals)


@pytest.mark.parametrize("goe", GOE_FILES, ids=lambda p: p.name)
def test_published_deals_map_back_to_their_numbers(goe: Path) -> None:
    assert godel.deals_to_numbers(read_pbn_deals(goe.with_suffix(".pbn"))) == read_goe(goe)


def test_scalar_forms_agree_with_the_batch_forms() -> None:
    goe = GOE_FILES[0]
    numbers = read_goe(goe)
    deals = read_pbn_deals(goe.with_suffix(".pbn"))
    for number, deal in zip(numbers, deals, strict=True):
        assert np.array_equal(godel.number_to_deal(number), deal)
        assert godel.deal_to_number(deal) == number


def test_first_and_last_numbers_are_the_extreme_deals() -> None:
    # number 0: every sequence zero, N holds the spades, E the hearts, S the diamonds
    first = godel.number_to_deal(0)
    assert np.array_equal(first, np.repeat(np.arange(4, dtype=np.uint8), 13))
    last = godel.number_to_deal(D - 1)
    assert np.array_equal(last, np.repeat(np.arange(3, -1, -1, dtype=np.uint8), 13))


def test_the_first_quarter_of_numbers_gives_north_the_spade_ace() -> None:
    # Big Deal's documentation: numbers below D/4 are exactly the deals with the spade ace in North
    assert godel.number_to_deal(D // 4 - 1)[0] == 0
    assert godel.number_to_deal(D // 4)[0] != 0


def test_number_one_is_the_successor_of_number_zero() -> None:
    # the successor raises the last c_j from 0 to 1: South's thirteenth card becomes the club ace,
    # so West gets the diamond two instead
    second = godel.number_to_deal(1)
    assert second[38] == 3 and second[39] == 2


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=D - 1), min_size=1, max_size=40))
def test_numbers_round_trip(numbers: list[int]) -> None:
    deals = godel.numbers_to_deals(numbers)
    assert deals.shape == (len(numbers), 52)
    assert (np.stack([(deals == s).sum(axis=1) for s in range(4)], axis=1) == 13).all()
    assert godel.deals_to_numbers(deals) == numbers


def test_order_is_lexicographic_in_north_then_east() -> None:
    rng = np.random.default_rng(7)
    numbers = sorted(int(x) for x in rng.integers(0, 2**62, 50)) + [D - 3, D - 2, D - 1]
    deals = godel.numbers_to_deals(numbers)
    # for a fixed North hand, East's positions among the free cards order like East's cards
    keys = [(tuple(np.flatnonzero(deal == 0)), tuple(np.flatnonzero(deal == 1))) for deal in deals]
    assert keys == sorted(keys)


def test_out_of_range_numbers_are_refused() -> None:
    with pytest.raises(ValueError, match="outside"):
        godel.number_to_deal(D)
    with pytest.raises(ValueError, match="outside"):
        godel.split_number(-1)
    with pytest.raises(ValueError, match="not below"):
        godel.parts_to_deals(np.array([[comb(52, 13), 0, 0]], dtype=np.uint64))


def test_batches_larger_than_one_chunk_decode_like_single_deals() -> None:
    rng = np.random.default_rng(3)
    numbers = [int(x) * 977 for x in rng.integers(0, 2**62, 40_000)]
    deals = godel.numbers_to_deals(numbers)
    for i in (0, 32_767, 32_768, 39_999):
        assert np.array_equal(deals[i], godel.number_to_deal(numbers[i]))


def greedy_step(rest: int, k: int) -> int:
    """The largest q with C(q, k) <= rest, by definition."""
    q = k - 1
    while comb(q + 1, k) <= rest:
        q += 1
    return q


def test_table_greedy_step_is_exact_at_both_ends_of_every_bucket_and_every_binomial() -> None:
    # within a bucket the answer can change at most once, so both ends of each bucket and both sides
    # of every binomial value cover every case the table can meet
    lows = godel.bucket_lows()
    for k in range(1, 14):
        top = comb(52, k)  # a remainder at step k is below C(52, k)
        values = {v for low, high in zip(lows[:-1], lows[1:], strict=True)
                  for v in (math.ceil(low), math.ceil(high) - 1) if v <= top}
        values |= {v for q in range(k, 53) for v in (comb(q, k), comb(q, k) + 1) if v <= top}
        rests = np.array(sorted(v - 1 for v in values if v >= 1), dtype=np.uint64)
        found = godel.largest_at_most(rests, k)
        expected = [greedy_step(int(r), k) for r in rests]
        assert found.tolist() == expected, k
