"""CSV, Borel, LIN and JSON: what other programs write reads, faults name line and board, streams."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer.core.cards import from_pbn
from dealer.core.dealset import DealSet
from dealer.core.errors import FormatError, InvalidDealError
from dealer.formats import get_format, lin
from tests.support.deals import random_deals
from tests.support.format_round_trips import read_bytes, write_bytes

# board 1 of Big Deal's sample: N AJ9.K9542.Q.AK93  E K.QJ76.K98763.75  S QT6543.AT.JT.T62  W 872.83.A542.QJ84
SAMPLE = DealSet.concat(get_format("bhg").read(io.BytesIO(
    b"\nADFOSWXZcnosyBPQUVbfghiluwCEIJKLNRdervzGHMTYajkmpqtx\n"), "x"))
DEAL = SAMPLE.deals[0]


def fault(fmt: str, data: bytes) -> FormatError:
    with pytest.raises(FormatError) as info:
        read_bytes(fmt, data, "f.txt")
    assert info.value.path == "f.txt"
    return info.value


def cards_of(hand: str) -> list[int]:
    """Card indices of a hand 'S.H.D.C', by plain loops."""
    return sorted(suit * 13 + "AKQJT98765432".index(r) for suit, ranks in enumerate(hand.split("."))
                  for r in ranks)


def test_the_sample_deal_is_as_commented() -> None:
    for seat, hand in enumerate(("AJ9.K9542.Q.AK93", "K.QJ76.K98763.75", "QT6543.AT.JT.T62")):
        assert [c for c in range(52) if DEAL[c] == seat] == cards_of(hand)


# --- CSV -------------------------------------------------------------------------------------

def test_csv_takes_bare_fields_crlf_and_the_files_dealer_and_vulnerability() -> None:
    line = b"AJ9,K9542,Q,AK93,K,QJ76,K98763,75,QT6543,AT,JT,T62,872,83,A542,QJ84,17,W/All\r\n"
    deals = read_bytes("csv", b"\r\n" + line)
    assert deals.boards.tolist() == [17] and deals.dealers.tolist() == [3]
    assert deals.vulnerabilities.tolist() == [3]  # Law 2 would give N, None for board 17
    assert np.array_equal(deals.deals[0], DEAL)


CSV_SAMPLE = (b'"AJ9","K9542","Q","AK93","K","QJ76","K98763","75","QT6543","AT","JT","T62","872","83",'
              b'"A542","QJ84","1","N/-"\n"AKQ984","KQT7","","Q83","7","J63","AJT82","A754","532","854",'
              b'"Q43","KT62","JT6","A92","K9765","J9","2","E/NS"\n')


@pytest.mark.parametrize("old, new, reason", [
    (b'"AKQ984"', b'"AKQ984X"', "'X' is not a rank"),
    (b'"E/NS"', b'"EN"', "dealer/vulnerability"),
    (b'"2",', b"", "18 fields"),
    (b'"2"', b'"0"', "board number"),
    (b'"JT6"', b'"JT"', "no hand holds S6"),
    (b'"JT6"', b'"JT6K"', "SK is given twice"),
])
def test_csv_faults_name_the_line(old: bytes, new: bytes, reason: str) -> None:
    assert CSV_SAMPLE.count(old) == 1 and CSV_SAMPLE.index(old) > CSV_SAMPLE.index(b"\n")
    err = fault("csv", CSV_SAMPLE.replace(old, new))
    assert err.line == 2 and reason in err.reason


# --- Borel -----------------------------------------------------------------------------------

def test_borel_lines_start_with_the_dealers_hand() -> None:
    deals = DealSet.from_deals(np.stack([DEAL] * 4))
    lines = write_bytes("bhg", deals).split(b"\n")
    assert lines[0] == b""
    assert lines[1][:13] == b"ADFOSWXZcnosy"  # board 1: North deals
    assert lines[2][:13] == b"BPQUVbfghiluw"  # board 2: East deals, East's hand first
    assert lines[4][:13] == b"GHMTYajkmpqtx"  # board 4: West
    err = fault("bhg", b"\n" + lines[1] + b"\n" + lines[2][:51] + b"\n")
    assert (err.line, err.board) == (3, 2)
    err = fault("bhg", b"\n" + lines[1].replace(b"A", b"D") + b"\n")
    assert err.board == 1 and "SJ is given twice" in err.reason


# --- LIN -------------------------------------------------------------------------------------

BBO_FILE = (
    b"vg|Club final,Final,I,1,2,A,B|rs|,|pn|Ann,Bob,Cid,Dan|pg||\n"
    b"qx|o1|st||md|3SQT6543HATDJTCT62,S872H83DA542CQJ84,SAJ9HK9542DQCAK93,SKHQJ76DK98763C75|sv|0|\n"
    b"mb|1S|mb|p|mb|p|mb|p|pg||\npc|HA|pc|H2|pg||\n"
    b"qx|c1|md|3SQT6543HATDJTCT62,S872H83DA542CQJ84,SAJ9HK9542DQCAK93,|sv|-|pg||\n"
    b"qx|o2|md|4S532H854DQ43CKT62,,SAKQ984HKQT7DCQ83,S7HJ63DAJT82CA754|sv|n|\nah|Board 2|pg||\n"
)


def test_lin_reads_a_bbo_file_with_names_bidding_and_play() -> None:
    deals = read_bytes("lin", BBO_FILE)
    assert deals.boards.tolist() == [1, 1, 2]
    assert deals.dealers.tolist() == [0, 0, 1]
    assert deals.vulnerabilities.tolist() == [0, 0, 1]
    assert np.array_equal(deals.deals[0], DEAL) and np.array_equal(deals.deals[1], DEAL)
    west = [c for c in range(52) if deals.deals[2, c] == 3]  # the empty hand holds the rest
    assert west == cards_of("JT6.A92.K9765.J9")


def test_lin_writes_big_deals_line() -> None:
    line = write_bytes("lin", SAMPLE)
    assert line == (b"qx|o1|md|3SQT6543HATDJTCT62,S872H83DA542CQJ84,SAJ9HK9542DQCAK93|rh||ah|Board 1"
                    b"|sv|o|pg||\n")


@pytest.mark.parametrize("text, reason", [
    (b"qx|o3|md|3SAKQ|ah|Board 3|pg||\n", "three hands"),
    (b"qx|o3|md|3SQT6543HATDJTCT62,S872H83DA542CQJ84,SAJ9HK9542DQCAK93|ah|Board 4|", "different board"),
    (b"qx|o3|md|7SQT6543HATDJTCT62,S872H83DA542CQJ84,SAJ9HK9542DQCAK93|", "dealer digit"),
    (b"qx|o3|md|3SQT6543HATDJTCT62,S872H83DA542CQJ84,SAJ9HK9542DQCAK93|sv|x|", "vulnerability"),
    (b"qx|o3|md|3SQT6543HATDJTCT62,S872H83DA542CQJ84,SAJ9HK9542DQCAK9|", "N 12, E 14"),
    (b"qx|o3|md|3SQT6543HATDJTCT62,S872H83DA542CQJ84,SAJ9HK9542DQCAK93,SQ|", "SQ is given twice"),
    (b"qx|o3|sv|b|qx|o4|md|3|", "without md"),
])
def test_lin_faults_name_line_and_board(text: bytes, reason: str) -> None:
    err = fault("lin", b"pn|a,b,c,d|pg||\n" + text)
    assert err.line == 2 and reason in err.reason


def lin_hand(deal: np.ndarray, seat: int) -> str:
    """A hand in LIN's S..H..D..C.. form, by plain loops."""
    return "".join(letter + "".join("AKQJT98765432"[r] for r in range(13) if deal[suit * 13 + r] == seat)
                   for suit, letter in enumerate("SHDC"))


