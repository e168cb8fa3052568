"""How a run recovers: from a wrong board the operator brought (without waiting in vain), and, on resume,
from a board left FAULTED (its redeal interrupted, or out of attempts): emptied and dealt again from the
same deal, on the machine that holds it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dealer.core.cards import pack
from dealer.dealing.machine import Machine, MachineState
from dealer.dealing.sim_ports import loopback_opener
from dealer.journal.store import JobState, Journal
from firmware_protocol import Fault, FaultCode, Progress
from firmware_protocol.labels import BoardLabel
from hil.config import SimConfig
from hil.fault_plan import FaultPlan
from hil.loopback import Loopback
from tests.support.deals import hands_of
from tests.support.loopback_run import deals_for, run_on_loopback
from tests.support.physical_truth import check_physical_truth


@pytest.fixture(autouse=True)
def _no_leaks(hil_leak_check: None) -> Iterator[None]:
    yield


def test_a_board_left_faulted_is_emptied_and_redealt_on_resume(tmp_path: Path) -> None:
    deals = deals_for((1, 2, 3))
    config = SimConfig(seed=4, faults=FaultPlan.of({"kind": "misfeed", "board": 2, "card": 7}))
    with Loopback(config) as loop:
        first, _ = run_on_loopback(loop, deals, tmp_path / "j.db", max_attempts=1)
        assert not first.complete and first.unresolved == ["board 2 copy 1: faulted"]
        second, text = run_on_loopback(loop, deals, tmp_path / "j.db", resume=True)
        label = BoardLabel.for_board("A", 2).payload()
        records = loop.device.ledger.for_label(label)
        board = next(b for b in loop.device.room.rack.in_use() if b.label.decode() == label)
    assert second.complete, text
    assert "faulted before the stop" in text
    assert len(records) == 2 and records[0].deal == records[1].deal == bytes(pack(deals.deals[1]))
    assert [sorted(h) for h in board.hands()] == hands_of(deals.deals[1])
    with Journal.open(tmp_path / "j.db") as journal:
        assert journal.check_consistency(first.run_id) == []
        job = journal.jobs(first.run_id)[1]
        assert job.state is JobState.VERIFIED and job.attempt == 2
        kinds = [e.kind for e in journal.events(first.run_id, job.id)]
    assert kinds.count("recount-fault") == 1 and kinds.count("redeal") == 1


def test_a_board_out_of_attempts_stays_faulted_on_resume_unless_given_more(tmp_path: Path) -> None:
    deals = deals_for((1, 2))
    config = SimConfig(seed=4, faults=FaultPlan.of({"kind": "misfeed", "board": 1, "card": 7}))
    with Loopback(config) as loop:
        first, _ = run_on_loopback(loop, deals, tmp_path / "j.db", max_attempts=1)
        again, _ = run_on_loopback(loop, deals, tmp_path / "j.db", resume=True, max_attempts=1)
        assert not again.complete and again.unresolved == first.unresolved == ["board 1 copy 1: faulted"]
        assert loop.device.ledger.times_dealt(BoardLabel.for_board("A", 1).payload()) == 1


def test_a_refused_board_is_replaced_without_waiting_for_a_removal_that_already_happened(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the machine ejects the wrong board itself: waiting afterwards for it to be taken out waited for
    # nothing until the board timeout (in real time, 10 minutes a refused board)
    waits: list[tuple[bool, bool]] = []
    wait_board = Machine.wait_board

    def recorded(self: Machine, present: bool, timeout: float) -> Any:
        came = wait_board(self, present, timeout)
        waits.append((present, came))
        return came

    monkeypatch.setattr(Machine, "wait_board", recorded)
    deals = deals_for((1, 2, 3))
    with Loopback(SimConfig(seed=2, faults=FaultPlan.of({"kind": "wrong_board", "insertion": 2}))) as loop:
        result, text = run_on_loopback(loop, deals, tmp_path / "j.db")
    assert result.complete and "REFUSED" in text
    assert waits and all(came for _, came in waits), waits


def test_the_boot_of_a_machine_that_arrives_during_the_handshake_is_not_a_restart() -> None:
    # a machine just switched on: its Boot is still on the line when the host says Hello
    config = SimConfig(seed=1, faults=FaultPlan.of({"kind": "delay", "frame": 1, "seconds": 0.05}))
    with Loopback(config) as loop:
        machine = Machine("loop://", opener=loopback_opener(loop), clock=loop.clock,
                          sleep=loop.clock.sleep)  # type: ignore[attr-defined]
        hello = machine.connect()
        status = machine.status()
        machine.close()
    assert (machine.restarts, machine.reconnects) == (0, 0)
    # the machine answers as the idle machine it is, the one that booted once: the Boot was not a second boot
    assert status.state is MachineState.IDLE and not status.board_present
    assert machine.identity is not None and status.boot_id == hello.boot_id == machine.identity.boot_id


def test_the_machine_keeps_showing_why_a_board_was_refused_until_a_board_goes_in(tmp_path: Path) -> None:
    # the refusal "F8 wrong board: insert board A 2" was replaced within milliseconds by a bare
    # "insert board A 2", so the operator at the machine never saw why the board came out
    shown: list[tuple[str, int]] = []
    deals = deals_for((1, 2, 3))
    with Loopback(SimConfig(seed=2, faults=FaultPlan.of({"kind": "wrong_board", "insertion": 2}))) as loop:
        seen = loop.device.on_display

        def record(msg: Any, t: float) -> None:
            shown.append((msg.text.decode("ascii"), msg.board))
            seen(msg, t)

        loop.device.on_display = record  # type: ignore[method-assign]
        result, _ = run_on_loopback(loop, deals, tmp_path / "j.db")
    assert result.complete
    refused = [i for i, (text, _) in enumerate(shown) if text.startswith("F8")]
    assert refused, shown
    for_board_2 = [text for text, board in shown[refused[0]:] if board == 2]
    assert len(for_board_2) >= 2 and all(text == "F8 wrong board: insert board A 2" for text in for_board_2), shown


def test_a_fault_of_job_0_from_the_machine_faults_no_board(tmp_path: Path) -> None:
    # PROTOCOL.md 7.2: a Fault with job 0 is the machine's (a door opened outside dealing), no report of
    # any request; sent while the host waits for the end of dealing board 2, it faulted a good board
    deals = deals_for((1, 2, 3))
    sent: list[float] = []
    with Loopback(SimConfig(seed=2)) as loop:
        device = loop.device
        emit = device.emit

        def with_a_door_fault(msg: Any, t: float) -> None:
            emit(msg, t)
            dealing = device.firmware.dealing
            if isinstance(msg, Progress) and not sent and dealing is not None and dealing.board_number == 2:
                sent.append(t)
                emit(Fault(FaultCode.DOOR_OPEN, 0, 0, 0, 0), t)

        device.emit = with_a_door_fault  # type: ignore[method-assign]
        result, text = run_on_loopback(loop, deals, tmp_path / "j.db")
        run = check_physical_truth(device.ledger, device.room.rack, deals, tmp_path / "j.db", result.run_id)
        dealt = {board: device.ledger.times_dealt(BoardLabel.for_board("A", board).payload()) for board in (1, 2, 3)}
        assert device.link.idle  # the job-0 Fault was delivered and acknowledged
    assert sent and result.complete, text
    assert "PROTOCOL" not in text and "FAULT" not in text, text
    assert dealt == {1: 1, 2: 1, 3: 1} and "redeal" not in run.kinds(2)
