"""DUP, BRI, DGE and BER: variants read, and every fault named by file, board and byte offset."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from dealer.core.dealset import DealSet
from dealer.core.errors import FormatError
from dealer.formats import get_format, read_file, write_file
from dealer.formats.reading import ReadOptions
from tests.support.deals import random_deals
from tests.support.format_round_trips import read_bytes, write_bytes

DEALS = DealSet.from_deals(random_deals(11, 4))


def fault(fmt: str, data: bytes) -> FormatError:
    with pytest.raises(FormatError) as info:
        read_bytes(fmt, data, "f.x")
    assert info.value.path == "f.x"
    return info.value


def bri_digits(deal: np.ndarray, order: str = "ascending") -> bytes:
    """N, E, S card numbers of a deal, written here with plain loops."""
    out = ""
    for seat in range(3):
        cards = [c + 1 for c in range(52) if deal[c] == seat]
        if order == "descending":
            cards.reverse()
        out += "".join(f"{c:02d}" for c in cards)
    return out.encode()


# --- DUP -------------------------------------------------------------------------------------

def test_dup_record_is_bri_part_dge_part_and_trailer() -> None:
    data = write_bytes("dup", DEALS)
    assert len(data) == 4 * 156
    assert data[:78] == bri_digits(DEALS.deals[0])
    assert data[78:79] == b"\x06" and data[146:156] == b"YN1  0 04 "
    assert data[156 + 146:2 * 156] == b"YN1  0 04 "


def test_dup_writes_big_deals_trailer_and_holds_no_board_numbers() -> None:
    """Big Deal writes lowest board 1 and the number of boards whatever the run's own numbers: a run of
    boards 17-20 is the Duplimate's boards 1-4, and comes back as 17-20 only when the reader is told."""
    run = DEALS.renumbered([17, 18, 19, 20])
    data = write_bytes("dup", run, copies=2)
    assert [data[k * 156 + 146:(k + 1) * 156] for k in range(4)] == [b"YN1  2 04 "] * 4
    assert read_bytes("dup", data).same_deals(DEALS)
    back = DealSet.concat(get_format("dup").read(io.BytesIO(data), "mem", ReadOptions(first_board=17)))
    assert back.same_deals(run)


def test_dup_still_reads_a_trailer_with_the_runs_own_numbers() -> None:
    data = bytearray(write_bytes("dup", DEALS))
    for k in range(4):  # the trailer this project wrote before following Big Deal's
        data[k * 156 + 146:(k + 1) * 156] = b"YN17 0 20 "
    assert read_bytes("dup", bytes(data)).same_deals(DEALS.renumbered([17, 18, 19, 20]))


def test_dup_trailer_on_board_one_only_reads() -> None:
    data = write_bytes("dup", DEALS, trailer="first")
    assert data[156 + 146:2 * 156] == b"\0" * 10
    assert read_bytes("dup", data).same_deals(DEALS)


def test_dup_blind_blanks_board_one_dge_part_and_reads_back_sealed() -> None:
    data = write_bytes("dup", DEALS, blind=True)
    assert data[78:146] == b" " * 68
    assert data[156 + 78:156 + 79] == b"\x06"
    back = read_bytes("dup", data)
    assert back.same_deals(DEALS)
    assert back.metadata.get("sealed") == "yes"
    assert read_bytes("dup", write_bytes("dup", DEALS)).metadata.get("sealed") is None


def test_dup_blank_dge_part_is_refused_after_board_one() -> None:
    data = bytearray(write_bytes("dup", DEALS))
    data[156 + 78:156 + 146] = b" " * 68
    err = fault("dup", bytes(data))
    assert (err.board, err.offset) == (2, 156 + 78)


def test_dup_bri_and_dge_parts_must_agree() -> None:
    data = bytearray(write_bytes("dup", DEALS))
    other = write_bytes("dge", DealSet.from_deals(random_deals(12, 1)))
    data[2 * 156 + 78:2 * 156 + 146] = other[:68]
    err = fault("dup", bytes(data))
    assert (err.board, err.offset) == (3, 2 * 156 + 78)
    assert "disagree" in err.reason


def test_dup_bad_digit_and_repeated_card_are_located() -> None:
    data = bytearray(write_bytes("dup", DEALS))
    data[156 + 5] = ord("x")
    err = fault("dup", bytes(data))
    assert (err.board, err.offset) == (2, 156 + 5)
    data = bytearray(write_bytes("dup", DEALS))
    data[156 + 2:156 + 4] = data[156:156 + 2]  # N's second card becomes a copy of the first
    err = fault("dup", bytes(data))
    assert (err.board, err.offset) == (2, 156 + 2)
    assert "twice" in err.reason


def test_dup_trailer_faults() -> None:
    good = write_bytes("dup", DEALS)
    data = bytearray(good)
    data[2 * 156 + 146:2 * 156 + 156] = b"YN1  0 05 "
    err = fault("dup", bytes(data))
    assert (err.board, err.offset) == (3, 2 * 156 + 146)
    err = fault("dup", good[:3 * 156])  # trailer says 1-4, the file holds 3 boards
    assert "ends after 3 boards" in err.reason
    short = write_bytes("dup", DealSet.from_deals(DEALS.deals[:2]))
    err = fault("dup", short + good[2 * 156:3 * 156].replace(b"YN1  0 04 ", b"YN1  0 02 "))
    assert "holds more" in err.reason and err.board == 3
    data = bytearray(good)
    data[146:148] = b"Q?"
    assert fault("dup", bytes(data)).offset == 146
    data = bytearray(good)
    data[148:151] = b"0  "
    assert "starts at 0" in fault("dup", bytes(data)).reason


