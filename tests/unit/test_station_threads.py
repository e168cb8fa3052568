"""What stops a station thread is reported through the run, never by the thread: a bug in a station (here a
machine driver that fails with an unexpected exception) ends the run with one line and exit code 1, every
other station stopped, and no traceback printed by the thread (`threading.excepthook` is never reached)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from dealer.cli import main
from dealer.dealing import run
from dealer.dealing.machine import CommandRefused
from firmware_protocol import RefuseReason
from tests.support.controllers import deal_set


class BrokenMachine:
    """A machine whose driver has a bug: connecting raises an exception nobody planned for."""

    def __init__(self, url: str) -> None:
        self.name = url
        self.abandoned = False

    def connect(self) -> Any:
        raise RuntimeError("a bug in the driver")

    def abandon(self) -> None:
        self.abandoned = True

    def close(self) -> None:
        pass


def test_a_bug_in_a_station_thread_is_one_line_and_exit_1_not_a_thread_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from dealer import formats

    deal_file = tmp_path / "s.pbn"
    formats.write_file(deal_file, deal_set(3, 2))
    seen: list[threading.ExceptHookArgs] = []
    monkeypatch.setattr(threading, "excepthook", seen.append)
    made: list[BrokenMachine] = []

    def machines(options: run.RunOptions, names: list[str]) -> list[Any]:
        made.extend(BrokenMachine(name) for name in names)
        return list(made)

    monkeypatch.setattr(run, "_machines", machines)
    code = main(["deal", str(deal_file), "--port", "m1", "--port", "m2", "--journal", str(tmp_path / "j")])
    err = capsys.readouterr().err
    assert code == 1, err
    assert seen == []
    assert "Traceback" not in err
    (line,) = [line for line in err.splitlines() if line.startswith("dealer: error: ")]
    assert "unexpected error: RuntimeError: a bug in the driver" in line
    assert all(machine.abandoned for machine in made)


class RefusingMachine(BrokenMachine):
    """A machine that refuses the first command with no board in it: an error with more than a message."""

    def connect(self) -> Any:
        raise CommandRefused("Recount", RefuseReason.NO_BOARD, 0)


def test_a_machine_lost_on_a_refusal_is_one_line_with_its_exit_code(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The run's summary error is worded again (the machine, the boards left) in the class of the machine's
    own error, even one whose constructor takes more than a message: exit code 7 (a machine fault)."""
    from dealer import formats

    deal_file = tmp_path / "s.pbn"
    formats.write_file(deal_file, deal_set(3, 2))
    monkeypatch.setattr(run, "_machines", lambda options, names: [RefusingMachine(name) for name in names])
    code = main(["deal", str(deal_file), "--port", "m1", "--journal", str(tmp_path / "j")])
    err = capsys.readouterr().err
    assert code == 7, err
    assert "Traceback" not in err
    (line,) = [line for line in err.splitlines() if line.startswith("dealer: error: ")]
    assert line == ("dealer: error: m1: the machine refused to recount the board: there is no board in it "
                    "(2 boards left; continue with --resume)")
