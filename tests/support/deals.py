"""Deals for tests: reproducible random deal arrays and deal sets, a hypothesis strategy, hands of a deal,
and the deals of a PBN file read as plain text (a second reader, independent of the project's)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from hypothesis import strategies as st

from dealer.core.dealset import DealSet

SORTED_DEAL = np.repeat(np.arange(4, dtype=np.uint8), 13)
"""N all spades, E all hearts, S all diamonds, W all clubs."""


def random_deals(seed: int, n: int) -> np.ndarray:
    """`n` random deals, an (n, 52) uint8 array of seats, the same for the same seed."""
    rng = np.random.default_rng(seed)
    return rng.permuted(np.broadcast_to(SORTED_DEAL, (n, 52)), axis=1).astype(np.uint8)


def random_deal_set(n: int, seed: int, first_board: int = 1, event: str = "Test pairs") -> DealSet:
    """`n` random deals on consecutive boards from `first_board`, dealer and vulnerability by Law 2."""
    return DealSet.from_deals(random_deals(seed, n), range(first_board, first_board + n), event=event)


deal_strategy = st.permutations(list(SORTED_DEAL)).map(lambda p: np.array(p, dtype=np.uint8))
"""Any one deal (52 seats)."""


def hands_of(seats: Sequence[int] | np.ndarray) -> list[list[int]]:
    """The cards of each seat N E S W, in card order, from a deal's 52 seats."""
    return [[c for c in range(52) if seats[c] == s] for s in range(4)]


def pbn_deals(path: Path) -> dict[int, str]:
    """Board number -> its [Deal] as four hands from North: 'N:<N> <E> <S> <W>' (read as plain text)."""
    deals: dict[int, str] = {}
    board = None
    for tag, value in re.findall(r'\[(Board|Deal)\s+"([^"]*)"\]', path.read_text(encoding="latin-1")):
        if tag == "Board":
            board = int(value)
        elif board is not None:
            first, hands = value.split(":")
            k = "NESW".index(first.upper())
            four = hands.split()
            deals[board] = "N:" + " ".join(four[-k:] + four[:-k] if k else four)
    return deals
