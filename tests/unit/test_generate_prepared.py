"""`dealer generate --where`: prepared boards. The deals meet the condition (read back from the file and counted
again by hand), boards keep Law 2's dealer and vulnerability in every format, --seed reproduces a run, predealt
cards are in place, --turn-to-dealer turns each deal, and a script that cannot run is one line with its exit code."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from dealer.cli import main
from dealer.core.boards import dealer_of, vulnerability_of
from dealer.formats import read_file

SEED = "ab" * 20
HCP = {0: 4, 1: 3, 2: 2, 3: 1}


def hcp(deal: np.ndarray, seat: int) -> int:
    return sum(HCP.get(card % 13, 0) for card in range(52) if deal[card] == seat)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("suffix", ["pbn", "dup", "json", "lin"])
def test_24_boards_each_with_north_20_or_more_dealer_and_vulnerability_by_law_2(
        suffix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / f"lesson.{suffix}"
    code, shown, err = run(["generate", "--boards", "1-24", "--where", "hcp(north) >= 20", "--seed", SEED,
                            "-o", str(out)], capsys)
    assert code == 0, err
    assert "prepared boards: 24 deals met the condition among" in shown
    assert "not for an event (Law 6E4)" in err
    back = read_file(out)
    assert back.boards.tolist() == list(range(1, 25))
    assert all(hcp(deal, 0) >= 20 for deal in back.deals)
    assert [int(d) for d in back.dealers] == [dealer_of(b) for b in range(1, 25)]
    assert [int(v) for v in back.vulnerabilities] == [int(vulnerability_of(b)) for b in range(1, 25)]


def test_the_same_seed_makes_the_same_boards_and_the_file_names_its_conditions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["generate", "--count", "8", "--where", "spades(south) >= 6 and hcp(south) >= 10", "--seed", SEED]
    assert run(args + ["-o", str(tmp_path / "a.pbn")], capsys)[0] == 0
    assert run(args + ["-o", str(tmp_path / "b.pbn"), "--engine", "bigdeal"], capsys)[0] == 0
    a, b = read_file(tmp_path / "a.pbn"), read_file(tmp_path / "b.pbn")
    assert a.same_deals(b)
    assert 'prepared, Law 6E4: spades(south) >= 6 and hcp(south) >= 10"]' in (tmp_path / "a.pbn").read_text()
    plain = ["generate", "--count", "8", "--seed", SEED, "-o", str(tmp_path / "c.pbn")]
    assert run(plain, capsys)[0] == 0
    assert not a.same_deals(read_file(tmp_path / "c.pbn"))


def test_predealt_cards_are_in_place_and_the_rest_is_dealt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "p.dlr"
    script.write_text("predeal south SAQ542, HKJ87, D32, CAK\npredeal north S3\nhcp(west) >= 12\n")
    code, _, err = run(["generate", "--count", "12", "--where", str(script), "--seed", SEED,
                        "-o", str(tmp_path / "p.pbn")], capsys)
    assert code == 0, err
    deals = read_file(tmp_path / "p.pbn").deals
    south = [0, 2, 9, 10, 12, 14, 16, 19, 20, 37, 38, 39, 40]  # SAQ542 HKJ87 D32 CAK
    assert (deals[:, south] == 2).all() and (deals[:, 11] == 0).all()
    assert all(hcp(deal, 3) >= 12 for deal in deals)
    assert len({d.tobytes() for d in deals}) == 12


def test_turn_to_dealer_puts_the_scripts_dealer_at_law_2s_dealer_and_the_report_keeps_the_statistics(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "open.dlr"
    script.write_text("dealer south\nhcp(south) >= 20\naction average \"pts\" hcp(south), "
                      "frequency \"hcp\" (hcp(south), 20, 22)\n")
    report = tmp_path / "r.json"
    code, shown, _ = run(["generate", "--count", "8", "--where", str(script), "--seed", SEED, "--turn-to-dealer",
                          "--report", str(report), "-o", str(tmp_path / "t.pbn")], capsys)
    assert code == 0
    deals = read_file(tmp_path / "t.pbn").deals
    assert all(hcp(deal, dealer_of(board)) >= 20 for board, deal in zip(range(1, 9), deals, strict=True))
    kept = json.loads(report.read_text())
    average = kept["statistics"][0]
    assert average["label"] == "pts" and f"pts: {average['average']:g}\n" in shown
    assert "Frequency hcp:\n" in shown and sum(kept["statistics"][1]["counts"]) + kept["statistics"][1]["above"] == 8
    assert kept["deals_kept"] == 8 and kept["deals_examined"] >= 8 and kept["turned_to_dealer"] is True


@pytest.mark.parametrize(("where", "code", "words"), [
    ("hcp(north) >= ", 2, "--where, line 1, column 12: syntax error"),
    ("tricks(north, spades) >= 10", 2, "tricks is not supported here"),
    ("hcp(north) >= 38", 3, "0 of 4 deals met the condition in 1000 deals examined (rate 0)"),
])
def test_a_script_that_cannot_run_is_one_line_and_its_exit_code(where: str, code: int, words: str, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    got, _, err = run(["generate", "--count", "4", "--where", where, "--max-deals", "1000", "--seed", SEED,
                       "-o", str(tmp_path / "x.pbn")], capsys)
    assert got == code
    lines = err.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], err
    assert not (tmp_path / "x.pbn").exists()


def test_a_script_file_with_an_error_names_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "bad.dlr"
    script.write_text("# a lesson\nopener = hcp(north) >= 12\nopener and spade(north) >= \n")
    got, _, err = run(["generate", "--count", "4", "--where", str(script), "-o", str(tmp_path / "x.pbn")], capsys)
    assert got == 2 and f"{script}, line 3, column " in err and len(err.strip().splitlines()) == 1


def test_prepared_options_need_where(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    got, _, err = run(["generate", "--count", "4", "--turn-to-dealer", "-o", str(tmp_path / "x.pbn")], capsys)
    assert got == 2 and "--turn-to-dealer applies to prepared boards: give --where too" in err


@pytest.mark.parametrize("engine, seed", [("bigdeal", SEED), ("shuffle", "cd" * 32)])
def test_the_boards_do_not_depend_on_the_number_of_threads(engine: str, seed: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    # a rare condition (about 1 deal in 200) with a predealt card: many batches judged at once on 3 threads
    # (bigdeal's drawn in turn on a thread of their own, shuffle's on the judges' threads)
    script = tmp_path / "rare.dlr"
    script.write_text("predeal north SA\ncondition hcp(north) >= 20 and hearts(south) >= 5\n")
    files = []
    for threads in ("1", "3"):
        out = tmp_path / f"t{threads}.pbn"
        code, shown, _ = run(["generate", "--count", "40", "--where", str(script), "--seed", seed, "--engine", engine,
                              "--threads", threads, "-o", str(out)], capsys)
        assert code == 0
        files.append((read_file(out), re.search(r"among ([\d,]+) examined", shown)))
    (one, examined_one), (three, examined_three) = files
    assert one.same_deals(three)
    assert examined_one is not None and examined_three is not None
    assert examined_one.group(1) == examined_three.group(1)
    assert all(hcp(deal, 0) >= 20 and int(np.count_nonzero(deal[13:26] == 2)) >= 5 for deal in one.deals)
