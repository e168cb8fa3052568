"""`dealer generate --boards` and `--count`: a lone number is one board and says so in words that cannot
be misread; --count N is boards 1-N, as bigdealx -n N."""

from __future__ import annotations

from pathlib import Path

import pytest

from dealer.cli import main
from dealer.formats import read_file

SEED = "ab" * 20


def test_a_lone_number_is_that_board_and_the_message_says_so(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "one.pbn"
    assert main(["generate", "--boards", "16", "--seed", SEED, "-o", str(out)]) == 0
    shown = capsys.readouterr().out
    assert f"wrote 1 board: board 16 to {out}" in shown
    assert "--count 16 makes boards 1-16, as bigdealx -n 16 does" in shown
    assert read_file(out).boards.tolist() == [16]


def test_count_n_is_boards_1_to_n_the_same_deals_as_the_range(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "--count", "16", "--seed", SEED, "-o", str(tmp_path / "c.pbn")]) == 0
    assert "wrote 16 boards: boards 1-16" in capsys.readouterr().out
    assert main(["generate", "--boards", "1-16", "--seed", SEED, "-o", str(tmp_path / "r.pbn")]) == 0
    counted, ranged = read_file(tmp_path / "c.pbn"), read_file(tmp_path / "r.pbn")
    assert counted.boards.tolist() == list(range(1, 17)) and counted.same_deals(ranged)


@pytest.mark.parametrize(("argv", "message"), [
    (["--count", "0"], "--count must be 1 or more"),
    (["--count", "4", "--blind"], "--blind applies to DUP and DLM files, not PBN"),
])
def test_bad_counts_are_refused(argv: list[str], message: str, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", *argv, "-o", str(tmp_path / "x.pbn")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.pbn").exists()


@pytest.mark.parametrize(("argv", "message"), [
    (["--count", "4", "--boards", "1-4"], "not allowed with argument"),
    ([], "one of the arguments --boards --count is required"),
])
def test_boards_and_count_are_one_or_the_other(argv: list[str], message: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", *argv, "-o", str(tmp_path / "x.pbn")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and err.startswith("dealer: error: ")
    assert "(see dealer generate --help)" in err


def test_two_outputs_hold_the_same_deals_as_bigdealx_f_dup_pbn(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    pbn, dup = tmp_path / "a.pbn", tmp_path / "a.dup"
    assert main(["generate", "--boards", "1-16", "--seed", SEED, "-o", str(pbn), "-o", str(dup), "--blind"]) == 0
    shown = capsys.readouterr()
    assert shown.out == f"wrote 16 boards: boards 1-16 to {pbn} and {dup} with engine bigdeal\n"
    assert main(["generate", "--boards", "1-16", "--seed", SEED, "-o", str(tmp_path / "one.pbn"), "-o",
                 str(tmp_path / "open.dup")]) == 0
    alone = read_file(tmp_path / "one.pbn")
    assert read_file(pbn).same_deals(alone) and read_file(tmp_path / "open.dup").same_deals(alone)
    assert read_file(dup).deals[1:].tolist() == alone.deals[1:].tolist()  # --blind: the DUP file alone, board 1
    assert dup.read_bytes() != (tmp_path / "open.dup").read_bytes()


@pytest.mark.parametrize(("outputs", "more", "message", "code"), [
    (["a.pbn", "a.pbn"], [], "a.pbn is given twice: each -o names a file of its own", 2),
    (["a.pbn", "a.dup"], ["--format", "pbn"], "--format names the format of one -o file", 2),
    (["a.pbn", "c.dup"], ["--boards", "1-200"], "c.dup: DUP holds boards 1-99 only", 3),
    (["a.pbn", "exists.dup"], [], "exists.dup: exists; use --force", 4),
])
def test_two_outputs_are_checked_before_either_is_written(outputs: list[str], more: list[str], message: str, code: int,
                                                          tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "exists.dup").write_bytes(b"keep me")
    argv = ["generate", "--seed", SEED, *[a for o in outputs for a in ("-o", str(tmp_path / o))], *more]
    if "--boards" not in more:
        argv += ["--boards", "1-16"]
    assert main(argv) == code
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exists.dup"]
    assert (tmp_path / "exists.dup").read_bytes() == b"keep me"
