"""Deal files other programs wrote, read through `dealer convert` (the command users run) and checked
against an independent reading: deal-convert's one session in every format it writes, a Duplimate's
own DLM, and results PBN files with one game per table (BBO, JFR, BridgeComposer, teams and vugraph
records). Expected values come from the files themselves, decoded by the plain decoders of
:mod:`tests.support.bigdeal_files` or by a few lines here."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dealer.cli import main
from tests.support.bigdeal_files import deal_from_pbn, pbn_games

DATA = Path(__file__).resolve().parents[1] / "data"
FIELD = DATA / "field"
RESULTS = DATA / "results-pbn"
DEAL_CONVERT = FIELD / "deal-convert"
SEATS = "NESW"
VULNERABILITY = {"None": "None", "Love": "None", "-": "None", "NS": "NS", "EW": "EW", "All": "All", "Both": "All"}
LAW2_VUL = ["None", "NS", "EW", "All", "NS", "EW", "All", "None", "EW", "All", "None", "NS", "All", "None", "NS", "EW"]

Board = tuple[int, str, str, list[int]]


def convert(source: Path, tmp_path: Path, *extra: str) -> tuple[int, list[Board]]:
    """`dealer convert SOURCE out.json`; the exit code and the boards written (decoded with json)."""
    out = tmp_path / "out.json"
    code = main(["convert", str(source), str(out), *extra])
    boards = ([(b["board"], b["dealer"], b["vulnerable"], deal_from_pbn(b["deal"]))
               for b in json.loads(out.read_bytes())["boards"]] if out.exists() else [])
    return code, boards


def first_games(path: Path) -> list[Board]:
    """One board per number, the first game of each, from the tags of a PBN file (plain decoding)."""
    seen: dict[int, Board] = {}
    for game in pbn_games(path.read_bytes()):
        board = int(game["Board"])
        seen.setdefault(board, (board, game["Dealer"], VULNERABILITY[game["Vulnerable"]], deal_from_pbn(game["Deal"])))
    return list(seen.values())


# --- deal-convert: the same 16 boards in every format it writes ----------------------------------

SESSION = first_games(DEAL_CONVERT / "test.pbn")


def test_the_deal_convert_session_is_16_boards_by_law_2() -> None:
    assert [b[0] for b in SESSION] == list(range(1, 17))
    assert [b[1] for b in SESSION] == [SEATS[(n - 1) % 4] for n in range(1, 17)]
    assert [b[2] for b in SESSION] == LAW2_VUL


@pytest.mark.parametrize("name", sorted(p.name for p in DEAL_CONVERT.iterdir() if p.name != "LICENSE"))
def test_every_deal_convert_file_reads_as_its_session(name: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, boards = convert(DEAL_CONVERT / name, tmp_path)
    err = capsys.readouterr().err
    assert code == 0, err
    assert boards == SESSION
    if name == "test.lin":  # deal-convert writes each board for both rooms
        assert "boards 1-16 appear 2 times each with the same deal; each kept once" in err


def deal_convert_bhg(boards: dict[int, list[int]]) -> bytes:
    """A BHG file as deal-convert's writer lays it out: line n is board n, line 0 and every board not in
    the set empty, CRLF; each line the dealer's hand first (written here from its description)."""
    lines = [""] * (max(boards) + 2)
    for number, deal in boards.items():
        dealer = (number - 1) % 4
        text = ""
        for k in range(4):
            seat = (dealer + k) % 4
            for card in range(52):
                if deal[card] == seat:
                    text += chr(ord("A") + card) if card < 26 else chr(ord("a") + card - 26)
        lines[number] = text
    return "\r\n".join(lines).encode("ascii")