def lin_md_reference(body: str) -> np.ndarray | None:
    """The deal of an md body of three or four hands (S W N E), through the PBN reader of dealer.core.cards:
    each hand 'S..H..D..C..' rewritten as '..'.'..', an empty or absent fourth hand as '-'."""
    hands = body.split(",")
    hands += [""] * (4 - len(hands))
    pbn = [h[1:].replace("H", ".").replace("D", ".").replace("C", ".") if h else "-" for h in hands]
    try:
        return from_pbn("S:" + " ".join(pbn))
    except InvalidDealError:
        return None


@settings(max_examples=500, deadline=None)
@given(st.integers(0, 2**32), st.booleans(), st.booleans(),
       st.lists(st.tuples(st.integers(0, 80), st.sampled_from(list("SHDCAKQJT98765432,")),
                          st.sampled_from(["change", "insert", "delete"])), max_size=3))
def test_lin_batch_decoder_agrees_with_reading_each_hand(seed: int, four: bool, comma: bool,
                                                         edits: list[tuple[int, str, str]]) -> None:
    deal = random_deals(seed, 1)[0]
    text = list(",".join(lin_hand(deal, seat) for seat in ((2, 3, 0, 1) if four else (2, 3, 0))))
    text += [","] if comma and not four else []
    for place, ch, edit in edits:
        if edit == "insert":
            text.insert(place % (len(text) + 1), ch)
        elif edit == "delete":
            del text[place % len(text)]
        else:
            text[place % len(text)] = ch
    body = "".join(text)
    expected = lin_md_reference(body)
    usual = lin.USUAL_MD.fullmatch(body)
    if not (usual and usual.group(1) == body and len(body) in lin.USUAL_LENGTHS):
        assert expected is None or edits  # the deals as written are in the usual layout
        return
    decoded, ok = lin.decode_usual_hands([body])
    if ok[0]:
        assert expected is not None and np.array_equal(decoded[0], expected)
    else:
        assert expected is None


