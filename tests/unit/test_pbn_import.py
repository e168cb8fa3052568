"""The PBN reader on the import format's freedoms, on bad input, and on any bytes at all."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dealer.core.cards import hand_text
from dealer.core.dealset import DealSet
from dealer.core.errors import FormatError
from dealer.formats import pbn
from dealer.formats.pbn_import import BLOCK_SIZE, MAX_PENDING, read_pbn

# the two boards of Big Deal's sample, as their files give them (hands from North)
DEAL_1 = "N:AJ9.K9542.Q.AK93 K.QJ76.K98763.75 QT6543.AT.JT.T62 872.83.A542.QJ84"
DEAL_2 = "N:AKQ984.KQT7..Q83 7.J63.AJT82.A754 532.854.Q43.KT62 JT6.A92.K9765.J9"
NORTH_1 = "AJ9.K9542.Q.AK93"
WEST_1 = "872.83.A542.QJ84"


def read(data: str | bytes, block_size: int = BLOCK_SIZE, max_pending: int = MAX_PENDING) -> DealSet:
    raw = data.encode("latin-1") if isinstance(data, str) else data
    return DealSet.concat(read_pbn(io.BytesIO(raw), "t.pbn", block_size=block_size, max_pending=max_pending))


def summary(ds: DealSet) -> list[tuple[int, int, int]]:
    return list(zip(ds.boards.tolist(), ds.dealers.tolist(), ds.vulnerabilities.tolist(), strict=True))


def error_of(data: str | bytes, **kwargs: int) -> str:
    with pytest.raises(FormatError) as info:
        read(data, **kwargs)
    return str(info.value)


def test_minimal_games_get_law_2_where_tags_are_missing() -> None:
    ds = read(f'[Board "7"][Deal "{DEAL_1}"]\n\n[Deal "{DEAL_2}"]\n')
    assert summary(ds) == [(7, 2, 3), (8, 3, 0)]  # board 8 follows board 7
    assert hand_text(ds.deals[0], 0) == NORTH_1


def test_escapes_comments_sections_and_strings_are_passed_over() -> None:
    text = (
        "% PBN 2.0\n%Creator: somebody [Board \"99\"]\n"
        "; a line comment [Board \"98\"] {\n"
        "{ a comment over lines, with an empty one\n\n and [Board \"97\"] and \"quotes } \n"
        '[Event "Club \\"Spring\\" Pairs \\\\ 1"]  [Site "Here"] ; two tags, one line\n'
        '[Board\n "3"]\n'
        '[Dealer "S"]\n[Vulnerable "EW"]\n'
        f'[Deal "{DEAL_1}"]\n'
        '[Auction "S"]\n1S =1= Pass "[Board \\"96\\"]" 2H\nAP\n[Note "1:five; or more [sic]"]\n'
        '[Play "W"]\nD2 DA - -\n*\n'
        '[OptimumResultTable "Declarer;Denomination\\2R;Result\\2R"]\nN  S  8\nN NT 10\n'
        '[ScoreTable "Names\\20L;Score_NS"]\n"Smith; Jones {x}" "120"\n'
    )
    ds = read(text)
    assert summary(ds) == [(3, 2, 2)]
    assert ds.event == 'Club "Spring" Pairs \\ 1'
    assert ds.metadata == {"site": "Here"}


def test_dealer_and_vulnerability_from_the_file_even_against_law_2() -> None:
    ds = read(f'[Board "1"]\n[Dealer "w"]\n[Vulnerable "Both"]\n[Deal "{DEAL_1}"]\n')
    assert summary(ds) == [(1, 3, 3)]
    assert not ds.conforms_to_law2().any()


@pytest.mark.parametrize(("tag", "code"), [
    ("None", 0), ("Love", 0), ("-", 0), ("NS", 1), ("EW", 2), ("All", 3), ("Both", 3), ("both", 3),
    (" N-S ", 1), ("e-w", 2), ("ALL", 3), ("?", 1), ("", 1)])
def test_vulnerability_names(tag: str, code: int) -> None:
    ds = read(f'[Board "2"]\n[Vulnerable "{tag}"]\n[Deal "{DEAL_1}"]\n')
    assert ds.vulnerabilities.tolist() == [code]


def test_hands_from_any_first_seat_in_any_case() -> None:
    north, east, south, west = DEAL_1[2:].split()
    for first, order in (("e", (east, south, west, north)), ("S", (south, west, north, east)),
                         ("w", (west, north, east, south))):
        ds = read(f'[Board "1"]\n[Deal "{first}:{" ".join(order).lower()}"]\n')
        assert [hand_text(ds.deals[0], s) for s in range(4)] == [north, east, south, west]


def test_ranks_in_any_order_and_spaces_around_the_deal() -> None:
    ds = read(f'[Board "1"]\n[Deal "  N:9JA.2459K.Q.39KA {DEAL_1[19:]}  "]\n')
    assert hand_text(ds.deals[0], 0) == NORTH_1


def test_one_unknown_hand_is_completed() -> None:
    ds = read(f'[Board "1"]\n[Deal "N:{" ".join(DEAL_1[2:].split()[:3])} -"]\n')
    assert hand_text(ds.deals[0], 3) == WEST_1


@pytest.mark.parametrize("line_end", ["\n", "\r\n", "\r"])
def test_line_ends(line_end: str) -> None:
    text = f'[Board "1"]\n[Deal "{DEAL_1}"]\n\n[Board "2"]\n[Deal "{DEAL_2}"]\n'.replace("\n", line_end)
    assert read(text).boards.tolist() == [1, 2]


def test_semi_empty_lines_of_spaces_and_tabs_separate_games() -> None:
    ds = read(f'[Board "1"]\n[Deal "{DEAL_1}"]\n \t \n[Board "2"]\n[Deal "{DEAL_2}"]')
    assert ds.boards.tolist() == [1, 2]


def test_latin_1_and_utf_8_text() -> None:
    assert read(b'[Event "S\xf8gne BK"]\n[Board "1"]\n[Deal "' + DEAL_1.encode() + b'"]').event == "Søgne BK"
    with_bom = b'\xef\xbb\xbf% PBN 2.1\r\n[Event "S\xc3\xb8gne"]\r\n[Board "1"]\r\n[Deal "' + DEAL_1.encode()
    assert read(with_bom + b'"]\r\n').event == "Søgne"


def test_tag_value_inheritance() -> None:
    text = (
        '[Event "##Club"]\n[Date "##2024.01.05"]\n\n'  # a header game: no deal
        f'[Board "1"]\n[Dealer "E"]\n[Deal "{DEAL_1}"]\n\n'
        f'[Board "2"]\n[Dealer "#"]\n[Date "2024.01.06"]\n[Deal "{DEAL_2}"]\n\n'
        f'[Board "3"]\n[Deal "#"]\n'
    )
    ds = read(text)
    assert summary(ds) == [(1, 1, 0), (2, 1, 1), (3, 2, 2)]
    assert np.array_equal(ds.deals[2], ds.deals[1])
    assert ds.event == "Club"
    assert ds.metadata["date"] == "2024.01.05"


def test_header_games_and_empty_deals_are_skipped() -> None:
    text = f'[Event "Pairs"]\n[Deal ""]\n\n\n\n[Board "4"]\n[Deal "{DEAL_1}"]\n\n{{ closing words }}\n'
    ds = read(text)
    assert ds.boards.tolist() == [4] and ds.event == "Pairs"


def test_event_and_metadata_come_from_the_top_of_the_file_only() -> None:
    text = (f'[Board "1"]\n[Deal "{DEAL_1}"]\n\n'
            f'[Event "Later"]\n[Site "Here"]\n[Board "2"]\n[Deal "{DEAL_2}"]\n')
    ds = read(text)
    assert ds.event == "" and ds.metadata == {}  # every chunk of a file says the same, however it falls


def test_a_repeated_tag_with_the_same_value_is_ignored() -> None:
    assert read(f'[Board "1"]\n[Board "1"]\n[Deal "{DEAL_1}"]\n').boards.tolist() == [1]


@pytest.mark.parametrize(("text", "message"), [
    (f'[Board "1"]\n[Deal "{DEAL_1}"]\n[Board "2"]\n[Deal "{DEAL_2}"]\n',
     "t.pbn, line 3: a second Board tag in one game"),
    (f'[Event "e"]\n\n[Board "x2"]\n[Deal "{DEAL_1}"]\n', "t.pbn, line 3: board number 'x2' is not"),
    (f'[Board "0"]\n[Deal "{DEAL_1}"]\n', "t.pbn, line 1: board number '0'"),
    (f'[Board "5"]\n[Dealer "X"]\n[Deal "{DEAL_1}"]\n', "t.pbn, line 2, board 5: dealer 'X'"),
    (f'\n\n[Board "5"]\n[Vulnerable "NE"]\n[Deal "{DEAL_1}"]\n', "t.pbn, line 4, board 5: vulnerability"),
    ('[Board "5"]\n[Deal "?"]\n', "t.pbn, line 2, board 5: a partial deal (the deal is unknown ('?'))"),
    ('[Event "e"]\n\n[Deal "N:- - - -"]\n', "t.pbn, line 3, board 1: a partial deal (N unknown, E unknown"),
    (f'[Board "5"]\n[Deal "{DEAL_1[:-1]}"]\n', "t.pbn, line 2, board 5: a partial deal (W 12 cards)"),
    (f'[Board "5"]\n[Deal "{DEAL_1}"]\n\n[Board "6"]\n', "t.pbn, line 4, board 6: a game with tags but no deal"),
    (f'[Board "5"]\n[Deal "{DEAL_1[:-2]}A4"]\n[Event "x"]\n', "t.pbn, line 2, board 5: not a full deal"),
    (f'[Board "5"]\n[Deal "{DEAL_1[:-2]}A4"]\n', "t.pbn, line 2, board 5: not a full deal: CA appears twice"),
    (f'[Board "5"]\n[Deal "{DEAL_1}"\n', "t.pbn, line 2: malformed tag pair"),
    (f'[Board "5"]\n[Deal "{DEAL_1}\n"]', "t.pbn, line 2: malformed tag pair"),
    (f'[Board "5"]\n[Deal "{DEAL_1}"]\n{{ open\n\n\n', "t.pbn, line 3: comment '{' is never closed"),
    (f'[Board "5"]\n[Deal "{DEAL_1}"]\n}}\n', "t.pbn, line 3: '}' outside a comment"),
    ('\n\n\n"half a string\n', "t.pbn, line 4: string without its closing quote"),
])
def test_errors_name_the_file_line_and_board(text: str, message: str) -> None:
    assert error_of(text).startswith(message)


def test_no_empty_line_for_too_long_is_refused() -> None:
    text = "".join(f'[Note "{i}:x"]\n' for i in range(100))
    assert "no empty line between games in 400 characters" in error_of(text, block_size=64, max_pending=400)
    opened = f'[Board "1"]\n[Deal "{DEAL_1}"]\n\n{{' + "long\n\n" * 100
    assert "not closed within 400 characters" in error_of(opened, block_size=64, max_pending=400)


SAMPLE = (
    "% PBN 2.1\r\n% EXPORT\r\n{ intro\r\n\r\nwith an empty line }\r\n"
    f'[Event "##Night"]\r\n[Board "1"]\r\n[Deal "{DEAL_1}"]\r\n[Play "E"]\r\nS2 - - -\r\n*\r\n\r\n'
    f'[Board "2"]\r\n{{ a note [x] "y" ;\r\n \r\n}}\r\n[Deal "E:{DEAL_2[2:].lower()}"]\r\n \r\n'
    f'[Board "##9"] ; sticky\r\n[Vulnerable "All"]\r\n[Deal "{DEAL_1}"]\r\n\r\n\r\n'
    f'[Dealer "S"]\r\n[Deal "W:- {" ".join(DEAL_2[2:].split()[:3])}"]\r\n'
)


@pytest.mark.parametrize("block_size", [1, 2, 3, 5, 8, 13, 64, 1 << 20])
def test_blocks_of_any_size_read_the_same(block_size: int) -> None:
    ds = read(SAMPLE, block_size=block_size)
    assert summary(ds) == [(1, 0, 0), (2, 1, 1), (9, 0, 3), (9, 2, 2)]
    assert ds.event == "Night"


FRAGMENTS = st.sampled_from([
    '[Board "1"]', '[Board "12"]', '[Board "#"]', '[Board "##4"]', '[Board "?"]', f'[Deal "{DEAL_1}"]',
    f'[Deal "{DEAL_2}"]', '[Deal "N:- - - -"]', '[Deal ""]', '[Deal "#"]', '[Dealer "E"]', '[Dealer "q"]',
    '[Vulnerable "All"]', '[Vulnerable "x"]', '[Event "a;b"]', '[Event "##x"]', "\n", "\n\n", "\r\n",
    " \t\n", "{", "}", "{ c\n\n }", '"', '"s"', "; c", "\n%", "%", "[", "]", "\\", "#", " ", "AKQ",
    '[Auction "N"]\n1S Pass', f'[Deal "W:{DEAL_2[2:]}"]', "[Note", ' "1:x"]', "\x00", "\xff", "\xef\xbb\xbf",
    f'\n\n[Board "3"]\n[Deal "{DEAL_1}"]\n\n', f'\n[Dealer "W"]\n[Deal "{DEAL_2}"]\n\n',
])


@settings(max_examples=300, deadline=None)
@given(st.lists(FRAGMENTS, max_size=30), st.integers(1, 40))
@example(["\xef\xbb\xbf", "%", '[Board "1"]'], 1)  # a byte-order mark split over reads (found by this test)
def test_any_text_reads_the_same_in_any_blocks(parts: list[str], block_size: int) -> None:
    data = "".join(parts).encode("latin-1")
    assert outcome(data, 1 << 20) == outcome(data, block_size)


def outcome(data: bytes, block_size: int) -> object:
    """What reading gives: the boards, dealers, vulnerabilities and deals, or the error message."""
    try:
        ds = read(data, block_size=block_size)
    except FormatError as exc:
        return str(exc)
    return summary(ds), ds.deals.tobytes(), ds.event, ds.metadata


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=3000), st.integers(1, 100))
def test_any_bytes_give_boards_or_a_format_error(data: bytes, block_size: int) -> None:
    try:
        chunks = list(read_pbn(io.BytesIO(data), "t.pbn", block_size=block_size))
    except FormatError as exc:
        assert str(exc).startswith("t.pbn")
        return
    assert all(isinstance(c, DealSet) and len(c) for c in chunks)


def test_read_streams_chunks_in_file_order() -> None:
    games = "\n".join(f'[Board "{b}"]\n[Deal "{DEAL_1 if b % 2 else DEAL_2}"]\n' for b in range(1, 201))
    chunks = list(read_pbn(io.BytesIO(games.encode()), "t.pbn", block_size=512))
    assert len(chunks) > 10
    assert DealSet.concat(chunks).boards.tolist() == list(range(1, 201))
    assert DealSet.concat(pbn.read(io.BytesIO(games.encode()), "t.pbn")).boards[-1] == 200


@pytest.mark.timeout(120)  # a guard against a hang, not a measure of speed
@pytest.mark.parametrize(("data", "message"), [
    (b"{" * (3 << 20), "line 1: comment '{' is never closed"),
    (b"\n[" * (1 << 20), "line 2: malformed tag pair"),
    (b'[Deal "' + b"x" * (3 << 20), "line 1: malformed tag pair"),
    (b'[Board "1"][Deal "N:' + b"A" * (2 << 20) + b'"]', "line 1, board 1: not a full deal"),
    (b'[Board "' + b"9" * (2 << 20) + b'"][Deal "N:- - - -"]', "line 1: board number '999"),
    (b'"' * (2 << 20) + b"}", "'}' outside a comment"),
    (b"\n" * (2 << 20) + b"]", f"line {(2 << 20) + 1}: ']' outside a tag pair"),
])
def test_large_hostile_input_ends_in_one_error(data: bytes, message: str) -> None:
    error = error_of(data)
    assert message in error and len(error) < 300
