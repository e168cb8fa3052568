"""Properties of every format of ours: any deal set it can hold survives a round trip, and any bytes
given to a reader yield deal sets or `FormatError`, never another exception, never a hang."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealer.core.dealset import DealSet
from dealer.core.errors import FormatError
from dealer.formats.reading import ReadOptions
from tests.support.deals import random_deals
from tests.support.format_round_trips import OURS, deal_sets, expected_after, read_bytes, same, write_bytes

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("fmt", OURS)
def test_round_trip_keeps_what_the_format_holds(fmt: str) -> None:
    @settings(max_examples=60, deadline=None)
    @given(deal_sets(fmt))
    def check(deals: DealSet) -> None:
        first = int(deals.boards[0]) if len(deals) else 1
        back = read_bytes(fmt, write_bytes(fmt, deals), options=ReadOptions(first_board=first))
        assert same(back, expected_after(fmt, deals, first))

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


GOOD_DEAL = "N:AJ9.K9542.Q.AK93 K.QJ76.K98763.75 QT6543.AT.JT.T62 872.83.A542.QJ84"
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6)


def either(*special: object) -> st.SearchStrategy[object]:
    return st.sampled_from(special) | json_values


@settings(max_examples=200, deadline=None)
@given(st.fixed_dictionaries(
    {"board": either(1, 2**70, 0, -1, True, 99.0), "deal": either(GOOD_DEAL)},
    optional={"dealer": either("N", "n", None), "vulnerable": either("All", "Both"), "x": json_values}),
    st.dictionaries(st.sampled_from(["format", "version", "event", "metadata"]), json_values, max_size=4))
def test_json_with_any_values_gives_deals_or_format_error(board: dict[str, object],
                                                          header: dict[str, object]) -> None:
    doc = {"format": "dealer-deals", "version": 1, **header, "boards": [board]}
    read_or_format_error("json", json.dumps(doc).encode())
