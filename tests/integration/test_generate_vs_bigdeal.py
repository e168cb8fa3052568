"""`dealer generate` with the default engine against the files Big Deal's ``bigdealx`` wrote.

For every fixture case (tests/data/bigdeal/cases.json: seed, owner, board range) and every format
both programs write, ``dealer generate --boards RANGE --seed HEX --owner OWNER -o ours.EXT`` runs
through the command-line entry point and its file is compared with Big Deal's file of that format:
byte for byte where we write what Big Deal writes, else field by field, every field Big Deal's file
holds decoded with the plain decoders of :mod:`tests.support.bigdeal_files`. Where the bytes
differ the comparison functions below say exactly which bytes and why.

bigdealx ``-n 16`` means boards 1-16, ``dealer generate --boards 16`` board 16 alone: the cases give
bigdealx's first and last board and ``--boards`` is built from them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from dealer import formats
from dealer.cli import main
from dealer.core.errors import FormatError
from tests.support.bigdeal_files import (
    Case,
    bhg_deals,
    cases,
    deal_from_pbn,
    dlm_deals,
    dlm_document,
    dup_deals,
    dup_records,
    lin_boards,
    pbn_deals,
    pbn_games,
)

CASES = cases()

# our format (file extension) -> Big Deal's format name, for every format both write
BIGDEAL = {"pbn": "pbn", "dup": "dup", "dlm": "dlm", "bri": "bri", "dge": "dge", "csv": "csv", "ber": "ber",
           "bhg": "borel", "lin": "lin"}
ONLY_OURS = {"json"}  # Big Deal writes no JSON; Big Deal's RZD (kops), CDS and GOE we do not write


def test_every_format_we_write_is_compared() -> None:
    assert set(formats.format_names()) == set(BIGDEAL) | ONLY_OURS


def generate(case: Case, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Run `dealer generate` for a case into `out`; the exit code and all it printed."""
    code = main(["generate", "--boards", case.dealer_boards, "--seed", case.seed, "--owner", case.owner,
                 "-o", str(out)])
    shown = capsys.readouterr()
    return code, shown.out + shown.err


def assert_no_deal_shown(case: Case, shown: str) -> None:
    """Nothing printed holds a hand of the session or its seed."""
    hands = {hand for game in pbn_games(case.read("pbn")) for hand in game["Deal"][2:].split()}
    assert not [hand for hand in hands if hand in shown]
    assert case.seed.lower() not in shown.lower()


# --- the comparisons, one per format ---------------------------------------------------------------

def same_bytes(case: Case, ours: bytes, theirs: bytes, out: Path) -> None:
    assert ours == theirs


def compare_pbn(case: Case, ours: bytes, theirs: bytes, out: Path) -> None:
    """Big Deal's PBN holds nothing that changes from run to run, but our writer lays it out otherwise,
    so every tag Big Deal writes is compared instead. The lines that differ:

    - line ends: Big Deal LF (CRLF when built for Windows), ours CRLF;
    - header: Big Deal ``% PBN 2.1``, ``% EXPORT``, ``%`` and ``[Generator "Big Deal version
      2.1DEVEL"]`` once before the first game; ours ``% PBN 2.1``, ``% EXPORT`` and
      ``[Generator "dealer bigdeal"]`` as the last tag of every game;
    - ``[West "?"]``, ``[North "?"]``, ``[East "?"]``, ``[South "?"]``, ``[Scoring "?"]``,
      ``[Declarer "?"]``, ``[Contract "?"]``, ``[Result "?"]``: ours have ``""`` (export format
      asks ``""`` of a program that does not know them);
    - ``[Deal "N:..."]``: Big Deal always starts with North, ours with the dealer (export format);
      the same deal;
    - Big Deal ends every game with an empty line, so its file ends with one; ours separates games.
    """
    ours_games, their_games = pbn_games(ours), pbn_games(theirs)
    assert len(ours_games) == len(their_games) == len(case.boards)
    for mine, theirs_game in zip(ours_games, their_games, strict=True):
        assert set(theirs_game) <= set(mine)  # every tag Big Deal writes, we write
        for tag in ("Event", "Site", "Date", "Board", "Dealer", "Vulnerable"):
            assert mine[tag] == theirs_game[tag], tag
        assert deal_from_pbn(mine["Deal"]) == deal_from_pbn(theirs_game["Deal"])


