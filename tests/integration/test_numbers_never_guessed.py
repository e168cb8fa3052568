"""A file whose board numbers are a guess (a format without them, no --first-board, no numbered file beside it
confirming the guess) is never dealt: dealt as boards 1-8, a Big Deal BHG of boards 5-12 would put each deal in
the wrong board with every hand turned (BHG turns a line's hands by its board number)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dealer import formats
from dealer.cli import main
from dealer.core.dealset import DealSet
from dealer.formats.reading import ReadOptions
from dealer.journal.store import JobState, Journal
from tests.support.controllers import deal_set


@pytest.fixture
def lone_bhg(tmp_path: Path) -> tuple[Path, Path]:
    """A BHG file of boards 5-12, alone in its folder, and the PBN it was converted from (elsewhere)."""
    pbn = tmp_path / "made" / "s.pbn"
    pbn.parent.mkdir()
    formats.write_file(pbn, DealSet.from_deals(deal_set(55, 8).deals, boards=list(range(5, 13))))
    assert main(["convert", str(pbn), str(pbn.with_suffix(".bhg"))]) == 0
    lone = tmp_path / "lone" / "s.bhg"
    lone.parent.mkdir()
    shutil.copy(pbn.with_suffix(".bhg"), lone)
    return lone, pbn


def test_a_lone_bhg_is_refused_naming_first_board_then_dealt_as_its_boards(
        lone_bhg: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lone, pbn = lone_bhg
    journal = tmp_path / "j.journal"
    assert main(["deal", str(lone), "--port", "sim://?speed=200", "--journal", str(journal), "--quiet"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "--first-board N" in line and "guess" in line, line
    assert not journal.exists()  # refused before any work

    assert main(["deal", str(lone), "--first-board", "5", "--port", "sim://?speed=200", "--journal", str(journal),
                 "--quiet"]) == 0
    truth = formats.read_file(pbn)
    dealt = formats.read_file(lone, options=ReadOptions(first_board=5))
    assert [int(b) for b in dealt.boards] == list(range(5, 13)) and (dealt.deals == truth.deals).all()
    with Journal.open_read_only(journal) as j:
        (run,) = j.runs()
        assert sorted(job.board for job in j.jobs(run.id) if job.state is JobState.VERIFIED) == list(range(5, 13))
        assert j.deal_hashes(run.id) == dict(zip(range(5, 13), truth.deal_hashes(), strict=True))


def test_a_bhg_beside_the_pbn_it_came_from_names_the_first_board(
        lone_bhg: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _, pbn = lone_bhg
    assert main(["deal", str(pbn.with_suffix(".bhg")), "--port", "sim://?speed=200", "--quiet"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.endswith("holds the same deals from board 5: read with --first-board 5"), line


def test_a_file_that_gives_no_board_says_why(tmp_path: Path) -> None:
    from dealer.core.errors import FormatError

    path = tmp_path / "partial.pbn"
    path.write_text('[Board "1"]\n[Deal "N:AKQJ.T98.765.432 - - -"]\n\n'
                    '[Board "2"]\n[Deal "N:- - - AKQJ.T98.765.432"]\n', encoding="utf-8")
    with pytest.raises(FormatError, match=r"holds no boards \(2 games with fewer than 52 cards\)"):
        formats.read_file(path, options=ReadOptions(skip_partial=True))
