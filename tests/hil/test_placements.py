"""The ledger's compact record of the cards one dealing placed (`hil.physical.Placements`) holds what a plain
list of (card, pack, pocket) would."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hil.physical import Placements

placements = st.lists(st.tuples(st.integers(0, 51), st.sampled_from(["P001", "P002", "FOREIGN"]),
                                st.integers(0, 3)), max_size=120)


@given(placements)
def test_the_record_reads_back_as_the_list_it_was_given(given_cards: list[tuple[int, str, int]]) -> None:
    kept = Placements()
    for one in given_cards:
        kept.append(one)
    assert list(kept) == given_cards
    assert len(kept) == len(given_cards)
    assert [kept[k] for k in range(len(given_cards))] == given_cards
    if given_cards:
        assert kept[-1] == given_cards[-1]


@pytest.mark.parametrize("bad", [(52, "P001", 0), (-1, "P001", 0), (3, "P001", 4)])
def test_a_card_or_pocket_that_is_not_one_is_refused(bad: tuple[int, str, int]) -> None:
    with pytest.raises(ValueError):
        Placements().append(bad)
