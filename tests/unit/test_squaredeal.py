"""SquareDeal files and session regeneration against the WBG 2024 event published by SquareDeal."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import numpy as np
import pytest

from dealer import squaredeal as sq
from dealer.core.cards import from_pbn
from dealer.core.dealset import DealSet
from dealer.core.errors import FormatError, UsageError, VerificationError
from dealer.engines import ripemd160

WBG = Path(__file__).resolve().parent.parent / "data" / "squaredeal" / "WBG2024"
PBN_FILES = sorted(p.stem for p in WBG.glob("*.pbn"))


@pytest.fixture(scope="module")
def event() -> sq.SquareDealEvent:
    return sq.parse_sqd((WBG / "WBG2024.sqd").read_text())


@pytest.fixture(scope="module")
def keys(event: sq.SquareDealEvent) -> dict[str, str]:
    return sq.check_keys(event, (WBG / "WBG2024.sqk").read_bytes())


def pbn_boards_and_deals(path: Path) -> tuple[list[int], np.ndarray]:
    text = path.read_text()
    boards = [int(b) for b in re.findall(r'\[Board "(\d+)"\]', text)]
    deals = np.array([from_pbn(d) for d in re.findall(r'\[Deal "([^"]+)"\]', text)])
    return boards, deals


def test_the_published_description_reads(event: sq.SquareDealEvent) -> None:
    assert event.name == "World Bridge Games 2024"
    assert (event.delayed_info, event.delayed_value) == ("DJI1910", "43275.91")
    assert [p.prefix for p in event.phases] == ["OPRR##", "WSRR##", "MXRR##", "R16#", "QF#", "SF#", "FIN#"]
    assert event.phases[2] == sq.Phase(29, "1-10,11-20,21-30", "MXRR##", "Mixed Teams Round Robin #/29")
    assert event.published and event.key_hash is not None and event.key_hash.startswith("bd4a46be")
    assert len(event.key_idents()) == 17 + 23 + 29 + 3 + 6 + 6 + 6


def test_key_hash_is_taken_with_crlf_line_ends(event: sq.SquareDealEvent) -> None:
    data = (WBG / "WBG2024.sqk").read_bytes()
    assert b"\r\n" in data
    assert hashlib.sha256(data).hexdigest() == event.key_hash
    assert sq.key_file_hash(data.replace(b"\r\n", b"\n")) == event.key_hash
    assert sq.check_keys(event, data.replace(b"\r\n", b"\n"))["1,1"].startswith("hrzkVbQb9F0Q")


def test_a_key_file_with_one_key_changed_fails_the_key_hash(event: sq.SquareDealEvent) -> None:
    data = bytearray((WBG / "WBG2024.sqk").read_bytes())
    at = data.index(b"7,3:") + 10
    data[at] = ord("A") if data[at] != ord("A") else ord("B")
    with pytest.raises(VerificationError, match="does not match the key hash"):
        sq.check_keys(event, bytes(data))


@pytest.mark.parametrize("name", PBN_FILES)
def test_every_published_file_regenerates(event: sq.SquareDealEvent, keys: dict[str, str], name: str) -> None:
    ref = sq.resolve_session(event, name)
    deals = sq.session_deals(event, keys, ref)
    boards, expected = pbn_boards_and_deals(WBG / f"{name}.pbn")
    assert [int(b) for b in deals.boards] == boards
    assert np.array_equal(deals.deals, expected)
    assert sq.first_difference(deals, DealSet.from_deals(expected, boards)) is None
    assert sq.file_name(event, ref) == name


def test_session_seed_is_squaredeals_call_of_bigdealx(keys: dict[str, str]) -> None:
    key = keys["7,1"]
    seed, owner = sq.session_seed(key, "43275.91")
    assert owner == key[:30]
    assert seed == ripemd160.ripemd160((key[30:] + "NDMyNzUuOTE=" + "original").encode())
    odd_seed, odd_owner = sq.session_seed("abcde", "x", reserve=True, open_session=4)
    assert odd_owner == "ab"
    assert odd_seed == ripemd160.ripemd160(("cde" + base64.b64encode(b"x").decode() + "reserveses4").encode())


def test_reserve_sets_differ_from_the_originals(event: sq.SquareDealEvent, keys: dict[str, str]) -> None:
    original = sq.session_deals(event, keys, sq.resolve_session(event, "FIN1"))
    reserve = sq.session_deals(event, keys, sq.resolve_session(event, "FIN1reserve"))
    assert sq.resolve_session(event, "FIN1reserve").reserve
    assert list(reserve.boards) == list(original.boards)
    assert not (reserve.deals == original.deals).all(axis=1).any()


@pytest.mark.parametrize(("name", "expected"), [
    ("OPRR05", (1, 5, 5)), ("OPRR17", (1, 17, 17)), ("R161", (4, 1, 1)), ("FIN1-2", (7, 1, 2)),
    ("MXRR01-03", (3, 1, 3)), ("QF6", (5, 6, 6)), ("MXRR03-04", (3, 3, 4)),
])
def test_session_names_resolve(event: sq.SquareDealEvent, name: str, expected: tuple[int, int, int]) -> None:
    ref = sq.resolve_session(event, name)
    assert (ref.phase, ref.first, ref.last) == expected
    assert sq.file_name(event, ref) == name


@pytest.mark.parametrize("name", [
    "OPRR5", "OPRR18", "OPRR00", "FIN7", "XYZ1", "FIN2-1", "R161-2", "MXRR01-04",
])
def test_names_that_are_no_session_are_refused(event: sq.SquareDealEvent, name: str) -> None:
    with pytest.raises(UsageError):
        sq.resolve_session(event, name)


@pytest.mark.parametrize(("name", "sessions", "boards"), [
    ("R161-2", "1 and 2", "boards 1-20"), ("MXRR01-04", "1 and 4", "boards 1-10"),
    ("FIN1-3", "1 and 3", "boards 1-16"),
])
def test_a_join_that_repeats_board_numbers_is_refused_naming_the_sessions(
        event: sq.SquareDealEvent, name: str, sessions: str, boards: str) -> None:
    with pytest.raises(UsageError, match=f"sessions {sessions} both hold {boards};"):
        sq.resolve_session(event, name)


def test_the_same_rule_joins_sessions_of_a_phase_whose_boards_come_at_generation() -> None:
    """A phase of '?' boards: the join is checked once the boards are given, by the same rule."""
    event = sq.SquareDealEvent("E", "DJI", "1", (sq.Phase(2, "?", "QQ#"), sq.Phase(3, "?", "OP#")), "0" * 64)
    keys = {"1,1": "a" * 60, "1,2": "b" * 60, "2,1": "c" * 60, "2,2": "d" * 60, "2,3": "e" * 60}
    joined = sq.resolve_session(event, "QQ1-2")  # the boards are not known yet: nothing to refuse
    with pytest.raises(UsageError, match="'QQ1-2': sessions 1 and 2 both hold boards 1-12;"):
        sq.session_deals(event, keys, joined, "12")
    deals = sq.session_deals(event, keys, joined, "1-12,13-24")
    assert deals.boards.tolist() == list(range(1, 25))
    with pytest.raises(UsageError, match="sessions 1 and 3 both hold boards 1-8;"):
        sq.session_deals(event, keys, sq.resolve_session(event, "OP1-3"), "1-8,9-16")


def test_board_lists() -> None:
    phase = sq.Phase(6, "1-16,17-32", "FIN#")
    assert phase.session_boards(2) == list(range(17, 33))
    assert phase.session_boards(3) == list(range(1, 17))
    assert sq.Phase(3, "20", "R16#").session_boards(2) == list(range(1, 21))
    assert sq.translate_boards("3x7") == "1-7,8-14,15-21"
    assert sq.sharp_fill("OPRR##", 1) == "OPRR01" and sq.sharp_fill("FIN#", 1, 2) == "FIN1-2"
    assert sq.sharp_fill("FINAL", 1) == "FINAL"
    with pytest.raises(UsageError, match="--boards"):
        sq.Phase(2, "?", "X#").session_boards(1)
    assert sq.Phase(2, "?", "X#").session_boards(2, "1-5,6-10") == list(range(6, 11))
    with pytest.raises(UsageError):
        sq.check_boards("10-5")


def test_description_round_trips(event: sq.SquareDealEvent) -> None:
    text = sq.format_sqd(event)
    assert sq.parse_sqd(text) == event
    assert "SquareDeal 2.6" in text.splitlines()[0]


@pytest.mark.parametrize(("text", "reason"), [
    ("TN x\nXX what\n", "line 2"),
    ("TN x\nSN 3:16:A#\nSN a:16:B#:d\n", "line 3"),
    ("TN a\nTN b\n", "second TN"),
    ("SN 2:0-5:A#:d\n", "line 1"),
    ("KH 1234\n", "64"),
])
def test_malformed_descriptions_are_refused(text: str, reason: str) -> None:
    with pytest.raises(FormatError, match=reason):
        sq.parse_sqd(text, "x.sqd")


def test_malformed_key_files_are_refused() -> None:
    with pytest.raises(FormatError, match="line 2"):
        sq.parse_sqk(b"1,1:abc\r\nnonsense\r\n", "x.sqk")
    with pytest.raises(FormatError, match="second key"):
        sq.parse_sqk(b"1,1:abc\r\n1,1:def\r\n", "x.sqk")


def test_preparation_follows_squaredeal() -> None:
    event = sq.new_event("Club Pairs", "  DJI   close  of 3 June ")
    assert event.delayed_info == "DJI close of 3 June"
    event = sq.add_phase(event, 12, "3x7", "RR", "Round robin")
    assert event.phases[0] == sq.Phase(12, "1-7,8-14,15-21", "RR##", "Round robin #/12")
    event = sq.add_phase(event, 1, "24", "FINAL", "Final: day 2")
    assert event.phases[1] == sq.Phase(1, "24", "FINAL", "Final day 2")
    event = sq.add_phase(event, 0, "1-12,13-24", "PAIRS#", "Pairs")
    assert event.phases[2].open_ended and event.key_idents()[-1] == "3,0"
    for bad in [(2, "16", "1abc"), (2, "16", "A#B#"), (2, "16", "RR##"), (-1, "16", "Z"), (2, "8-3", "Q")]:
        with pytest.raises(UsageError):
            sq.add_phase(event, *bad)


def test_publishing_draws_keys_and_fixes_the_key_hash() -> None:
    event = sq.add_phase(sq.new_event("E", "DI"), 3, "16", "S#")
    published, data = sq.publish(event)
    keys = sq.parse_sqk(data)
    assert list(keys) == ["1,1", "1,2", "1,3"]
    assert all(len(k) == 60 and set(k) <= set(sq.KEY_ALPHABET) for k in keys.values())
    assert len(set(keys.values())) == 3
    assert data.count(b"\r\n") == 3 and published.key_hash == hashlib.sha256(data).hexdigest()
    with pytest.raises(UsageError, match="published"):
        sq.add_phase(published, 1, "16", "T")
    with pytest.raises(UsageError, match="already published"):
        sq.publish(published)
    for unready in (sq.new_event(None, "DI"), sq.new_event("E", None), sq.new_event("E", "DI")):
        with pytest.raises(UsageError):
            sq.publish(unready)


def test_delayed_value_is_recorded_in_canonical_form() -> None:
    event = sq.add_phase(sq.new_event("E", "DI"), 2, "16", "S#")
    with pytest.raises(UsageError, match="publish"):
        sq.set_delayed_value(event, "1")
    published, _ = sq.publish(event)
    assert sq.set_delayed_value(published, "  43,275.91 ").delayed_value == "4327591"
    assert sq.set_delayed_value(published, "Ajax  3 - 1\tPSV").delayed_value == "Ajax 3 - 1 PSV"
    with pytest.raises(UsageError, match="empty"):
        sq.set_delayed_value(published, "   ")


def test_open_ended_phase_sessions_share_one_key() -> None:
    event = sq.add_phase(sq.new_event("E", "DI"), 0, "1-8,9-16", "P#")
    published, data = sq.publish(event)
    event = sq.set_delayed_value(published, "7")
    keys = sq.check_keys(event, data)
    first = sq.session_deals(event, keys, sq.resolve_session(event, "P1"))
    again = sq.session_deals(event, keys, sq.resolve_session(event, "P1"))
    later = sq.session_deals(event, keys, sq.resolve_session(event, "P250"))
    assert list(first.boards) == list(range(1, 9)) and list(later.boards) == list(range(9, 17))
    assert np.array_equal(first.deals, again.deals)
    assert not np.array_equal(first.deals, later.deals)


def test_first_difference_names_the_board(event: sq.SquareDealEvent, keys: dict[str, str]) -> None:
    expected = sq.session_deals(event, keys, sq.resolve_session(event, "FIN2"))
    moved = expected.deals.copy()
    seat_of_ace = moved[4, 0]
    other = int(np.flatnonzero(moved[4] != seat_of_ace)[0])
    moved[4, 0], moved[4, other] = moved[4, other], seat_of_ace
    assert sq.first_difference(expected, DealSet.from_deals(moved, expected.boards)) == (
        "board 21: the deal differs")
    short = expected.select([int(b) for b in expected.boards[:10]])
    assert "holds 10 boards; the session has 16 (17-32)" in str(sq.first_difference(expected, short))
    renumbered = expected.renumbered(range(1, 17))
    assert sq.first_difference(expected, renumbered) == (
        "board 17: the board number differs (the file has board 1 in its place)")