def compare_dup(case: Case, ours: bytes, theirs: bytes, out: Path) -> None:
    """Byte for byte for runs from board 1. For other runs the 10-byte trailer of every record
    differs: Big Deal always writes ``YN1  0 NN `` (lowest board 1, NN = number of boards: boards 5-20
    give ``YN1  0 16 ``), ours the run's own boards (``YN5  0 20 ``); the BRI and DGE parts, so the
    deals, are the same."""
    if case.first == 1:
        assert ours == theirs
        return
    mine, big_deal = dup_records(ours), dup_records(theirs)
    assert len(mine) == len(big_deal) == len(case.boards)
    assert [(bri, dge) for bri, dge, _ in mine] == [(bri, dge) for bri, dge, _ in big_deal]
    assert np.array_equal(dup_deals(ours), pbn_deals(case.read("pbn")))


# DLM header keys whose values differ (never the board lines):
#   Headline    Big Deal "Generated by Big Deal version 2.1DEVEL", ours the --event text ("" here)
#   Duplicates  Big Deal 0, ours 1
#   Checksum    Duplicates xor From board xor To board (xor 1 if Show): differs with Duplicates
# and the line ends: Big Deal LF (CRLF when built for Windows), ours CRLF.
DLM_DIFFERENT = {"Headline", "Duplicates", "Checksum"}


def compare_dlm_lines(case: Case, ours: bytes, theirs: bytes, different: set[str]) -> None:
    mine, big_deal = dlm_document(ours), dlm_document(theirs)
    assert list(mine) == list(big_deal)  # the same keys in the same order: header, then boards 01-99
    for key, value in big_deal.items():
        if key not in different:
            assert mine[key] == value, key
    assert (int(mine["From board"]), int(mine["To board"])) == (case.first, case.last)
    assert np.array_equal(dlm_deals(ours, case.boards), pbn_deals(case.read("pbn")))


def compare_dlm(case: Case, ours: bytes, theirs: bytes, out: Path) -> None:
    compare_dlm_lines(case, ours, theirs, DLM_DIFFERENT)


def compare_lin(case: Case, ours: bytes, theirs: bytes, out: Path) -> None:
    """Byte for byte unless a board is vulnerable for no one: there Big Deal writes ``|sv|0|`` and we
    ``|sv|o|`` (BBO's letter). Every line is compared decoded: board, dealer, hands, vulnerability."""
    if b"|sv|0|" not in theirs:
        assert ours == theirs
    mine, big_deal = lin_boards(ours), lin_boards(theirs)
    assert [b for b, _, _, _ in big_deal] == case.boards
    assert len(mine) == len(big_deal)
    for (b1, d1, deal1, v1), (b2, d2, deal2, v2) in zip(mine, big_deal, strict=True):
        assert (b1, d1, v1) == (b2, d2, v2)
        assert np.array_equal(deal1, deal2)


def compare_bhg(case: Case, ours: bytes, theirs: bytes, out: Path) -> None:
    """Each line starts with the dealer's hand. Big Deal takes the dealer of the board number
    ((board - 1) mod 4), we that of the line's place in the file (line k: k mod 4), as if the run
    started at board 1: the same bytes when the first board is 1, 5, 9, ...; otherwise every line
    holds the same four hands turned by (first board - 1) mod 4 seats. The file holds no board
    numbers, so ours is compared as our reader reads it; Big Deal's by its own rule."""
    if (case.first - 1) % 4 == 0:
        assert ours == theirs
        return
    expected = bhg_deals(theirs, [(b - 1) % 4 for b in case.boards])
    assert np.array_equal(expected, pbn_deals(case.read("pbn")))
    assert np.array_equal(formats.read_file(out, "bhg").deals, expected)