def test_lin_batch_decoding_keeps_the_first_fault_in_file_order() -> None:
    good = b"qx|o1|md|3SQT6543HATDJTCT62,S872H83DA542CQJ84,SAJ9HK9542DQCAK93|sv|o|pg||\n"
    twice = good.replace(b"o1", b"o2").replace(b"SQT6543", b"SAT6543")  # the usual layout, SA twice
    bad_sv = good.replace(b"o1", b"o3").replace(b"sv|o", b"sv|x")
    err = fault("lin", good + twice + bad_sv)
    assert (err.line, err.board) == (2, 2) and "SA is given twice" in err.reason
    short = b"qx|o4|md|4S5HAQJ7DQ53CKQJ64,SKQT864H6DAJT8CT3,S9732HKT2DK64CA7,|pg||\n"  # 53 characters
    err = fault("lin", good + short)  # as long as three whole hands, but North has 12 cards
    assert (err.line, err.board) == (2, 4) and "N 12, E 14" in err.reason
    many = good * 9000  # past one chunk of boards
    assert len(read_bytes("lin", many)) == 9000


# --- JSON ------------------------------------------------------------------------------------

def test_json_reads_any_layout_in_small_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    deals = DealSet(np.array([5, 9, 9]), random_deals(3, 3), np.array([3, 2, 1]), np.array([2, 3, 0]),
                    "Pairs \u00e9t\u00e9", {"site": "Club"})
    data = write_bytes("json", deals)
    assert data.count(b"\n") == 5  # header line, one board a line, closing line
    messy = data.replace(b", ", b" ,\n\t ").replace(b": ", b" :  ")
    monkeypatch.setattr("dealer.formats.json.READ_SIZE", 7)
    for text in (data, messy):
        back = read_bytes("json", text)
        assert back.same_deals(deals) and back.event == deals.event and back.metadata == deals.metadata


def test_json_defaults_to_law_2_and_takes_any_first_seat() -> None:
    text = (b'{"version": 1, "format": "dealer-deals", "boards": [{"board": 2, "deal": '
            b'"S:QT6543.AT.JT.T62 872.83.A542.QJ84 AJ9.K9542.Q.AK93 K.QJ76.K98763.75"}]}')
    deals = read_bytes("json", text)
    assert deals.dealers.tolist() == [1] and deals.vulnerabilities.tolist() == [1]
    assert np.array_equal(deals.deals[0], DEAL)


def json_doc(board: str, head: str = '"format": "dealer-deals", "version": 1') -> bytes:
    return ("{" + head + ', "boards": [\n{"board": 1, "deal": "N:AJ9.K9542.Q.AK93 K.QJ76.K98763.75 '
            'QT6543.AT.JT.T62 872.83.A542.QJ84"},\n' + board + "\n]}").encode()


@pytest.mark.parametrize("board, head, reason", [
    ('{"board": 2, "dealer": "X", "deal": "N:..."}', None, "'dealer'"),
    ('{"board": 2, "vulnerability": "NS", "deal": "N:..."}', None, "unknown key 'vulnerability'"),
    ('{"board": true, "deal": "N:..."}', None, "'board' must be an integer"),
    ('{"board": 2, "deal": "N:AJ9.K9542.Q.AK93 K.QJ76.K98763.75 QT6543.AT.JT.T62"}', None, "4 hands"),
    ('{"board": 2, "deal": "N:AJ9.K9542.Q.AK93 K.QJ76.K98763.75 QT6543.AT.JT.T62 872.83.A542.QJ8"}', None,
     "no hand holds C4"),
    ('{"board": 2, "deal": "N:AJ9.K9542.Q.AK93 K.QJ76.K98763.75 QT6543.AT.JT.T62 872.83.A542.QJ84"}',
     '"format": "dealer-deals", "version": "1"', "'version' must be 1"),
    ('{"board": 2}', '"version": 1, "boards0": 1, "format": "other"', "'format' must be"),
])
def test_json_faults_name_line_and_board(board: str, head: str | None, reason: str) -> None:
    err = fault("json", json_doc(board, head) if head else json_doc(board))
    assert reason in err.reason
    if head is None:
        assert (err.line, err.board) == (3, None if "'board'" in reason else 2)


def test_json_streams_in_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    deals = DealSet.from_deals(random_deals(4, 50))
    data = write_bytes("json", deals)
    monkeypatch.setattr("dealer.formats.json.CHUNK_BOARDS", 10)
    monkeypatch.setattr("dealer.formats.json.READ_SIZE", 64)
    stream = io.BytesIO(data)
    chunks = get_format("json").read(stream, "x")
    first = next(chunks)
    assert len(first) == 10 and stream.tell() < len(data) // 2
    assert DealSet.concat([first, *chunks]).same_deals(deals)
