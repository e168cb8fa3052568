"""What a read says in one line each, through `dealer convert`: PBN games numbered without a Board tag,
the same deal on two boards (Law 6), a file without board numbers numbered by a guess and what makes it
certain, a BHG file read by its line positions, and a set a writer refuses, off Law 2."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from dealer.cli import main
from dealer.core.dealset import DealSet
from dealer.core.errors import FormatError
from dealer.formats import read_file, write_file
from tests.support.deals import random_deals

SEED = "2032485c069ff21b50ba601651bdff38908bf5b0"


def convert(capsys: pytest.CaptureFixture[str], *argv: str) -> list[str]:
    assert main(["convert", *argv]) == 0
    return capsys.readouterr().err.splitlines()


def test_games_without_a_board_number_are_said_in_one_line(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    write_file(tmp_path / "a.pbn", DealSet.from_deals(random_deals(1, 4)))
    text = (tmp_path / "a.pbn").read_text()
    text = re.sub(r'\[Board "2"\]\n', "", text).replace('[Board "3"]', '[Board "?"]')
    (tmp_path / "b.pbn").write_text(text)
    lines = convert(capsys, str(tmp_path / "b.pbn"), str(tmp_path / "c.json"))
    said = [line for line in lines if "without a board number" in line]
    assert len(said) == 1 and "2 games" in said[0] and "numbered as the board before + 1" in said[0]
    assert [int(b) for b in read_file(tmp_path / "c.json").boards] == [1, 2, 3, 4]


def test_exercise_numbers_are_refused_naming_the_option_that_numbers_the_games_in_order(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Exercise files number their deals '1-1', '4-1': not board numbers. Refused in one line naming
    --number-in-order; with it the games are boards 1, 2, 3 (or from --first-board) in the file's order, said
    once, each deal kept with the dealer and vulnerability its game gives."""
    deals = random_deals(3, 3)
    write_file(tmp_path / "a.pbn", DealSet.from_deals(deals))
    text = (tmp_path / "a.pbn").read_text()
    for board, exercise in (("1", "1-1"), ("2", "4-1"), ("3", "4-2")):
        text = text.replace(f'[Board "{board}"]', f'[Board "{exercise}"]')
    (tmp_path / "ex.pbn").write_text(text)
    assert main(["convert", str(tmp_path / "ex.pbn"), str(tmp_path / "b.json")]) == 3
    (line,) = capsys.readouterr().err.splitlines()
    assert "board number '1-1' is not a positive integer" in line and "--number-in-order" in line
    assert not (tmp_path / "b.json").exists()
    lines = convert(capsys, str(tmp_path / "ex.pbn"), str(tmp_path / "b.json"), "--number-in-order",
                    "--first-board", "7")
    assert len([line for line in lines if "--number-in-order" in line]) == 1
    read = read_file(tmp_path / "b.json")
    assert [int(b) for b in read.boards] == [7, 8, 9]
    assert np.array_equal(read.deals, DealSet.from_deals(deals).deals)
    original = DealSet.from_deals(deals)
    assert list(read.dealers) == list(original.dealers) and list(read.vulnerabilities) == list(original.vulnerabilities)


def test_the_same_deal_on_two_boards_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deals = random_deals(2, 5)
    deals[4] = deals[1]
    write_file(tmp_path / "a.pbn", DealSet.from_deals(deals))
    lines = convert(capsys, str(tmp_path / "a.pbn"), str(tmp_path / "b.json"))
    assert [line for line in lines if "same deal" in line] == [
        f"dealer: {tmp_path / 'a.pbn'}: the same deal is on more than one board (Law 6: a deal is dealt for one "
        "board of a session): boards 2 and 5"]


def test_a_bhg_run_read_without_its_first_board_is_a_guess_named_as_such(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A BHG of boards 5-20 read alone: numbered from 1, said to be a guess that turns the hands, and what
    makes it certain; with its PBN beside it, the PBN is named with the --first-board it gives."""
    assert main(["generate", "--boards", "5-20", "--seed", SEED, "-o", str(tmp_path / "r.bhg")]) == 0
    capsys.readouterr()
    alone = " ".join(convert(capsys, str(tmp_path / "r.bhg"), str(tmp_path / "a.pbn")))
    assert "numbered from 1, a guess the file cannot confirm" in alone and "turns them too" in alone
    assert "--first-board N makes it certain" in alone
    assert main(["generate", "--boards", "5-20", "--seed", SEED, "-o", str(tmp_path / "r.pbn")]) == 0
    capsys.readouterr()
    beside = " ".join(convert(capsys, str(tmp_path / "r.bhg"), str(tmp_path / "b.pbn")))
    assert f"{tmp_path / 'r.pbn'} beside it holds the same deals from board 5: read with --first-board 5" in beside
    convert(capsys, str(tmp_path / "r.bhg"), str(tmp_path / "c.pbn"), "--first-board", "5")
    assert read_file(tmp_path / "c.pbn").same_deals(read_file(tmp_path / "r.pbn"))


def test_a_set_off_law2_is_refused_by_a_format_that_gives_law2(tmp_path: Path) -> None:
    deals = DealSet.from_deals(random_deals(3, 3))
    odd = DealSet(deals.boards, deals.deals, np.array([0, 0, 0], dtype=np.uint8), deals.vulnerabilities)
    with pytest.raises(FormatError, match="board 2 has another"):
        write_file(tmp_path / "x.bri", odd)
    assert not (tmp_path / "x.bri").exists()
    write_file(tmp_path / "x.lin", odd)
    assert read_file(tmp_path / "x.lin").same_deals(odd)


def test_cds_refuses_numbers_it_would_read_back_as_others(tmp_path: Path) -> None:
    deals = DealSet.from_deals(random_deals(4, 2), [3, 300])
    with pytest.raises(FormatError, match="board 300"):
        write_file(tmp_path / "x.cds", deals)
    wraps = DealSet.from_deals(random_deals(5, 4), [254, 255, 256, 257])
    write_file(tmp_path / "y.cds", wraps)
    assert read_file(tmp_path / "y.cds").same_deals(wraps)
