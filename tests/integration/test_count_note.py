"""The PBN count note speaks only where a board could be missing: never for a file this program wrote and
marked with its count, once for a file without the mark, and as a changed file where the boards read are not
the boards marked. Through the commands a director runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from dealer.cli import main

NOTE = "PBN does not record how many boards a file holds"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0, capsys.readouterr().err
    return capsys.readouterr().err


def test_a_file_this_program_wrote_reads_without_the_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pbn = tmp_path / "session.pbn"
    run(capsys, "generate", "--boards", "1-8", "-o", str(pbn))
    assert run(capsys, "convert", str(pbn), str(tmp_path / "session.dlm")) == ""
    assert run(capsys, "convert", str(pbn), str(tmp_path / "again.pbn")) == ""
    assert run(capsys, "records", str(tmp_path / "again.pbn"), "-o", str(tmp_path / "r.html"), "--no-dd") == ""


def test_a_board_taken_out_of_a_marked_file_is_said_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pbn = tmp_path / "session.pbn"
    run(capsys, "generate", "--boards", "1-4", "-o", str(pbn))
    games = pbn.read_bytes().split(b"\r\n\r\n")
    assert len(games) == 5  # four games and the mark
    (tmp_path / "edited.pbn").write_bytes(b"\r\n\r\n".join(games[:2] + games[3:]))
    err = run(capsys, "convert", str(tmp_path / "edited.pbn"), str(tmp_path / "edited.csv"))
    assert err.count("\n") == 1 and "written holding 4 boards but 3 read (1-2,4)" in err, err
    assert NOTE not in err


def test_a_file_without_the_mark_gets_the_note_once_per_command(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    pbn = tmp_path / "session.pbn"
    run(capsys, "generate", "--boards", "1-4", "-o", str(pbn))
    cut = pbn.read_bytes().rsplit(b"\r\n\r\n", 1)[0] + b"\r\n"  # as Big Deal or a scorer writes it: no mark
    pbn.write_bytes(cut)
    err = run(capsys, "records", str(pbn), "-o", str(tmp_path / "r.html"), "--no-dd")
    assert err.count(NOTE) == 1, err