def test_a_bhg_that_marks_board_positions_with_empty_lines_is_read_by_position(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chosen = {b[0]: b[3] for b in SESSION if b[0] in (5, 6, 7, 10)}
    source = tmp_path / "positions.bhg"
    source.write_bytes(deal_convert_bhg(chosen))
    code, boards = convert(source, tmp_path)
    assert code == 0, capsys.readouterr().err
    assert boards == [b for b in SESSION if b[0] in chosen]
    capsys.readouterr()
    assert main(["convert", str(source), str(tmp_path / "x.json"), "--first-board", "3"]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 6" in err and "disagrees with the first board 3" in err


# --- a Duplimate's own DLM --------------------------------------------------------------------------

def duplimate_boards(data: bytes) -> list[list[int]]:
    """Boards From-To of a DLM, each letter 'a' + 4*seat(2i) + seat(2i+1), read with plain string work."""
    values = dict(line.split("=", 1) for line in data.decode("ascii").splitlines() if "=" in line)
    low, high = int(values["From board"]), int(values["To board"])
    deals = []
    for board in range(low, high + 1):
        deal: list[int] = []
        for letter in values[f"Board {board:02d}"][:26]:
            deal += [(ord(letter) - 97) >> 2, (ord(letter) - 97) & 3]
        deals.append(deal)
    return deals


def test_a_duplimates_own_dlm_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = FIELD / "duplimate" / "1.dlm"
    code, boards = convert(source, tmp_path)
    assert code == 0, capsys.readouterr().err
    assert [b[0] for b in boards] == list(range(1, 25))
    assert [b[3] for b in boards] == duplimate_boards(source.read_bytes())
    assert [b[2] for b in boards] == [LAW2_VUL[(n - 1) % 16] for n in range(1, 25)]


# --- results files: one game per table --------------------------------------------------------------

RESULT_FILES = {  # file -> (boards, games)
    "eytc-1998-teams.pbn": ([1, 2, 3, 4], 8),
    "camrose-2024-bridgecomposer.pbn": ([1, 2, 3], 6),
    "bbo-aba-17901.pbn": ([1, 9], 5),
    "bbo-acbl-1607.pbn": ([1], 3),
}


@pytest.mark.parametrize("name", sorted(RESULT_FILES))
def test_a_results_file_converts_to_one_board_per_number(name: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    source = RESULTS / name
    numbers, games = RESULT_FILES[name]
    assert len(pbn_games(source.read_bytes())) == games
    code, boards = convert(source, tmp_path)
    err = capsys.readouterr().err
    assert code == 0, err
    assert boards == first_games(source)
    assert [b[0] for b in boards] == numbers
    assert "with the same deal" in err and "kept once" in err


def test_the_jfr_results_file_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, boards = convert(DEAL_CONVERT / "test-jfr.pbn", tmp_path)
    assert code == 0, capsys.readouterr().err
    assert boards == SESSION


def two_sets_under_one_number(tmp_path: Path) -> Path:
    """The teams file with its board 3 games followed by a game of board 3 holding board 4's deal:
    two different deals under one number."""
    text = (RESULTS / "eytc-1998-teams.pbn").read_text()
    games = text.split("\n\n")
    wrong = games[6].replace('[Board "4"]', '[Board "3"]')  # board 4's first game, renumbered
    path = tmp_path / "two-sets.pbn"
    path.write_text("\n\n".join([*games[:6], wrong]) + "\n")
    return path


def test_two_different_deals_under_one_number_are_one_clear_error(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    source = two_sets_under_one_number(tmp_path)
    code, boards = convert(source, tmp_path)
    err = capsys.readouterr().err
    assert code == 3 and boards == []
    assert err.count("\n") == 1
    deal_lines = [n for n, line in enumerate(source.read_text().splitlines(), start=1) if line.startswith("[Deal ")]
    first, other = deal_lines[4], deal_lines[6]  # board 3's first game; the game of board 3 with board 4's deal
    assert f"{source}, board 3: board 3 comes with different deals (line {first} and line {other})" in err
    assert "--first-game or --game N" in err


def test_first_game_or_game_n_chooses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = two_sets_under_one_number(tmp_path)
    board_3, board_4 = first_games(RESULTS / "eytc-1998-teams.pbn")[2:4]
    code, boards = convert(source, tmp_path, "--first-game")
    assert code == 0 and boards[2] == board_3 and len(boards) == 3
    assert "board 3 comes with different deals: kept game 1 of each" in capsys.readouterr().err
    code, boards = convert(source, tmp_path, "--game", "3", "--force")
    assert code == 0 and boards[2] == (3, board_4[1], board_4[2], board_4[3])
    code, _ = convert(source, tmp_path, "--game", "4", "--force")
    assert code == 3 and "no game 4 of it" in capsys.readouterr().err


def test_results_only_games_are_refused_or_skipped_when_asked(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    source = RESULTS / "vugraph-2012-final.pbn"
    code, boards = convert(source, tmp_path)
    err = capsys.readouterr().err
    assert code == 3 and boards == [] and err.count("\n") == 1
    assert f"{source}, line 29: a game with tags but no deal" in err and "--skip-results-only" in err
    code, boards = convert(source, tmp_path, "--skip-results-only")
    err = capsys.readouterr().err
    assert code == 0
    assert [b[0] for b in boards] == [1, 2, 3, 4]
    assert [b[3] for b in boards] == [deal_from_pbn(g["Deal"]) for g in pbn_games(source.read_bytes())]
    lines = source.read_text().splitlines()
    starts = [n + 1 for n, line in enumerate(lines) if line.startswith("[") and (n == 0 or not lines[n - 1])]
    ends = starts[1:] + [len(lines) + 1]
    firsts = [a for a, b in zip(starts, ends, strict=True) if not any("[Deal " in x for x in lines[a - 1:b - 1])]
    assert len(firsts) == 4 and firsts[0] == 29
    assert f"skipped 4 games without a deal (at {', '.join(f'line {n}' for n in firsts)})" in err


def test_records_prints_a_results_file_as_single_boards(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "records.html"
    assert main(["records", str(RESULTS / "camrose-2024-bridgecomposer.pbn"), "-o", str(out), "--no-dd"]) == 0
    assert "wrote 3 boards" in capsys.readouterr().out
    assert re.findall(r"<h2>Board (\d+)", out.read_text()) == ["1", "2", "3"]
