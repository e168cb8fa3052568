"""One job per dealing (PROTOCOL.md 7.2), on the wire: every LoadDeal the machine accepted and every dealing
the simulator's ledger recorded carries a job number never used before on that journal - the redeal after a
misfeed, after a card in the wrong pocket and after a power loss, and every dealing of a run resumed after
the controller died. The numbers are read from the machine's side (its accepted LoadDeals, its ledger), not
from the host.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dealer.core.errors import DealerError
from dealer.dealing.context import RunLimits
from dealer.dealing.machine import Machine
from dealer.dealing.run import RunOptions, RunResult, deal_session
from dealer.dealing.sim_ports import loopback_opener
from dealer.journal.store import JobState, Journal
from firmware_protocol import DeviceState, LoadDeal, MsgType, decode_message
from firmware_protocol.labels import BoardLabel
from hil.config import SimConfig
from hil.fault_plan import FaultPlan
from hil.loopback import Loopback
from tests.support.loopback_run import deals_for, run_on_loopback
from tests.support.physical_truth import check_physical_truth

DEALS = deals_for((1, 2, 3, 4))


@pytest.fixture(autouse=True)
def _no_leaks(hil_leak_check: None) -> Iterator[None]:
    yield


def label(board: int) -> str:
    return BoardLabel.for_board("A", board).payload()


def accepted_jobs(loop: Loopback) -> list[int]:
    """The job of every LoadDeal the machine accepted, in order."""
    loads = [decode_message(MsgType.LOAD_DEAL, payload) for payload in loop.device.load_deals.accepted]
    return [load.job for load in loads if isinstance(load, LoadDeal)]


def dealt_jobs(loop: Loopback, board: int) -> list[int]:
    """The job of every dealing into board `board`, as the simulator's ledger recorded it."""
    return [record.job for record in loop.device.ledger.for_label(label(board))]


def test_each_redeal_after_a_misfeed_a_wrong_pocket_and_a_power_loss_has_a_job_number_never_used_before(
        tmp_path: Path) -> None:
    plan = FaultPlan.from_json({"faults": [
        {"kind": "misfeed", "board": 1, "card": 5, "detected": True},  # seen: abort, empty, redeal
        {"kind": "misfeed", "board": 3, "card": 9},  # unseen: a card in the wrong pocket, found by the recount
        {"kind": "power_loss", "board": 5, "card": 25},  # the machine restarts empty-handed
    ]})
    with Loopback(SimConfig(seed=3, faults=plan, boards=(1, 2, 3, 4))) as loop:
        result, text = run_on_loopback(loop, DEALS, tmp_path / "j.db")
        check_physical_truth(loop.device.ledger, loop.device.room.rack, DEALS, tmp_path / "j.db", result.run_id)
        loads = accepted_jobs(loop)
        per_board = {board: dealt_jobs(loop, board) for board in (1, 2, 3)}
    assert result.complete, text
    assert "card misfed" in text and "F2" in text and "power cut" in text, text
    assert [len(jobs) for jobs in per_board.values()] == [2, 2, 2], per_board  # each dealt, then redealt
    assert Counter(loads).most_common(1)[0][1] == 1, f"a job number loaded twice: {loads}"
    assert 0 not in loads
    dealings = [job for jobs in per_board.values() for job in jobs]
    assert len(set(dealings)) == len(dealings), per_board
    for board, (first, redeal) in per_board.items():
        assert redeal not in loads[:loads.index(first) + 1], f"board {board}: redeal reused a number: {loads}"


def deal_with(loop: Loopback, journal: Path, factory: Any, **options: Any) -> tuple[RunResult, str]:
    out = io.StringIO()
    opts = RunOptions(ports=["loop://sim"], journal=journal, machine_factory=factory, out=out,
                      limits=RunLimits(board_timeout=120, deal_timeout=120), **options)
    return deal_session(DEALS, "session.pbn", opts), out.getvalue()


class Killed(DealerError):
    """The controller dies (as if killed) as board 3 is being dealt."""


def test_the_job_numbers_of_a_resumed_run_were_never_used_before_on_its_journal(tmp_path: Path) -> None:
    journal = tmp_path / "j.db"
    plan = FaultPlan.from_json({"faults": [{"kind": "power_loss", "board": 2, "card": 20}]})
    with Loopback(SimConfig(seed=3, faults=plan, boards=(1, 2, 3, 4))) as loop:
        def dying(url: str) -> Machine:
            class Dying(Machine):
                def wait_dealt(self, job: int, timeout: float):  # type: ignore[no-untyped-def]
                    if loop.device.firmware.dealing and loop.device.firmware.dealing.board_number == 3:
                        raise Killed("killed")
                    return super().wait_dealt(job, timeout)
            return Dying(url, opener=loopback_opener(loop), clock=loop.clock,
                         sleep=loop.clock.sleep)  # type: ignore[attr-defined]

        first, _ = deal_with(loop, journal, dying)
        assert first.errors and "killed" in first.errors[0]
        before = accepted_jobs(loop)
        second, text = run_on_loopback(loop, DEALS, journal, resume=True)
        after = accepted_jobs(loop)[len(before):]
        check_physical_truth(loop.device.ledger, loop.device.room.rack, DEALS, journal, second.run_id)
        board3 = dealt_jobs(loop, 3)
    assert second.complete, text
    assert before and after
    assert not set(after) & set(before), f"the resumed run reused numbers: {before} then {after}"
    assert len(set(before + after)) == len(before + after)
    with Journal.open(journal) as j:
        assert {job.wire_job for job in j.jobs(second.run_id)} <= set(after) | set(before)
        assert all(job.state is JobState.VERIFIED for job in j.jobs(second.run_id))
    assert len(board3) == 1 and board3[0] in before  # the machine finished it while the controller was down


def test_a_machine_found_idle_on_resume_has_the_planned_deal_loaded_under_a_new_job(tmp_path: Path) -> None:
    """PROTOCOL.md 9, the row IDLE with the boot_id journaled: the controller died after the journal gave
    board 1's dealing its number and before the LoadDeal went out; the resumed run finds the machine
    IDLE and loads the deal under a number never used before, not the one the journal had given."""
    journal = tmp_path / "j.db"
    with Loopback(SimConfig(seed=3, boards=(1, 2, 3, 4))) as loop:
        def dying(url: str) -> Machine:
            class Dying(Machine):
                def load(self, job: int, board: int, packed_deal: bytes, timeout: float = 5.0) -> None:
                    if board == 1:
                        raise Killed("killed")
                    super().load(job, board, packed_deal, timeout)
            return Dying(url, opener=loopback_opener(loop), clock=loop.clock,
                         sleep=loop.clock.sleep)  # type: ignore[attr-defined]

        first, _ = deal_with(loop, journal, dying)
        assert first.errors and "killed" in first.errors[0]
        with Journal.open(journal) as j:
            (given,) = [job.wire_job for job in j.jobs(first.run_id) if job.board == 1]
        before = accepted_jobs(loop)
        boot = loop.device.firmware.boot_id
        assert loop.device.firmware.state is DeviceState.IDLE
        second, text = run_on_loopback(loop, DEALS, journal, resume=True)
        after = accepted_jobs(loop)[len(before):]
        check_physical_truth(loop.device.ledger, loop.device.room.rack, DEALS, journal, second.run_id)
        board1 = dealt_jobs(loop, 1)
        assert loop.device.firmware.boot_id == boot  # no restart: the machine was IDLE all along
    assert second.complete, text
    assert given and given not in before and given not in after  # the number given never went out
    assert before == [] and len(board1) == 1 and board1[0] in after
