"""DealSet: parallel arrays checked on creation, selection, hashes."""

from __future__ import annotations

import numpy as np
import pytest

from dealer.core.boards import Vulnerability
from dealer.core.dealset import DealSet
from dealer.core.errors import InvalidDealError
from tests.support.deals import random_deals


def test_from_deals_numbers_boards_and_applies_law_2() -> None:
    ds = DealSet.from_deals(random_deals(1, 3), [5, 6, 7])
    assert ds.boards.tolist() == [5, 6, 7]
    assert ds[0].dealer == 0 and ds[0].vulnerability is Vulnerability.NS
    assert ds.conforms_to_law2().all()


def test_mismatched_lengths_and_bad_deals_are_refused() -> None:
    deals = random_deals(2, 3)
    with pytest.raises(InvalidDealError):
        DealSet(np.array([1, 2]), deals, np.zeros(3, dtype=np.uint8), np.zeros(3, dtype=np.uint8))
    deals[1, :13] = 0
    with pytest.raises(InvalidDealError):
        DealSet.from_deals(deals)


def test_select_and_concat() -> None:
    ds = DealSet.from_deals(random_deals(3, 5))
    picked = ds.select([4, 2])
    assert picked.boards.tolist() == [4, 2]
    assert np.array_equal(picked.deals[0], ds.deals[3])
    joined = DealSet.concat([ds.select([1, 2]), ds.select([3, 4, 5])])
    assert joined.same_deals(ds)
    with pytest.raises(KeyError):
        ds.select([6])


def test_hashes_identify_deals_not_board_numbers() -> None:
    ds = DealSet.from_deals(random_deals(4, 4))
    moved = ds.renumbered([11, 12, 13, 14])
    assert moved.set_hash() == ds.set_hash()
    assert moved.deal_hashes() == ds.deal_hashes()
    other = DealSet.from_deals(random_deals(5, 4))
    assert other.set_hash() != ds.set_hash()
    assert len(set(ds.deal_hashes())) == 4
