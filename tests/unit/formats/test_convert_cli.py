"""`dealer convert` through `dealer.cli.main`: every pair of formats keeps every deal, board, dealer
and vulnerability the target can hold; refusals are one line and leave nothing behind."""

from __future__ import annotations

from itertools import permutations
from pathlib import Path

import numpy as np
import pytest

from dealer.cli import main
from dealer.core.cards import hand_text
from dealer.core.dealset import DealSet
from dealer.formats import read_file, write_file
from tests.support.deals import random_deals
from tests.support.format_round_trips import KEEP_EVERYTHING, KEEP_NUMBERS, OURS

FORMATS = ("pbn", *OURS)
LAW2_SET = DealSet.from_deals(random_deals(31, 5))  # boards 1-5: every format holds all of it


def convert(tmp_path: Path, source: str, target: str, deals: DealSet, *extra: str) -> tuple[int, Path]:
    src = tmp_path / f"in.{source}"
    if not src.exists():
        write_file(src, deals)
    out = tmp_path / f"out.{target}"
    return main(["convert", str(src), str(out), *extra]), out


@pytest.mark.parametrize("source, target", list(permutations(FORMATS, 2)))
def test_every_pair_keeps_every_deal_board_dealer_and_vulnerability(tmp_path: Path, source: str,
                                                                    target: str) -> None:
    code, out = convert(tmp_path, source, target, LAW2_SET)
    assert code == 0
    assert read_file(out).same_deals(LAW2_SET)


NUMBERED = [f for f in FORMATS if f in KEEP_EVERYTHING or f in KEEP_NUMBERS]


@pytest.mark.parametrize("source, target", list(permutations(NUMBERED, 2)))
def test_board_numbers_survive_between_formats_that_hold_them(tmp_path: Path, source: str,
                                                              target: str) -> None:
    run = LAW2_SET.renumbered([17, 18, 19, 20, 21])
    code, out = convert(tmp_path, source, target, run)
    assert code == 0
    assert read_file(out).same_deals(run)


FREE = [f for f in FORMATS if f in KEEP_EVERYTHING]


@pytest.mark.parametrize("source, target", list(permutations(FREE, 2)))
def test_dealer_and_vulnerability_off_law_2_survive_where_held(tmp_path: Path, source: str,
                                                               target: str) -> None:
    odd = DealSet(np.array([3, 33, 40, 7, 1000]), LAW2_SET.deals, np.array([0, 3, 2, 1, 0]),
                  np.array([3, 2, 1, 0, 3]))
    code, out = convert(tmp_path, source, target, odd)
    assert code == 0
    assert read_file(out).same_deals(odd)


@pytest.mark.parametrize("target", ["dup", "dlm"])
def test_a_run_beyond_board_99_is_refused_and_nothing_written(tmp_path: Path, target: str,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, out = convert(tmp_path, "json", target, LAW2_SET.renumbered([97, 98, 99, 100, 101]))
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "1-99" in err and "101" in err and "--split" in err
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.json"]


def test_existing_output_needs_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "out.bri").write_bytes(b"keep me")
    code, out = convert(tmp_path, "dup", "bri", LAW2_SET)
    assert code == 4 and out.read_bytes() == b"keep me"
    assert "--force" in capsys.readouterr().err
    code, out = convert(tmp_path, "dup", "bri", LAW2_SET, "--force")
    assert code == 0 and read_file(out).same_deals(LAW2_SET)


def test_a_bad_input_is_one_line_naming_file_and_board(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.dup"
    write_file(src, LAW2_SET)
    data = bytearray(src.read_bytes())
    data[156 + 3] = ord("9")  # board 2's second card number changes
    src.write_bytes(bytes(data))
    code = main(["convert", str(src), str(tmp_path / "out.pbn")])
    err = capsys.readouterr().err
    assert code == 3 and err.count("\n") == 1
    assert str(src) in err and "board 2" in err and "byte" in err
    assert not (tmp_path / "out.pbn").exists()


def test_formats_named_by_option_and_unknown_extensions(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "deals.txt"
    write_file(src, LAW2_SET, "csv")
    assert main(["convert", str(src), str(tmp_path / "x.json")]) == 2
    assert "--from" in capsys.readouterr().err
    assert main(["convert", str(src), str(tmp_path / "y.out"), "--from", "csv", "--to", "lin"]) == 0
    assert read_file(tmp_path / "y.out", "lin").same_deals(LAW2_SET)


def test_blind_applies_to_dup_and_dlm_and_sealed_inputs_stay_sealed(tmp_path: Path) -> None:
    assert main(["convert", *(str(tmp_path / n) for n in ("a.json", "b.bri")), "--blind"]) == 2
    code, sealed = convert(tmp_path, "json", "dlm", LAW2_SET, "--blind")
    assert code == 0 and b"Status=Sealed" in sealed.read_bytes()
    assert main(["convert", str(sealed), str(tmp_path / "s.dup")]) == 0
    assert (tmp_path / "s.dup").read_bytes()[78:146] == b" " * 68
    assert main(["convert", str(sealed), str(tmp_path / "open.dup"), "--no-blind"]) == 0
    assert (tmp_path / "open.dup").read_bytes()[78:79] == b"\x06"
    assert read_file(tmp_path / "s.dup").same_deals(LAW2_SET)


def test_nothing_secret_is_printed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = convert(tmp_path, "json", "csv", LAW2_SET)
    shown = capsys.readouterr()
    assert code == 0 and shown.out.startswith("converted 5 boards (1-5) from JSON to CSV")  # the result
    hands = [hand_text(deal, seat) for deal in LAW2_SET.deals for seat in range(4)]
    assert not [h for h in hands if h in shown.err + shown.out]
