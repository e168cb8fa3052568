"""How a run that did not end well is told (`dealer.dealing.run.raise_for`): the error of the machine that
left it keeps its class and exit code whatever that class's constructor takes, named once, with what is left."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer import formats
from dealer.cli import main
from dealer.core.errors import DealerError, DeviceDisconnected, DeviceTimeout, MachineFaultError
from dealer.dealing import sim_ports
from dealer.dealing.machine import CommandRefused, DealingFault
from dealer.dealing.run import RunResult, raise_for
from tests.support.controllers import deal_set


@pytest.fixture(autouse=True)
def _stop_simulators() -> Iterator[None]:
    """The simulated machines a test's in-process `dealer deal` started on ``sim://`` ports go with it."""
    yield
    sim_ports.stop_all()



def ended(failure: DealerError, *, verified: int = 3) -> RunResult:
    return RunResult(run_id=1, verified=verified, jobs=4, unresolved=["board 4: planned"] if verified < 4 else [],
                     stopped=[], errors=[], summary="", failures=(("m2", failure),))


@pytest.mark.parametrize("failure", [
    CommandRefused("LoadDeal", 2, 0, board=4),
    DeviceTimeout("m2: no answer for 30 s"),
    DeviceDisconnected("the port was closed"),
    MachineFaultError("m2: jammed for good", code=19, board=4),
], ids=lambda e: type(e).__name__)
def test_the_machine_s_error_keeps_its_class_and_code_and_says_what_is_left(failure: DealerError) -> None:
    with pytest.raises(type(failure)) as raised:
        raise_for(ended(failure))
    told = raised.value
    assert told.exit_code == failure.exit_code and str(told).count("m2") == 1, told
    assert str(told).endswith("(1 board left; continue with --resume)"), told
    assert vars(told) == vars(failure)  # its fields (code, board, reason ...) as the machine gave them


def test_a_refused_command_is_exit_7_in_one_line() -> None:
    with pytest.raises(CommandRefused) as raised:
        raise_for(ended(CommandRefused("StartDeal", 1, 0, board=4)))
    assert raised.value.exit_code == 7 and "\n" not in str(raised.value)
    assert isinstance(raised.value, MachineFaultError) and not isinstance(raised.value, DealingFault)


def test_boards_out_of_attempts_name_max_attempts_and_a_resume_with_more_deals_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A board that faults on its last attempt is left to the director: the run's one line says so and how
    to give it more attempts; following it deals the board (on a machine without the fault)."""
    session = tmp_path / "s.pbn"
    formats.write_file(session, deal_set(12, 2))
    plan = tmp_path / "faults.json"
    plan.write_text(json.dumps([{"kind": "misfeed", "board": 1, "card": 5}]))  # silent: the recount finds it
    faulty = f"sim://?speed=500&faults={plan}"
    assert main(["deal", str(session), "--port", faulty, "--quiet", "--max-attempts", "1"]) == 8
    (line,) = [x for x in capsys.readouterr().err.splitlines() if x.startswith("dealer: error: ")]
    assert "1 board not verified: board 1 copy 1: faulted" in line, line
    assert "1 board was dealt 1 time, all --max-attempts allows" in line and "--resume --max-attempts 2" in line
    assert main(["deal", str(session), "--port", "sim://?speed=500&seed=3", "--quiet", "--resume",
                 "--max-attempts", "2"]) == 0


def test_a_resume_of_a_finished_run_says_so_and_succeeds_opening_no_machine(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """After a run whose other machines dealt every board, the --resume its lost machine's line invites has
    nothing to do: it says so and exits 0, without opening a port (this one does not exist)."""
    session = tmp_path / "s.pbn"
    formats.write_file(session, deal_set(13, 2))
    assert main(["deal", str(session), "--port", "sim://?speed=500", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["deal", str(session), "--port", "/dev/no-such-port", "--quiet", "--resume"]) == 0
    out = capsys.readouterr().out
    assert "every board of run 1 (s) was verified already (2 boards): nothing left to resume" in out, out


def test_power_cuts_one_after_another_within_a_board_are_ridden_through(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Four power cuts in quick succession (the machine restarting each time, mid-board) stop nothing: each
    is counted as what it was, and every board is verified."""
    session = tmp_path / "s.pbn"
    formats.write_file(session, deal_set(14, 4))
    plan = tmp_path / "faults.json"
    plan.write_text(json.dumps([{"kind": "power_loss", "frame": f} for f in (8, 11, 14, 17)]))
    assert main(["deal", str(session), "--port", f"sim://?speed=500&faults={plan}", "--plain"]) == 0
    captured = capsys.readouterr()
    assert "4/4 boards verified" in captured.out and "Traceback" not in captured.err, captured.out
    cuts = re.search(r"power cut x(\d+)", captured.out)
    # a cut that lands between two boards (where the line's frames put it) interrupts no board
    assert cuts is not None and int(cuts[1]) >= 3 and f"interruptions {cuts[1]}," in captured.out, captured.out
    assert "controller stopped" not in captured.out + captured.err


def test_a_signal_while_the_stations_start_stops_the_run_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A signal that lands while the station threads are being started (the first one not yet running) ends
    the run as any signal does: one line, exit 130, the run resumable; never a traceback from joining a
    thread that never started."""
    import threading

    from dealer.core.errors import Interrupted

    session = tmp_path / "s.pbn"
    formats.write_file(session, deal_set(15, 2))
    port = "sim://?speed=500&seed=9"
    real_start = threading.Thread.start

    def start(thread: threading.Thread) -> None:
        if thread.name == port:  # the station's thread: the signal comes as it is started
            raise Interrupted("SIGHUP")
        real_start(thread)

    monkeypatch.setattr(threading.Thread, "start", start)
    assert main(["deal", str(session), "--port", port, "--quiet"]) == 130
    (line,) = [x for x in capsys.readouterr().err.splitlines() if x.startswith("dealer: ")][-1:]
    assert line.startswith("dealer: interrupted (SIGHUP): 2 of 2 boards left; resume with: dealer deal"), line
    monkeypatch.undo()
    assert main(["deal", str(session), "--port", port, "--quiet", "--resume"]) == 0
