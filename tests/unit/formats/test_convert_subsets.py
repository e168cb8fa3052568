"""`dealer convert --boards` and `--split`: a subset of a session, and a session cut into files a
Duplimate format can hold (one run of boards up to 99 each). The files written are checked by reading
them back and by their DUP trailers and DLM headers, decoded here with plain byte work."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dealer.cli import main
from dealer.core.dealset import DealSet
from dealer.formats import read_file, write_file
from dealer.formats.reading import ReadOptions
from tests.support.deals import random_deals

SESSION = DealSet.from_deals(random_deals(5, 120))  # boards 1-120


@pytest.fixture
def s120(tmp_path: Path) -> Path:
    path = tmp_path / "s120.pbn"
    write_file(path, SESSION)
    return path


def dup_records(path: Path) -> list[bytes]:
    data = path.read_bytes()
    assert len(data) % 156 == 0
    return [data[k:k + 156] for k in range(0, len(data), 156)]


def test_too_many_boards_for_dup_says_how_to_split(s120: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert", str(s120), str(tmp_path / "s.dup")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "DUP holds one run of boards 1-99; this run reaches board 120" in err
    assert f"--split writes 2 files: {tmp_path / 's-1.dup'} (boards 1-99); " \
           f"{tmp_path / 's-2.dup'} (boards 100-120 as boards 1-21)" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s120.pbn"]


def test_split_writes_two_files_a_duplimate_accepts(s120: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert", str(s120), str(tmp_path / "s.dup"), "--split"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s-1.dup", "s-2.dup", "s120.pbn"]
    first, second = dup_records(tmp_path / "s-1.dup"), dup_records(tmp_path / "s-2.dup")
    assert len(first) == 99 and len(second) == 21
    assert {r[146:] for r in first} == {b"YN1  0 99 "} and {r[146:] for r in second} == {b"YN1  0 21 "}
    assert read_file(tmp_path / "s-1.dup").same_deals(SESSION.select(list(range(1, 100))))
    back = read_file(tmp_path / "s-2.dup", options=ReadOptions(first_board=100))
    assert back.same_deals(SESSION.select(list(range(100, 121))))
    out = capsys.readouterr().out
    assert "converted boards 1-99 from PBN to DUP" in out
    assert "converted boards 100-120 as boards 1-21 from PBN to DUP" in out


def test_split_for_dlm_numbers_the_second_file_from_1(s120: Path, tmp_path: Path) -> None:
    assert main(["convert", str(s120), str(tmp_path / "s.dlm"), "--split"]) == 0
    header = dict(line.split("=", 1) for line in (tmp_path / "s-2.dlm").read_text().splitlines() if "=" in line)
    assert (header["From board"], header["To board"]) == ("1", "21")
    assert np.array_equal(read_file(tmp_path / "s-2.dlm").deals, SESSION.deals[99:])


def test_split_keeps_numbers_up_to_99_and_cuts_at_gaps(tmp_path: Path) -> None:
    source = tmp_path / "gaps.json"
    boards = [*range(50, 60), *range(61, 71), *range(95, 110)]
    write_file(source, SESSION.select(boards))
    assert main(["convert", str(source), str(tmp_path / "g.dlm"), "--split"]) == 0
    written = sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".dlm")
    assert written == ["g-1.dlm", "g-2.dlm", "g-3.dlm", "g-4.dlm"]
    parts = [read_file(tmp_path / name) for name in written]
    assert [p.boards.tolist() for p in parts] == [list(range(50, 60)), list(range(61, 71)), list(range(95, 100)),
                                                  list(range(1, 11))]
    assert np.array_equal(np.concatenate([p.deals for p in parts]), SESSION.select(boards).deals)


def test_boards_writes_the_boards_chosen(s120: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert", str(s120), str(tmp_path / "s.dup"), "--boards", "1-32"]) == 0
    records = dup_records(tmp_path / "s.dup")
    assert len(records) == 32 and records[0][146:] == b"YN1  0 32 "
    assert read_file(tmp_path / "s.dup").same_deals(SESSION.select(list(range(1, 33))))
    assert "converted 32 boards (1-32) from PBN to DUP" in capsys.readouterr().out


def test_boards_of_a_later_run_say_how_to_read_them_back(s120: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert", str(s120), str(tmp_path / "s.dup"), "--boards", "33-64", "--blind"]) == 0
    err = capsys.readouterr().err
    assert "blind DUP blanks board 1's cards only" in err
    assert "boards 33-64 read back as 1-32 unless read with --first-board 33" in err
    assert b" " * 68 not in (tmp_path / "s.dup").read_bytes()


def test_boards_not_in_the_file_and_split_for_other_formats_are_refused(s120: Path, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert", str(s120), str(tmp_path / "s.bri"), "--boards", "119-125"]) == 2
    assert "has no board 121-125" in capsys.readouterr().err
    assert main(["convert", str(s120), str(tmp_path / "s.bri"), "--split"]) == 2
    assert "--split is for formats that hold boards 1-99 only" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s120.pbn"]
