"""Helpers of the format tests: what each format keeps, deal-set strategies, in-memory round trips."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
from hypothesis import strategies as st

from dealer.core.boards import dealers_of, vulnerabilities_of
from dealer.core.dealset import DealSet
from dealer.formats import get_format
from dealer.formats.reading import DEFAULT_OPTIONS, ReadOptions, ReadReport
from tests.support.deals import random_deals

OURS = ("dup", "dlm", "bri", "dge", "csv", "ber", "bhg", "lin", "rzd", "cds", "goe", "json")
RUN_ONLY = {"dup", "dlm"}  # hold one run of consecutive boards 1-99, Law 2
KEEP_EVERYTHING = {"csv", "lin", "json", "pbn"}  # board numbers, dealer and vulnerability as given
KEEP_NUMBERS = {"dlm", "cds"}  # board numbers (CDS: 1-255 here), Law 2 dealer and vulnerability
# the others (dup, bri, dge, ber, bhg, rzd, goe) keep only the deals: boards read back are 1..n with Law 2


@st.composite
def deal_sets(draw: st.DrawFn, fmt: str) -> DealSet:
    """A deal set the format can hold (any one for formats that renumber)."""
    n = draw(st.integers(1 if fmt in RUN_ONLY else 0, 12))
    deals = random_deals(draw(st.integers(0, 2**32)), n)
    if fmt in RUN_ONLY:
        low = draw(st.integers(1, 100 - n))
        return DealSet.from_deals(deals, np.arange(low, low + n))
    if fmt == "bhg":  # a line's hands are turned by its board number: only a run reads back
        low = draw(st.integers(1, 10**6))
        return DealSet.from_deals(deals, np.arange(low, low + n))
    top = 255 if fmt == "cds" else 10**6
    boards = np.array(draw(st.lists(st.integers(1, top), min_size=n, max_size=n)), dtype=np.int64)
    if fmt in KEEP_EVERYTHING and draw(st.booleans()):
        dealers = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=np.uint8)
        vuls = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=np.uint8)
        return DealSet(boards, deals, dealers, vuls)
    return DealSet.from_deals(deals, boards)


def expected_after(fmt: str, deals: DealSet, first_board: int = 1) -> DealSet:
    """What reading back a file of `deals` written in `fmt` must give (read from `first_board` if the
    format holds no board numbers)."""
    if fmt in KEEP_EVERYTHING or fmt in KEEP_NUMBERS:
        return deals
    return DealSet.from_deals(deals.deals, np.arange(first_board, first_board + len(deals)))


def write_bytes(fmt: str, deals: DealSet, **options: Any) -> bytes:
    out = io.BytesIO()
    get_format(fmt).write(out, deals, **options)
    return out.getvalue()


def read_bytes(fmt: str, data: bytes, path: str = "mem", options: ReadOptions = DEFAULT_OPTIONS,
               report: ReadReport | None = None) -> DealSet:
    parts = list(get_format(fmt).read(io.BytesIO(data), path, options, report))
    return DealSet.concat(parts)


def same(a: DealSet, b: DealSet) -> bool:
    """Same boards, dealers, vulnerabilities and deals (an empty set equals any empty set)."""
    if len(a) == 0 and len(b) == 0:
        return True
    return a.same_deals(b)


def law2(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return dealers_of(boards), vulnerabilities_of(boards)
