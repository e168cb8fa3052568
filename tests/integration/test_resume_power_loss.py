"""A power cut mid-deal on a machine WITHOUT KEEPS_JOB_OVER_POWER_LOSS (PROTOCOL.md 9, 6.1), through the
host's dealing run on the simulated machine, with and without a board sensor: the machine comes back
IDLE; before the board is dealt again the host reads its label and recounts it; a board holding part of
its deal is emptied and checked again, an empty one is not; the deal is then loaded with a job number
never used before, and the simulator's ledger shows the board dealt whole under it. (A board found empty
is dealt again under its DEALING step, so the journal shows one start where the ledger shows two
dealings: the physical-truth count of starts is not asked of that case.)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware_protocol import (
    Capability,
    Eject,
    LoadDeal,
    Message,
    MsgType,
    Recount,
    RecountReport,
    ScanBoard,
    StartDeal,
    decode_message,
)
from firmware_protocol.framing import Frame, FrameDecoder
from firmware_protocol.labels import BoardLabel
from hil.config import DEFAULT_CAPABILITIES, SimConfig
from hil.fault_plan import FaultPlan
from hil.loopback import Loopback
from tests.support.loopback_run import deals_for, run_on_loopback
from tests.support.physical_truth import check_physical_truth

DEALS = deals_for((1, 2, 3))
NO_SENSOR = int(DEFAULT_CAPABILITIES & ~Capability.BOARD_SENSOR)


@pytest.fixture(autouse=True)
def _no_leaks(hil_leak_check: None) -> Iterator[None]:
    yield


class Wire:
    """Every command the host wrote and every RecountReport the machine sent, in the order they passed."""

    def __init__(self) -> None:
        self.passed: list[Message] = []
        self._decoders = {"to_device": FrameDecoder(), "to_host": FrameDecoder()}

    def __call__(self, data: bytes, direction: str) -> list[tuple[float, bytes]]:
        for f in self._decoders[direction].feed(data):
            if not isinstance(f, Frame):
                continue
            command = direction == "to_device" and f.type not in (MsgType.EVENT_ACK, MsgType.NAK)
            if command or (direction == "to_host" and f.type == MsgType.RECOUNT_REPORT):
                self.passed.append(decode_message(f.type, f.payload))
        return [(0.0, data)]


def label(board: int) -> str:
    return BoardLabel.for_board("A", board).payload()


@pytest.mark.parametrize("emptied", [False, True], ids=["part dealt", "emptied in the outage"])
@pytest.mark.parametrize("capabilities", [int(DEFAULT_CAPABILITIES), NO_SENSOR], ids=["sensor", "no-sensor"])
def test_after_a_power_cut_the_board_is_read_recounted_emptied_unless_empty_and_dealt_under_a_new_job(
        capabilities: int, emptied: bool, tmp_path: Path) -> None:
    plan = FaultPlan.from_json({"faults": [{"kind": "power_loss", "board": 2, "card": 25, "seconds": 2.0}]})
    wire = Wire()
    config = SimConfig(seed=3, faults=plan, boards=(1, 2, 3), capabilities=capabilities)
    with Loopback(config, manipulator=wire) as loop:
        room = loop.device.room
        cut: list[int] = []
        power_loss = loop.device.power_loss

        def outage(t: float, *args: Any, **kwargs: Any) -> None:
            power_loss(t, *args, **kwargs)
            cut.append(len(wire.passed))
            if emptied:
                assert room.slot is not None
                room.slot.board.empty()  # someone takes the cards out while the power is off

        loop.device.power_loss = outage  # type: ignore[method-assign]
        result, text = run_on_loopback(loop, DEALS, tmp_path / "j.db")
        if not emptied:  # emptied: the journal records one start for the two dealings (see the module)
            check_physical_truth(loop.device.ledger, room.rack, DEALS, tmp_path / "j.db", result.run_id)
        assert all(r.cards_before == 0 and r.turns == 0 for r in loop.device.ledger.records)
        records = loop.device.ledger.for_label(label(2))
    assert result.complete, text
    assert cut, "the power never went"
    before, after = wire.passed[:cut[0]], wire.passed[cut[0]:]
    jobs_before = {m.job for m in before if isinstance(m, LoadDeal)}
    (cut_job,) = {m.job for m in before if isinstance(m, StartDeal)} - {
        m.job for m in before if isinstance(m, StartDeal) and m.job in _verified_jobs(before)}
    first_start = next(i for i, m in enumerate(after) if isinstance(m, StartDeal))
    until = after[:first_start]
    new_job = after[first_start].job
    assert new_job not in jobs_before and new_job != cut_job  # a job never used before on this journal
    loads = [m for m in until if isinstance(m, LoadDeal)]
    assert loads and loads[-1].job == new_job and loads[-1].board == 2
    scans = [i for i, m in enumerate(until) if isinstance(m, ScanBoard)]
    recounts = [i for i, m in enumerate(until) if isinstance(m, Recount)]
    reports = [m for m in until if isinstance(m, RecountReport)]
    assert scans and recounts and scans[0] < recounts[0], until
    held = [sum(len(p.cards) + p.unidentified for p in r.pockets) for r in reports]
    ejected = any(isinstance(m, Eject) for m in until)
    if emptied:
        assert held == [0] and not ejected, until  # found empty: not emptied again
    else:
        assert held[0] > 0 and held[-1] == 0 and ejected, until  # part of the deal in it: emptied, checked again
        assert max(scans) > recounts[0]  # read again after it was emptied
    assert [len(r.placed) for r in records][-1] == 52 and records[-1].job == new_job
    assert len({r.job for r in records}) == len(records)


def _verified_jobs(sent: list[Message]) -> set[int]:
    """The jobs recounted after they were dealt (a Recount of a job that a StartDeal came before)."""
    started: set[int] = set()
    verified: set[int] = set()
    for m in sent:
        if isinstance(m, StartDeal):
            started.add(m.job)
        elif isinstance(m, Recount) and m.job in started:
            verified.add(m.job)
    return verified
