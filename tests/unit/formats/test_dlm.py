"""DLM: what real files hold (any-case section, Property lines, [STARTUP], deals beyond To board),
Show and Sealed, both checksums verified on read and written right, boards 1-99 always listed."""

from __future__ import annotations

import numpy as np
import pytest

from dealer.core.dealset import DealSet
from dealer.core.errors import FormatError
from tests.support.deals import random_deals
from tests.support.format_round_trips import read_bytes, write_bytes

DEALS = random_deals(21, 5)


def board_line(board: int, deal: np.ndarray, checksum: int | None = None) -> str:
    """A 'Board NN=' line written here independently: letters and xor checksum."""
    letters = "".join(chr(ord("a") + 4 * int(deal[2 * i]) + int(deal[2 * i + 1])) for i in range(26))
    check = board
    for ch in letters:
        check ^= ord(ch)
    return f"Board {board:02d}={letters}{check if checksum is None else checksum:03d}"


def third_party_style(to_board: int = 3, status: str = "Show", checksum: str | None = None,
                      crypto: str = "0") -> bytes:
    """A file shaped like the Duplimate-to-HTML project's: [DOCUMENT], Dealing method, Property lines,
    real deals beyond To board, a [STARTUP] section, a zero-padded header checksum, CRLF."""
    head = 1 ^ 1 ^ to_board ^ (1 if status == "Show" else 0)
    lines = ["[DOCUMENT]", "Headline=", f"Status={status}", "Duplicates=1", "From board=1",
             f"To board={to_board}", "Dealing method=1", "Next board to duplimate=0", "PrintOuts=0",
             f"Crypto key={crypto}", f"Checksum={checksum if checksum is not None else f'{head:03d}'}"]
    for board in range(1, 6):
        lines += [f"Duplicates {board:02d}=0", f"Property {board:02d}=1", board_line(board, DEALS[board - 1])]
    lines += ["[STARTUP]", "Statistics=Yes", "SuppressDeals=Yes", "Reversed=0"]
    return ("\r\n".join(lines) + "\r\n").encode()


def fault(data: bytes) -> FormatError:
    with pytest.raises(FormatError) as info:
        read_bytes("dlm", data, "f.dlm")
    assert info.value.path == "f.dlm"
    return info.value


def test_third_party_style_file_reads_boards_from_to_only() -> None:
    deals = read_bytes("dlm", third_party_style())
    assert deals.boards.tolist() == [1, 2, 3]
    assert np.array_equal(deals.deals, DEALS[:3])
    assert deals.event == ""
    assert deals.conforms_to_law2().all()


def test_sealed_status_changes_the_header_checksum_and_is_kept() -> None:
    deals = read_bytes("dlm", third_party_style(status="Sealed"))
    assert deals.metadata.get("sealed") == "yes"
    err = fault(third_party_style(status="Sealed", checksum="2"))  # the Show checksum, 1^1^3^1
    assert err.line == 11 and "checksum" in err.reason


def test_board_checksum_fault_names_line_and_board() -> None:
    data = third_party_style().decode().replace(board_line(2, DEALS[1]), board_line(2, DEALS[1], 7))
    err = fault(data.encode())
    assert (err.line, err.board) == (17, 2)
    assert "checksum" in err.reason


def test_board_that_is_not_a_deal_is_refused_even_beyond_to_board() -> None:
    deal = DEALS[4].copy()
    deal[np.flatnonzero(deal == 0)[0]] = 1  # one of North's cards goes to East: N 12, E 14
    data = third_party_style().decode().replace(board_line(5, DEALS[4]), board_line(5, deal)).encode()
    err = fault(data)
    assert err.board == 5 and "13 cards" in err.reason


def test_header_faults() -> None:
    assert "Crypto key" in fault(third_party_style(crypto="7", checksum="002")).reason
    err = fault(third_party_style(to_board=7, checksum=f"{1 ^ 1 ^ 7 ^ 1:03d}"))
    assert err.board == 6 and "Board 06" in err.reason
    assert "no [Document]" in fault(b"[STARTUP]\r\nReversed=0\r\n").reason
    assert "Status" in fault(third_party_style(status="Open")).reason
    assert fault(b"Headline=x\r\n[Document]\r\n").line == 1
    broken = third_party_style().replace(b"PrintOuts=0", b"PrintOuts 0")
    assert fault(broken).line == 9


def test_writer_lists_boards_1_to_99_with_filler_and_right_checksums() -> None:
    run = DealSet.from_deals(DEALS[:3], [5, 6, 7], event="Club")
    text = write_bytes("dlm", run).decode("cp1252")
    assert "\r" not in text  # LF, as Big Deal writes it
    lines = text.split("\n")
    assert lines[:10] == ["[Document]", "Headline=Club", "Status=Show", "Duplicates=0", "From board=5",
                          "To board=7", "Next board to duplimate=0", "PrintOuts=0", "Crypto key=0",
                          f"Checksum={0 ^ 5 ^ 7 ^ 1}"]
    boards = [line for line in lines if line.startswith("Board ")]
    assert len(boards) == 99
    filler = np.repeat(np.arange(4), 13)  # Big Deal's filler: N spades, E hearts, S diamonds, W clubs
    assert boards[0] == board_line(1, filler) == "Board 01=aaaaaabffffffkkkkkklpppppp015"
    assert boards[4] == board_line(5, DEALS[0]) and boards[6] == board_line(7, DEALS[2])
    assert boards[98] == board_line(99, filler)
    back = read_bytes("dlm", text.encode("cp1252"))
    assert back.same_deals(run) and back.event == "Club"


def test_blind_writes_sealed_and_newline_can_be_crlf() -> None:
    data = write_bytes("dlm", DealSet.from_deals(DEALS[:2]), blind=True, newline="\r\n")
    assert data.count(b"\r\n") == data.count(b"\n") == 10 + 2 * 99
    assert b"Status=Sealed\r\n" in data and f"Checksum={0 ^ 1 ^ 2}\r\n".encode() in data
    assert read_bytes("dlm", data).metadata.get("sealed") == "yes"


def test_writer_refuses_a_set_with_gaps() -> None:
    with pytest.raises(FormatError, match="consecutive"):
        write_bytes("dlm", DealSet.from_deals(DEALS[:2], [1, 3]))
