"""Partial deals (a '-' hand, fewer than 52 cards), files the PBN standard calls correct: `convert` and
`records` keep the full deals and list the boards they skipped (or refuse with --strict); `deal`
refuses the file naming the board, before any journal or machine is touched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dealer.cli import main

FULL = "N:AJ9.K9542.Q.AK93 K.QJ76.K98763.75 QT6543.AT.JT.T62 872.83.A542.QJ84"
TWO_UNKNOWN = "N:AJ9.K9542.Q.AK93 - QT6543.AT.JT.T62 -"
SHORT_WEST = "N:AJ9.K9542.Q.AK93 K.QJ76.K98763.75 QT6543.AT.JT.T62 872.83.A542.QJ8"
ONE_UNKNOWN = "N:AJ9.K9542.Q.AK93 K.QJ76.K98763.75 QT6543.AT.JT.T62 -"  # three full hands: West is known


@pytest.fixture
def partial_file(tmp_path: Path) -> Path:
    games = [f'[Board "{n}"]\n[Deal "{deal}"]\n' for n, deal in
             enumerate([FULL, TWO_UNKNOWN, SHORT_WEST, ONE_UNKNOWN], start=1)]
    path = tmp_path / "hands.pbn"
    path.write_text("\n".join(games))
    return path


def test_convert_keeps_the_full_deals_and_lists_the_partial_ones(partial_file: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.json"
    assert main(["convert", str(partial_file), str(out)]) == 0
    boards = json.loads(out.read_text())["boards"]
    assert [b["board"] for b in boards] == [1, 4]
    assert boards[0]["deal"] == boards[1]["deal"] == FULL
    assert f"{partial_file}: skipped 2 boards with a partial deal: 2, 3" in capsys.readouterr().err


def test_convert_strict_refuses_naming_the_board(partial_file: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.json"
    assert main(["convert", str(partial_file), str(out), "--strict"]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"{partial_file}, line 5, board 2: a partial deal (E unknown, W unknown)" in err
    assert not out.exists()


def test_records_prints_the_full_deals(partial_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["records", str(partial_file), "-o", str(tmp_path / "r.html"), "--no-dd"]) == 0
    shown = capsys.readouterr()
    assert "wrote 2 boards" in shown.out and "skipped 2 boards with a partial deal: 2, 3" in shown.err
    assert main(["records", str(partial_file), "-o", str(tmp_path / "s.html"), "--no-dd", "--strict"]) == 3
    assert not (tmp_path / "s.html").exists()


def test_deal_refuses_a_partial_deal_before_the_journal(partial_file: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    journal = tmp_path / "j.db"
    assert main(["deal", str(partial_file), "--port", "sim://?speed=200", "--journal", str(journal)]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "board 2: a partial deal" in err
    assert not journal.exists()
