"""`dealer squaredeal` through the command line: the whole cycle, and the WBG 2024 files."""

from __future__ import annotations

import importlib.util
import re
import shutil
import stat
from pathlib import Path

import numpy as np
import pytest

from dealer.cli import main
from dealer.core.cards import from_pbn
from dealer.core.errors import VerificationError

WBG = Path(__file__).resolve().parent.parent / "data" / "squaredeal" / "WBG2024"
needs_pbn = pytest.mark.skipif(importlib.util.find_spec("dealer.formats.pbn") is None,
                               reason="the PBN format (dealer.formats.pbn) is not on this branch yet")


def pbn_boards_and_deals(path: Path) -> tuple[list[int], np.ndarray]:
    text = path.read_text()
    boards = [int(b) for b in re.findall(r'\[Board "(\d+)"\]', text)]
    return boards, np.array([from_pbn(d) for d in re.findall(r'\[Deal "([^"]+)"\]', text)])


def prepared_event(folder: Path) -> Path:
    """create -> add-phase x3 -> publish -> set-dv, returning the .sqd path."""
    sqd = folder / "club.sqd"
    assert main(["squaredeal", "create", str(sqd), "--event", "Club Championship",
                 "--delayed-info", "DJI close on 3 June"]) == 0
    assert main(["squaredeal", "add-phase", str(sqd), "4", "1-8,9-16", "Q#", "Qualification"]) == 0
    assert main(["squaredeal", "add-phase", str(sqd), "2", "3x7", "F##", "Final"]) == 0
    assert main(["squaredeal", "add-phase", str(sqd), "0", "12", "EXTRA#", "Extra sessions"]) == 0
    assert main(["squaredeal", "publish", str(sqd)]) == 0
    assert main(["squaredeal", "set-dv", str(sqd), "38,211.07"]) == 0
    return sqd


def test_preparation_writes_squaredeal_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sqd = prepared_event(tmp_path)
    sqk = tmp_path / "club.sqk"
    assert stat.S_IMODE(sqk.stat().st_mode) == 0o600
    text = sqd.read_text()
    assert "SN 4:1-8,9-16:Q#:Qualification #/4\n" in text
    assert "SN 2:1-7,8-14,15-21:F##:Final #/2\n" in text
    assert "SN 0:12:EXTRA#:Extra sessions #\n" in text
    assert "DV 3821107\n" in text and re.search(r"^KH [0-9a-f]{64}$", text, re.M)
    lines = sqk.read_bytes().split(b"\r\n")
    idents = [line.split(b":")[0].decode() for line in lines[:-1]]
    assert idents == ["1,1", "1,2", "1,3", "1,4", "2,1", "2,2", "3,0"]
    out = capsys.readouterr()
    for line in lines[:-1]:
        assert line.split(b":")[1].decode() not in out.out + out.err  # keys never shown


def test_phases_are_frozen_after_publishing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sqd = prepared_event(tmp_path)
    assert main(["squaredeal", "add-phase", str(sqd), "2", "16", "LATE#"]) == 2
    assert main(["squaredeal", "publish", str(sqd)]) == 2
    assert main(["squaredeal", "set-dv", str(sqd), "1"]) == 2  # already set, no --force
    assert "already published" in capsys.readouterr().err


def test_create_refuses_to_overwrite(tmp_path: Path) -> None:
    sqd = tmp_path / "e.sqd"
    assert main(["squaredeal", "create", str(sqd)]) == 0
    assert main(["squaredeal", "create", str(sqd)]) == 4


