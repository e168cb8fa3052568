"""`dealer plan`: shows a checked plan; a bad plan is one line on stderr and a non-zero exit."""

from __future__ import annotations

from pathlib import Path

import pytest

from dealer import formats
from dealer.cli import main
from dealer.core.cards import hand_text
from dealer.core.errors import FormatError
from dealer.plan import PlanError
from tests.support.plan_texts import BASE, write


def test_the_plan_is_shown_session_by_session(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, BASE)
    assert main(["plan", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"plan {path}: Test Congress"
    session = next(line for line in out if line.startswith("session 1 MON1"))
    assert "boards 1-4 (4)" in session and "bigdeal (fresh deals)" in session and "20 jobs" in session
    assert "(to be generated)" in session
    assert "  section A: 2 copies, sets A1 A2" in out
    assert "  section B: 3 copies, sets RED BLUE GREEN" in out
    assert "  section C: 1 copy, sets C1, boards 6-7" in out
    mon2 = next(line for line in out if line.startswith("session 2 MON2"))
    assert "shuffle" in mon2 and "dealt all copies of a board" in mon2 and "8 jobs" in mon2
    assert "board sets (6): A1 1-7, A2 1-7, RED 1-4, BLUE 1-4, GREEN 1-4, C1 6-7" in out
    assert "machines (2): M1 /dev/ttyUSB0; M2 rfc2217://dealroom.local:4001" in out
    assert out[-2] == "total: 2 sessions, 7 boards, 28 jobs, 2 machines; 2 deal files to generate (--generate)"
    assert out[-1] == f"ready to deal: dealer deal --plan {path}"


ONE_OF_EACH = '''\
[event]
name = "Club Night"

[[machines]]
name = "M1"
port = "/dev/ttyUSB0"

[[sessions]]
name = "TUE"
boards = "1"

[[sessions.sections]]
name = "A"
'''


@pytest.mark.parametrize(("language", "total"), [
    ("en", "total: 1 session, 1 board, 1 job, 1 machine; 1 deal file to generate (--generate)"),
    ("ru", "всего: 1 сессия, 1 сдача, 1 задание, 1 машина; нужно создать 1 файл раскладов (--generate)")])
def test_a_plan_of_one_of_each_counts_in_words_that_agree(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          language: str, total: str) -> None:
    path = write(tmp_path, ONE_OF_EACH)
    assert main(["--lang", language, "plan", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2] == total
    assert out[2].endswith((", 1 job", ", 1 задание")), out[2]


def test_showing_a_plan_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, BASE)
    assert main(["plan", str(path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["congress.toml"]


def test_a_bad_plan_is_one_line_and_the_format_exit_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = BASE.replace('boards = "5-7"', 'boards = "9-3"')
    path = write(tmp_path, text)
    assert main(["plan", str(path)]) == FormatError.exit_code
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"dealer: error: {path}: sessions[2].boards: 9-3 runs backwards\n"


def test_a_missing_plan_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(tmp_path / "none.toml")]) == FormatError.exit_code
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "none.toml: cannot read the plan" in err


def test_generate_writes_missing_deal_files_once_and_shows_no_deal_or_seed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, BASE.replace('owner = "Test Owner"', 'owner = "Test Owner"\nkeep_seeds = true'))
    assert main(["plan", str(path), "--generate"]) == 0
    captured = capsys.readouterr()
    files = [tmp_path / "deals" / "MON1.pbn", tmp_path / "deals" / "MON2.pbn"]
    generated = [line for line in captured.out.splitlines() if line.startswith("generated ")]
    assert len(generated) == 2 and all(f.name in line for f, line in zip(files, generated, strict=True))
    progress = captured.err.splitlines()  # not a terminal: a line at the start and every tenth of the way
    assert progress[0] == "generating the fresh deals: 0/7 boards"
    assert progress[-1] == "generating the fresh deals: 7/7 boards"
    assert "(exists)" in captured.out and "to generate" not in captured.out
    shown = captured.out + captured.err
    for f in files:
        deals = formats.read_file(f)
        for deal in deals.deals:
            assert hand_text(deal, 0) not in shown
        assert f.with_suffix(".seed").read_text().split()[3] not in shown
    before = [f.read_bytes() for f in files]
    assert main(["plan", str(path), "--generate"]) == 0
    again = capsys.readouterr()
    assert again.err == "" and "generated" not in again.out
    assert [f.read_bytes() for f in files] == before


def test_the_plan_lists_what_dealer_deal_plan_would_refuse_in_the_same_words(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two sessions in the same physical boards and a plan without machines: `dealer plan` shows the plan, lists
    both problems and fails with the first one's exit code; `dealer deal --plan` refuses with that first problem,
    word for word (one validation, not two)."""
    text = BASE.replace('boards = "5-7"', 'boards = "1-3"').replace('boards = "6-7"', 'boards = "2-3"')
    text = text[:text.index("[[machines]]")] + text[text.index("[[sessions]]"):]
    path = write(tmp_path, text)
    assert main(["plan", str(path)]) == PlanError.exit_code == 3  # a plan that cannot be dealt: README's 3
    shown = capsys.readouterr()
    assert shown.out.startswith(f"plan {path}: Test Congress")
    listed = shown.out.split("dealer deal --plan would refuse this plan (2 problems):\n")[1].splitlines()
    assert listed[0] == f"  - {path}: the plan names no machines ([[machines]] with name and port)"
    assert listed[1].startswith("  - sessions MON1 and MON2 both deal into board 1 of set A1 (and ")
    assert shown.err == f"dealer: error: {path}: 2 problems to put right before dealing (listed above)\n"
    assert not (tmp_path / "deals").exists()  # nothing generated, nothing dealt

    assert main(["deal", "--plan", str(path)]) == PlanError.exit_code
    assert capsys.readouterr().err == f"dealer: error: {listed[0].removeprefix('  - ')}\n"
    write(tmp_path, text.replace("[[sessions]]", '[[machines]]\nname = "M1"\nport = "sim://"\n\n[[sessions]]', 1))
    assert main(["deal", "--plan", str(path)]) == PlanError.exit_code
    assert capsys.readouterr().err == f"dealer: error: {listed[1].removeprefix('  - ')}\n"
    assert not (tmp_path / "congress.journal").exists()


def test_a_plan_dealt_whole_is_said_dealt_not_ready(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Once every session is dealt, `dealer plan --generate` says so, never "ready to deal"."""
    text = ('[event]\nname = "Small"\n\n[[machines]]\nname = "M1"\nport = "sim://?speed=500&seed=1"\n\n'
            '[[sessions]]\nname = "S1"\nboards = "1-2"\n\n[[sessions.sections]]\nname = "A"\ncopies = 1\n')
    path = write(tmp_path, text)
    assert main(["plan", str(path), "--generate"]) == 0
    assert "ready to deal" in capsys.readouterr().out
    assert main(["deal", "--plan", str(path), "--plain"]) == 0
    capsys.readouterr()
    assert main(["plan", str(path), "--generate"]) == 0
    out = capsys.readouterr().out
    assert "ready to deal" not in out and "every session of the plan is dealt already" in out, out
