"""Law 2 dealer and vulnerability, board ranges, board-label payloads."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dealer.core import boards
from dealer.core.boards import Vulnerability
from dealer.core.errors import UsageError
from firmware_protocol.labels import BoardLabel

# Law 2, written out from the Law's own lists (not from the formula under test)
LAW2_DEALER = {1: "N", 5: "N", 9: "N", 13: "N", 2: "E", 6: "E", 10: "E", 14: "E",
               3: "S", 7: "S", 11: "S", 15: "S", 4: "W", 8: "W", 12: "W", 16: "W"}
LAW2_VUL = {1: "None", 8: "None", 11: "None", 14: "None", 2: "NS", 5: "NS", 12: "NS", 15: "NS",
            3: "EW", 6: "EW", 9: "EW", 16: "EW", 4: "All", 7: "All", 10: "All", 13: "All"}


@pytest.mark.parametrize("board", range(1, 49))
def test_boards_1_to_48_follow_the_law_2_table(board: int) -> None:
    base = (board - 1) % 16 + 1
    assert "NESW"[boards.dealer_of(board)] == LAW2_DEALER[base]
    assert boards.vulnerability_of(board).pbn == LAW2_VUL[base]


def test_vectorised_law_2_matches_the_scalar_one() -> None:
    nums = np.arange(1, 1000)
    assert boards.dealers_of(nums).tolist() == [boards.dealer_of(int(b)) for b in nums]
    assert boards.vulnerabilities_of(nums).tolist() == [int(boards.vulnerability_of(int(b))) for b in nums]


@pytest.mark.parametrize("bad", [0, -3])
def test_board_numbers_start_at_one(bad: int) -> None:
    with pytest.raises(ValueError, match=f"board numbers start at 1; got {bad}"):
        boards.dealer_of(bad)


@pytest.mark.parametrize("text, names", [
    ("None", Vulnerability.NONE), ("Love", Vulnerability.NONE), ("-", Vulnerability.NONE),
    ("NS", Vulnerability.NS), ("ew", Vulnerability.EW), ("All", Vulnerability.BOTH),
    ("Both", Vulnerability.BOTH),
])
def test_vulnerability_names(text: str, names: Vulnerability) -> None:
    assert Vulnerability.from_text(text) is names


@pytest.mark.parametrize("text, expected", [
    ("1-32", list(range(1, 33))), ("5-20", list(range(5, 21))), ("7", [7]),
    ("1-3, 9", [1, 2, 3, 9]), (" 2 - 4 ", [2, 3, 4]),
])
def test_board_ranges(text: str, expected: list[int]) -> None:
    assert boards.parse_board_range(text) == expected


@pytest.mark.parametrize("text", ["0-5", "9-3", "", "a-b", "1-", "1-4,3", "-2"])
def test_bad_board_ranges_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError):
        boards.parse_board_range(text)


def test_format_board_range() -> None:
    assert boards.format_board_range([1, 2, 3, 7, 9, 10]) == "1-3,7,9-10"


def test_label_payload_round_trips_and_conforms() -> None:
    label = BoardLabel.for_board("RED", 17)
    payload = label.payload()
    assert payload.startswith("RED:17:N0:")
    assert BoardLabel.parse(payload) == label
    assert label.conforms


def test_label_marked_against_law_2_is_read_but_does_not_conform() -> None:
    wrong = BoardLabel("RED", 2, 0, Vulnerability.NONE)  # board 2 is E / NS under Law 2
    parsed = BoardLabel.parse(wrong.payload())
    assert not parsed.conforms


@given(st.from_regex(r"[A-Z0-9]{1,12}", fullmatch=True), st.integers(1, 9999),
       st.integers(0, 20), st.sampled_from("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ:"))
def test_any_single_character_error_is_caught(set_name: str, board: int, pos: int, ch: str) -> None:
    payload = BoardLabel.for_board(set_name, board).payload()
    pos %= len(payload)
    damaged = payload[:pos] + ch + payload[pos + 1:]
    if damaged != payload:
        with pytest.raises(ValueError):
            BoardLabel.parse(damaged)


@given(st.from_regex(r"[A-Z0-9]{1,12}", fullmatch=True), st.integers(1, 9999), st.integers(0, 20))
def test_any_swap_of_neighbours_is_caught(set_name: str, board: int, pos: int) -> None:
    payload = BoardLabel.for_board(set_name, board).payload()
    pos %= len(payload) - 1
    swapped = payload[:pos] + payload[pos + 1] + payload[pos] + payload[pos + 2:]
    if swapped != payload:
        with pytest.raises(ValueError):
            BoardLabel.parse(swapped)


def _labels(name: str, board: int) -> bool:
    """Whether the label grammar itself makes a label of set `name` that reads back (the independent judge)."""
    try:
        payload = BoardLabel.for_board(name, board).payload()
    except ValueError:
        return False
    return BoardLabel.parse(payload).set_name == name


SET_TEXT = st.text(st.sampled_from("AZaz09 -!:É"), min_size=0, max_size=14)


@given(SET_TEXT)
def test_a_set_name_is_refused_exactly_when_no_label_can_carry_it(name: str) -> None:
    assert (boards.set_name_problem(name) is None) == _labels(name.strip().upper(), 1)


@given(SET_TEXT, st.integers(1, 4), st.booleans())
def test_the_sets_of_every_copy_are_labelled_or_the_name_is_refused(name: str, copies: int, numbered: bool) -> None:
    try:
        sets = boards.copy_set_names(name, copies, numbered=numbered)
    except UsageError as exc:
        base = name.strip().upper()
        made = [base] if copies == 1 and not numbered else [f"{base}{c}" for c in range(1, copies + 1)]
        assert not (_labels(base, 1) and all(_labels(s, 9999) for s in made))  # the name itself counts too
        assert ("no room for the copy number" in str(exc)) == _labels(base, 1)
    else:
        assert len(sets) == copies and len(set(sets)) == copies
        assert all(_labels(s, 9999) for s in sets)


def test_copies_below_one_are_refused() -> None:
    with pytest.raises(UsageError, match="--copies must be at least 1; got 0"):
        boards.copy_set_names("A", 0)


def test_copies_past_the_bound_are_named_in_one_short_line() -> None:
    """A client's `"copies": 1e308` is a 309-digit number: the line names it by its first digits and length."""
    from dealer.core.boards import MAX_COPIES, copy_set_names
    from dealer.core.errors import UsageError

    with pytest.raises(UsageError) as refused:
        copy_set_names("A", int(1e308))
    assert str(refused.value) == f"100000... (309 digits) copies of each board: a run deals at most {MAX_COPIES} copies"
