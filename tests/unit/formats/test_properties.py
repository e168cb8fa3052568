"""Properties of every format of ours: any deal set it can hold survives a round trip, and any bytes
given to a reader yield deal sets or `FormatError`, never another exception, never a hang."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealer.dealset import DealSet
from dealer.errors import FormatError
from tests.unit.formats.support import (
    OURS,
    deal_sets,
    expected_after,
    random_deals,
    read_bytes,
    same,
    write_bytes,
)

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("fmt", OURS)
def test_round_trip_keeps_what_the_format_holds(fmt: str) -> None:
    @settings(max_examples=60, deadline=None)
    @given(deal_sets(fmt))
    def check(deals: DealSet) -> None:
        back = read_bytes(fmt, write_bytes(fmt, deals))
        assert same(back, expected_after(fmt, deals))

    check()


def read_or_format_error(fmt: str, data: bytes) -> None:
    try:
        result = read_bytes(fmt, data)
    except FormatError as exc:
        assert exc.path == "mem"
        assert str(exc).startswith("mem")
        return
    assert isinstance(result, DealSet)


@pytest.mark.parametrize("fmt", OURS)
def test_any_bytes_give_deals_or_format_error(fmt: str) -> None:
    @FUZZ
    @given(st.binary(max_size=700))
    def check(data: bytes) -> None:
        read_or_format_error(fmt, data)

    check()


def valid_file(fmt: str) -> bytes:
    return write_bytes(fmt, DealSet.from_deals(random_deals(7, 3)))


@pytest.mark.parametrize("fmt", OURS)
def test_damaged_valid_files_give_deals_or_format_error(fmt: str) -> None:
    """Bytes changed, cut out or added at random places of a good file: far more likely than random
    bytes to get past the first checks and reach the deep ones."""
    base = valid_file(fmt)

    @FUZZ
    @given(st.lists(st.tuples(st.integers(0, len(base)), st.integers(0, 3), st.binary(max_size=4)),
                    min_size=1, max_size=4))
    def check(edits: list[tuple[int, int, bytes]]) -> None:
        data = bytearray(base)
        for at, cut, insert in edits:
            at = min(at, len(data))
            data[at:at + cut] = insert
        read_or_format_error(fmt, bytes(data))

    check()
