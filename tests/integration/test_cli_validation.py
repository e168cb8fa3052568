"""Every option checked before anything is written, through `dealer` as users run it: each bad command of the
issue ends in one error line with its documented exit code, leaves nothing behind (no journal, no report, no
deal in the history, no board dealt by the simulated machine's ledger), and the correct command that follows
works without anything deleted by hand.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer import formats
from dealer.cli import main
from dealer.core import errors
from dealer.dealing import sim_ports
from dealer.journal.history import DealHistory
from tests.support.controllers import deal_set, dealings
from tests.support.plan_texts import BASE, write
from tests.support.processes import ENV

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sim:// ports need a pty (Linux CI)")

CODES = {cls.__name__: cls.exit_code for cls in (errors.UsageError, errors.OutputError, errors.JournalError)}


@pytest.fixture(autouse=True)
def _stop_simulators() -> Iterator[None]:
    yield
    sim_ports.stop_all()


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / "session.pbn"
    formats.write_file(path, deal_set(11, 4))
    return path


def error_lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return [line for line in err.splitlines() if line.startswith("dealer: error:")]


def run(argv: list[str]) -> int:
    """`dealer` in this process (what the console script runs): its exit code."""
    return main(argv)


# (options after `dealer deal FILE --port URL`, the exit code, words the one error line holds)
REFUSED = [
    (["--set", "bad set!"], "UsageError", "board set name 'bad set!' must be 1-12 letters or digits"),
    (["--set", "A-1"], "UsageError", "board set name 'A-1'"),
    (["--set", "ABCDEFGHIJKLM"], "UsageError", "'ABCDEFGHIJKLM' must be 1-12 letters or digits"),
    (["--set", "ABCDEFGHIJKL", "--copies", "2"], "UsageError",
     "'ABCDEFGHIJKL' leaves no room for the copy number: copy 1 of 2 goes into set ABCDEFGHIJKL1"),
    (["--copies", "0"], "UsageError", "argument --copies: must be at least 1; got 0"),
    (["--copies", "-2"], "UsageError", "argument --copies: must be at least 1; got -2"),
    (["--deal-timeout", "-1"], "UsageError", "argument --deal-timeout: must be a number of seconds above 0"),
    (["--deal-timeout", "nan"], "UsageError", "argument --deal-timeout"),
    (["--board-timeout", "0"], "UsageError", "argument --board-timeout"),
    (["--board-timeout", "inf"], "UsageError", "argument --board-timeout"),
    (["--max-attempts", "0"], "UsageError", "argument --max-attempts: must be at least 1; got 0"),
    (["--boards", "3-1"], "UsageError", "3-1 runs backwards"),
    (["--report", "{tmp}/nodir/run.json"], "OutputError", "folder {tmp}/nodir does not exist"),
    (["--report", "{tmp}/old.json"], "OutputError", "{tmp}/old.json: exists; use --force to replace it"),
    (["--resume"], "JournalError", "no such journal, so no run to resume"),
    (["--journal", "{tmp}/nodir/j"], "JournalError", "{tmp}/nodir/j: the journal's folder {tmp}/nodir does not exist"),
    (["--journal", "{tmp}/folder"], "JournalError", "{tmp}/folder: is a folder, not a journal file"),
    (["--report", "{tmp}/session.pbn", "--force"], "UsageError", "is the deal file: give the report a file of its own"),
    (["--port", "sim://?speed=500&seed=1"], "UsageError", "--port sim://?speed=500&seed=1 is given twice"),
]


@pytest.mark.parametrize(("options", "error", "words"), REFUSED, ids=[" ".join(r[0]) for r in REFUSED])
def test_a_bad_deal_option_is_one_line_and_leaves_nothing_that_blocks_the_next_run(
        options: list[str], error: str, words: str, session: Path, tmp_path: Path, deal_history: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    old_report = tmp_path / "old.json"
    old_report.write_text("kept\n")
    (tmp_path / "folder").mkdir()
    before = set(os.listdir(tmp_path))
    url = "sim://?speed=500&seed=1"
    given = [o.replace("{tmp}", str(tmp_path)) for o in options]
    assert run(["deal", str(session), "--port", url, "--quiet", *given]) == CODES[error]
    (line,) = error_lines(capsys)
    assert words.replace("{tmp}", str(tmp_path)) in line
    assert set(os.listdir(tmp_path)) == before  # no journal, no lock, no report, no temporary file
    assert old_report.read_text() == "kept\n"
    assert dealings(url) == 0
    with DealHistory.open(deal_history) as history:
        assert len(history) == 0  # nothing recorded as dealt

    good = "sim://?speed=500&seed=2"
    assert run(["deal", str(session), "--port", good, "--quiet"]) == 0
    assert dealings(good) == 4


def test_a_bad_sim_port_is_refused_before_the_journal_is_made(session: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    before = set(os.listdir(tmp_path))
    assert run(["deal", str(session), "--port", "sim://?speed=0", "--quiet"]) == 2
    (line,) = error_lines(capsys)
    assert "sim://?speed=0: simulator speed must be 0.01 to 10000 (times a real machine's), got 0" in line
    assert set(os.listdir(tmp_path)) == before


def test_an_existing_report_is_replaced_with_force(session: Path, tmp_path: Path) -> None:
    report = tmp_path / "run.txt"
    report.write_text("an older report\n")
    assert run(["deal", str(session), "--port", "sim://?speed=500", "--quiet", "--report", str(report),
                "--force"]) == 0
    assert report.read_text().startswith("Run report of ")


@pytest.mark.parametrize(("argv", "words"), [
    (["generate", "--boards", "1-4", "--seed", "", "-o", "{tmp}/s.pbn"], "argument --seed: is empty"),
    (["generate", "--boards", "1-4", "--seed", "  ", "-o", "{tmp}/s.pbn"], "argument --seed: is empty"),
    (["labels", "--set", "A-1", "--boards", "1-4", "-o", "{tmp}/l.svg"], "board set name 'A-1'"),
    (["labels", "--set", "A", "--boards", "1-4", "--copies", "0", "-o", "{tmp}/l.svg"], "argument --copies"),
    (["records", "{tmp}/session.pbn", "--per-page", "0", "-o", "{tmp}/r.html"], "argument --per-page"),
    (["demo", "--speed", "0"], "argument --speed: must be a number above 0"),
    (["demo", "--machines", "0"], "argument --machines"),
    (["demo", "--machines", "99"], "--machines 99: the demo runs 1 to 8 machines"),
    (["demo", "--keep", "{tmp}/session.pbn"], "session.pbn: is a file, not a folder"),
    (["stats", "--shuffle-model", "3", "--deals", "0"], "--deals must be at least 1"),
    (["check", "{tmp}/session.pbn", "--port", "sim://", "--set", "BAD SET"], "board set name 'BAD SET'"),
    (["check", "{tmp}/session.pbn", "--port", "sim://", "--board-timeout", "-5"], "argument --board-timeout"),
])
def test_bad_options_of_other_commands_are_one_line_and_exit_2(
        argv: list[str], words: str, session: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = set(os.listdir(tmp_path))
    assert run([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    (line,) = error_lines(capsys)
    assert words in line
    assert set(os.listdir(tmp_path)) == before


def test_a_plan_with_a_sim_port_the_simulator_refuses_is_named_by_plan_and_refused_before_anything_is_made(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan = write(tmp_path, BASE.replace('port = "/dev/ttyUSB0"', 'port = "sim://?speed=0"')
                 .replace('port = "rfc2217://dealroom.local:4001"', 'port = "sim://?speed=500"'))
    assert run(["plan", str(plan)]) == 3  # a plan that is not valid
    out = capsys.readouterr()
    assert (f"{plan}: machine M1: sim://?speed=0: simulator speed must be 0.01 to 10000 (times a real machine's), "
            "got 0") in out.out + out.err
    before = set(os.listdir(tmp_path))
    assert run(["deal", "--plan", str(plan), "--quiet"]) == 3
    (line,) = error_lines(capsys)
    assert "machine M1: sim://?speed=0: simulator speed must be 0.01 to 10000 (times a real machine's), got 0" in line
    made = set(os.listdir(tmp_path)) - before
    assert made <= {"congress.journal.lock"}  # no deal file generated, no journal; the lock file blocks nothing
    assert not (tmp_path / "deals").exists() and dealings("sim://?speed=500") == 0


def test_a_file_that_cannot_be_written_whole_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    """A real write failure (the file-size limit of `ulimit -f`, as a full disk would do): `dealer generate`
    says which file in one line, exits with the output error's code, and leaves no file behind."""
    limit = 64 * 1024  # the 30 MB file of 100,000 boards stops far short of it
    proc = subprocess.run([sys.executable, "-m", "dealer", "generate", "--boards", "1-100000", "-o", "big.pbn"],
                          cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=300,
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)))
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == errors.OutputError.exit_code == 4, proc.stderr
    assert len(lines) == 1 and lines[0].startswith("dealer: error: ") and "big.pbn: cannot be written" in lines[0]
    assert os.listdir(tmp_path) == []