COMPARE: dict[str, Callable[[Case, bytes, bytes, Path], None]] = {
    "pbn": compare_pbn, "dup": compare_dup, "dlm": compare_dlm, "bri": same_bytes, "dge": same_bytes,
    "csv": same_bytes, "ber": same_bytes, "bhg": compare_bhg, "lin": compare_lin,
}


@pytest.mark.parametrize(("case", "ext"), [(c, e) for c in CASES for e in BIGDEAL], ids=lambda v: str(v))
def test_generate_writes_what_bigdealx_writes(case: Case, ext: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / f"ours.{ext}"
    code, shown = generate(case, out, capsys)
    assert_no_deal_shown(case, shown)
    fmt = BIGDEAL[ext]
    if fmt in case.refused:
        # Big Deal skips the format for a run past board 99 ("Format dup supports 99 as high board,
        # skipping") and writes the others; we refuse the file, and write nothing
        assert code == FormatError.exit_code
        assert not out.exists() and not list(tmp_path.iterdir())
        assert "99" in shown
        return
    assert code == 0
    COMPARE[ext](case, out.read_bytes(), case.read(fmt), out)


@pytest.mark.parametrize("case", [c for c in CASES if "dupblind" in c.files], ids=str)
def test_generate_dup_against_bigdealx_blind_dup(case: Case, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """`dealer generate` writes no blind DUP. Big Deal's ``dupblind`` is its DUP with board 1's DGE
    part (the cards the DOS program shows) as 68 spaces; boards 2 on are as in DUP, so a run not
    starting at board 1 is not blind at all. Ours holds the cards there; all else as in DUP."""
    out = tmp_path / "ours.dup"
    assert generate(case, out, capsys)[0] == 0
    mine, big_deal = dup_records(out.read_bytes()), dup_records(case.read("dupblind"))
    assert len(mine) == len(big_deal) == len(case.boards)
    for board, (bri, dge, trailer), (bd_bri, bd_dge, bd_trailer) in zip(case.boards, mine, big_deal,
                                                                       strict=True):
        assert bri == bd_bri
        if bd_dge == b" " * 68:
            assert board == 1
        else:
            assert dge == bd_dge
        if case.first == 1:
            assert trailer == bd_trailer
    assert np.array_equal(dup_deals(case.read("dupblind")), pbn_deals(case.read("pbn")))


@pytest.mark.parametrize("case", [c for c in CASES if "dlmblind" in c.files], ids=str)
def test_generate_dlm_against_bigdealx_sealed_dlm(case: Case, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """`dealer generate` writes no sealed DLM. Big Deal's ``dlmblind`` is its DLM with
    ``Status=Sealed`` (and a checksum without the xor 1 of Show); ours says Show. All board lines as
    in Big Deal's."""
    out = tmp_path / "ours.dlm"
    assert generate(case, out, capsys)[0] == 0
    assert dlm_document(case.read("dlmblind"))["Status"] == "Sealed"
    compare_dlm_lines(case, out.read_bytes(), case.read("dlmblind"), DLM_DIFFERENT | {"Status"})


@pytest.mark.parametrize("case", [c for c in CASES if not c.owner.isascii() or len(c.owner) > 100], ids=str)
def test_console_entry_point_hashes_the_owner_as_bigdealx(case: Case, tmp_path: Path) -> None:
    """`python -m dealer` in a process of its own, the owner passed as the very bytes bigdealx got
    (UTF-8; cases.json keeps them as owner_hex): the same BRI file as Big Deal's."""
    out = tmp_path / "ours.bri"
    env = {**os.environ, "LC_ALL": "C.UTF-8"}
    env.pop("PYTHONIOENCODING", None)
    done = subprocess.run([sys.executable, "-m", "dealer", "generate", "--boards", case.dealer_boards,
                           "--seed", case.seed, "--owner", case.owner_bytes, "-o", str(out)],
                          env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    assert out.read_bytes() == case.read("bri")