def test_verify_rejects_a_key_file_with_one_key_changed(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("WBG2024.sqd", "WBG2024.sqk", "FIN1.pbn"):
        shutil.copy(WBG / name, tmp_path / name)
    sqk = tmp_path / "WBG2024.sqk"
    data = bytearray(sqk.read_bytes())
    data[data.index(b"7,1:") + 4] ^= 0x01
    sqk.write_bytes(bytes(data))
    code = main(["squaredeal", "verify", str(tmp_path / "WBG2024.sqd"), "--sqk", str(sqk),
                 str(tmp_path / "FIN1.pbn")])
    assert code == 8
    assert "does not match the key hash KH" in capsys.readouterr().err


@needs_pbn
def test_full_cycle_create_to_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sqd = prepared_event(tmp_path)
    out = tmp_path / "deals"
    names = ["Q1", "Q2", "Q1-2", "F01", "F02", "EXTRA7"]
    assert main(["squaredeal", "generate", str(sqd), *names, "-o", str(out)]) == 0
    assert main(["squaredeal", "generate", str(sqd), "Q3", "--reserve", "-o", str(out)]) == 0
    files = sorted(out.iterdir())
    assert [f.name for f in files] == sorted([f"{n}.pbn" for n in names] + ["Q3reserve.pbn"])
    assert pbn_boards_and_deals(out / "Q2.pbn")[0] == list(range(9, 17))
    assert pbn_boards_and_deals(out / "F02.pbn")[0] == list(range(8, 15))
    joined = pbn_boards_and_deals(out / "Q1-2.pbn")
    q1, q2 = pbn_boards_and_deals(out / "Q1.pbn"), pbn_boards_and_deals(out / "Q2.pbn")
    assert joined[0] == list(range(1, 17)) and np.array_equal(joined[1], np.concatenate([q1[1], q2[1]]))
    capsys.readouterr()
    assert main(["squaredeal", "verify", str(sqd), "--sqk", str(tmp_path / "club.sqk"),
                 *[str(f) for f in files]]) == 0
    assert capsys.readouterr().out.count(": matches") == len(files)


def altered_fin1(folder: Path, board_index: int, move_only: bool) -> Path:
    """FIN1.pbn with one card of a deal moved from North to East (and, unless `move_only`, one of
    East's cards back to North, so the deal stays legal)."""
    fin1 = (WBG / "FIN1.pbn").read_text()
    deal_text = re.findall(r'\[Deal "([^"]+)"\]', fin1)[board_index]
    deal = from_pbn(deal_text)
    north_card, east_card = int(np.flatnonzero(deal == 0)[0]), int(np.flatnonzero(deal == 1)[0])
    deal[north_card] = 1
    if not move_only:
        deal[east_card] = 0
    hands = [".".join("".join("AKQJT98765432"[r] for r in range(13) if deal[s * 13 + r] == seat)
                      for s in range(4)) for seat in range(4)]
    path = folder / "FIN1.pbn"
    path.write_text(fin1.replace(deal_text, "N:" + " ".join(hands)))
    return path


@needs_pbn
def test_verify_names_the_file_and_board_of_a_changed_deal(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    bad = altered_fin1(tmp_path, 4, move_only=False)
    code = main(["squaredeal", "verify", str(WBG / "WBG2024.sqd"), "--sqk", str(WBG / "WBG2024.sqk"),
                 str(bad), str(WBG / "FIN2.pbn")])
    assert code == 8
    out = capsys.readouterr().out
    assert f"{bad}: board 5: the deal differs" in out
    assert f"{WBG / 'FIN2.pbn'}: matches" in out


@needs_pbn
def test_verify_fails_a_file_with_one_card_moved(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = altered_fin1(tmp_path, 4, move_only=True)  # North 12 cards, East 14
    code = main(["squaredeal", "verify", str(WBG / "WBG2024.sqd"), "--sqk", str(WBG / "WBG2024.sqk"),
                 str(bad)])
    assert code == VerificationError.exit_code
    assert str(bad) in capsys.readouterr().out


@needs_pbn
def test_every_wbg2024_file_verifies(capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted(str(p) for p in WBG.glob("*.pbn"))
    assert len(files) == 10
    assert main(["squaredeal", "verify", str(WBG / "WBG2024.sqd"), "--sqk", str(WBG / "WBG2024.sqk"),
                 *files]) == 0
    assert capsys.readouterr().out.count(": matches") == 10


@needs_pbn
def test_wbg2024_sessions_regenerate_exactly(tmp_path: Path) -> None:
    shutil.copy(WBG / "WBG2024.sqd", tmp_path / "WBG2024.sqd")
    shutil.copy(WBG / "WBG2024.sqk", tmp_path / "WBG2024.sqk")
    names = sorted(p.stem for p in WBG.glob("*.pbn"))
    assert main(["squaredeal", "generate", str(tmp_path / "WBG2024.sqd"), *names,
                 "-o", str(tmp_path / "out")]) == 0
    for name in names:
        ours = pbn_boards_and_deals(tmp_path / "out" / f"{name}.pbn")
        theirs = pbn_boards_and_deals(WBG / f"{name}.pbn")
        assert ours[0] == theirs[0] and np.array_equal(ours[1], theirs[1]), name


@needs_pbn
def test_one_rule_for_joins_fixed_open_or_given_at_generation(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A join whose board numbers repeat is refused naming the sessions, whatever kind of phase; one
    whose numbers do not repeat is written."""
    sqd = tmp_path / "e.sqd"
    assert main(["squaredeal", "create", str(sqd), "--event", "E", "--delayed-info", "DJI"]) == 0
    assert main(["squaredeal", "add-phase", str(sqd), "2", "?", "QQ#", "Boards given later"]) == 0
    assert main(["squaredeal", "add-phase", str(sqd), "0", "12", "X#", "Open"]) == 0
    assert main(["squaredeal", "publish", str(sqd)]) == 0
    assert main(["squaredeal", "set-dv", str(sqd), "1"]) == 0
    out = tmp_path / "deals"
    capsys.readouterr()
    for name, boards in (("QQ1-2", ["--boards", "12"]), ("X1-2", [])):
        assert main(["squaredeal", "generate", str(sqd), name, *boards, "-o", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"'{name}': sessions 1 and 2 both hold boards 1-12;" in err
    assert not out.exists() or list(out.iterdir()) == []
    assert main(["squaredeal", "generate", str(sqd), "QQ1-2", "--boards", "1-12,13-24", "-o", str(out)]) == 0
    assert pbn_boards_and_deals(out / "QQ1-2.pbn")[0] == list(range(1, 25))


def test_a_published_goe_verifies_like_its_pbn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The WBG 2024 .goe files SquareDeal published beside the PBN: each verifies against its session,
    numbered from the session's first board (FIN2 holds boards 17-32); one changed number does not."""
    names = ["FIN1.goe", "FIN2.goe", "QF1.goe", "SF1.goe"]
    for name in ("WBG2024.sqd", "WBG2024.sqk", *names):
        shutil.copy(WBG / name, tmp_path / name)
    assert main(["squaredeal", "verify", str(tmp_path / "WBG2024.sqd"), *(str(tmp_path / n) for n in names)]) == 0
    assert capsys.readouterr().out.count(": matches") == 4
    lines = (tmp_path / "FIN2.goe").read_text().splitlines(keepends=True)
    lines[3] = lines[3][:-2] + str((int(lines[3][-2]) + 1) % 10) + "\n"  # board 20: the last digit changed
    (tmp_path / "FIN2.goe").write_text("".join(lines))
    assert main(["squaredeal", "verify", str(tmp_path / "WBG2024.sqd"), str(tmp_path / "FIN2.goe")]) == 8
    assert "FIN2.goe: board 20: the deal differs" in capsys.readouterr().out


def test_set_dv_warns_when_it_changes_the_value(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """As SquareDeal 2.6 does ("Input changed, Delayed Value is now ..."): a decimal point or a thousands
    comma dropped, or spacing changed, is said on stderr; a value kept as given is not."""
    prepared_event(tmp_path)
    said = capsys.readouterr().err
    assert "input changed (spacing, or '.' and ',' inside numbers dropped): the delayed value is now " \
           "'3821107'" in said
    sqd = tmp_path / "club.sqd"
    assert main(["squaredeal", "set-dv", str(sqd), "3821107", "--force"]) == 0
    assert "input changed" not in capsys.readouterr().err


@needs_pbn
def test_verify_names_a_changed_dealer_and_vulnerability(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The published session fixes each board's dealer and vulnerability: a file that changes either is
    refused naming the board and the field."""
    fin1 = (WBG / "FIN1.pbn").read_text()
    for field, old, new, said in (("dealer", '[Dealer "E"]', '[Dealer "S"]', "board 2: the dealer differs (the "
                                   "file has S, the session E)"),
                                  ("vulnerability", '[Vulnerable "None"]', '[Vulnerable "EW"]', "board 1: the "
                                   "vulnerability differs (the file has EW, the session None)")):
        folder = tmp_path / field
        folder.mkdir()
        (folder / "FIN1.pbn").write_text(fin1.replace(old, new, 1))
        code = main(["squaredeal", "verify", str(WBG / "WBG2024.sqd"), "--sqk", str(WBG / "WBG2024.sqk"),
                     str(folder / "FIN1.pbn")])
        assert code == VerificationError.exit_code
        assert f"{folder / 'FIN1.pbn'}: {said}" in capsys.readouterr().out