def test_dup_partial_record_is_named() -> None:
    err = fault("dup", write_bytes("dup", DEALS)[:-1])
    assert err.offset == 3 * 156 and "155 bytes into record 4" in err.reason


def test_dup_early_variant_of_bri_lines_reads() -> None:
    lines = b"\r\n".join(bri_digits(d, "descending") for d in DEALS.deals)
    assert read_bytes("dup", lines + b"\r\n").same_deals(DEALS)
    assert read_bytes("dup", lines).same_deals(DEALS)
    bad = bytearray(lines + b"\r\n")
    bad[80 + 78] = ord("\n")
    err = fault("dup", bytes(bad))
    assert (err.board, err.offset) == (2, 80 + 78)


def test_dup_writer_refuses_what_it_cannot_hold(tmp_path: Path) -> None:
    gap = DEALS.renumbered([1, 2, 4, 5])
    with pytest.raises(FormatError, match="consecutive"):
        write_file(tmp_path / "x.dup", gap)
    with pytest.raises(FormatError, match="1-99"):
        write_file(tmp_path / "x.dup", DEALS.renumbered([98, 99, 100, 101]))
    assert list(tmp_path.iterdir()) == []


# --- BRI, DGE, BER ---------------------------------------------------------------------------

def test_bri_reads_unsorted_hands_and_checks_the_filler() -> None:
    record = bri_digits(DEALS.deals[0], "descending") + b" " * 32 + b"\0" * 18
    assert np.array_equal(read_bytes("bri", record).deals[0], DEALS.deals[0])
    bad = bytearray(write_bytes("bri", DEALS))
    bad[128 + 100] = ord("Z")
    err = fault("bri", bytes(bad))
    assert (err.board, err.offset) == (2, 228)


def test_bri_card_outside_1_to_52_is_located() -> None:
    bad = bytearray(write_bytes("bri", DEALS))
    bad[3 * 128 + 10:3 * 128 + 12] = b"53"
    err = fault("bri", bytes(bad))
    assert (err.board, err.offset) == (4, 3 * 128 + 10)


SORTED = DealSet.from_deals(np.repeat(np.arange(4, dtype=np.uint8), 13)[None].repeat(2, axis=0))
# every board: N all spades, E all hearts, S all diamonds, W all clubs


def test_dge_checks_symbols_bytes_and_cards() -> None:
    good = write_bytes("dge", SORTED)
    assert good[17:34] == b"\x06\x03AKQJT98765432\x04\x05" and good[68:128] == b"\0" * 60
    bad = bytearray(good)
    bad[17:19] = b"\x03\x06"  # East's hand starts with the heart symbol
    err = fault("dge", bytes(bad))
    assert (err.board, err.offset) == (1, 17) and "order" in err.reason
    bad = bytearray(good)
    bad[128 + 1] = ord("x")
    err = fault("dge", bytes(bad))
    assert (err.board, err.offset) == (2, 129) and "0x78" in err.reason
    bad = bytearray(good)
    bad[128 + 100] = ord("A")
    err = fault("dge", bytes(bad))
    assert (err.board, err.offset) == (2, 228)


def test_dge_repeated_card_is_named() -> None:
    deal = DealSet.from_deals(np.repeat(np.arange(4, dtype=np.uint8), 13))  # N spades, E hearts, ...
    data = bytearray(write_bytes("dge", deal))
    assert data[:17] == b"\x06AKQJT98765432\x03\x04\x05"
    data[1:2] = b"K"  # North: two spade kings, no ace
    err = fault("dge", bytes(data))
    assert err.board == 1 and "SK is given twice" in err.reason


def test_ber_checks_characters_and_counts_and_takes_a_final_line_end() -> None:
    good = write_bytes("ber", DEALS)
    assert good[:52] == bytes(ord("1") + s for s in DEALS.deals[0])
    assert read_bytes("ber", good + b"\r\n").same_deals(DEALS)
    bad = bytearray(good)
    bad[52 + 7] = ord("5")
    err = fault("ber", bytes(bad))
    assert (err.board, err.offset) == (2, 59)
    bad = bytearray(write_bytes("ber", SORTED))
    bad[52 + 13] = ord("1")  # board 2: North gets a fourteenth card
    err = fault("ber", bytes(bad))
    assert err.board == 2 and err.offset == 52 and "N 14, E 12" in err.reason


def test_reading_an_empty_file_says_it_holds_no_boards(tmp_path: Path) -> None:
    for fmt in ("dup", "bri", "dge", "ber"):
        path = tmp_path / f"empty.{fmt}"
        path.write_bytes(b"")
        with pytest.raises(FormatError, match="no boards"):
            read_file(path)


@pytest.mark.parametrize("fmt", ["dup", "dlm"])
def test_writers_called_directly_also_refuse_boards_beyond_99(fmt: str) -> None:
    with pytest.raises(FormatError, match="1-99"):
        write_bytes(fmt, DEALS.renumbered([98, 99, 100, 101]))
