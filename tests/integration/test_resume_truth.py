"""Physical truth on every resume (PROTOCOL.md 6.1, 9), on a machine WITHOUT a board sensor that keeps its job
over a power cut: after the power comes back the host reads the board's label and recounts its pockets
against what the machine says it dealt before it sends any StartDeal; a board swapped while the power was off
is refused (F8 wrong board) and never dealt into; the right board, holding what was dealt, is dealt on.

Judged by the simulator's ledger (every dealing into its own board) and by the commands on the wire.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dealer.dealing.context import RunLimits
from dealer.dealing.machine import Machine
from dealer.dealing.run import RunOptions, RunResult, deal_session
from dealer.dealing.sim_ports import loopback_opener
from firmware_protocol import Capability, MsgType
from firmware_protocol.framing import Frame, FrameDecoder
from firmware_protocol.labels import BoardLabel
from hil.config import DEFAULT_CAPABILITIES, SimConfig
from hil.fault_plan import FaultPlan
from hil.loopback import Loopback
from tests.support.loopback_run import deals_for
from tests.support.physical_truth import check_physical_truth

DEALS = deals_for((1, 2, 3))
NO_SENSOR = int(DEFAULT_CAPABILITIES & ~Capability.BOARD_SENSOR)


@pytest.fixture(autouse=True)
def _no_leaks(hil_leak_check: None) -> Iterator[None]:
    yield


def label(board: int) -> str:
    return BoardLabel.for_board("A", board).payload()


class HostCommands:
    """The type of every command frame the host wrote, in order (a manipulator passing every byte on)."""

    def __init__(self) -> None:
        self.sent: list[MsgType] = []
        self._decoder = FrameDecoder()

    def __call__(self, data: bytes, direction: str) -> list[tuple[float, bytes]]:
        if direction == "to_device":
            self.sent += [MsgType(f.type) for f in self._decoder.feed(data) if isinstance(f, Frame)]
        return [(0.0, data)]


def deal(loop: Loopback, journal: Path) -> tuple[RunResult, str]:
    out = io.StringIO()

    def factory(url: str) -> Machine:
        return Machine(url, opener=loopback_opener(loop), clock=loop.clock,
                       sleep=loop.clock.sleep)  # type: ignore[attr-defined]

    opts = RunOptions(ports=["loop://sim"], journal=journal, machine_factory=factory, out=out,
                      limits=RunLimits(board_timeout=120, deal_timeout=120))
    return deal_session(DEALS, "session.pbn", opts), out.getvalue()


@pytest.mark.parametrize("swapped", [False, True], ids=["board left in", "board swapped in the outage"])
def test_after_a_power_cut_without_a_board_sensor_the_board_is_read_and_recounted_before_dealing_on(
        swapped: bool, tmp_path: Path) -> None:
    plan = FaultPlan.from_json({"faults": [{"kind": "power_loss", "board": 2, "card": 25, "seconds": 2.0}]})
    wire = HostCommands()
    config = SimConfig(seed=3, faults=plan, boards=(1, 2, 3), keeps_job=True, capabilities=NO_SENSOR)
    with Loopback(config, manipulator=wire) as loop:
        room = loop.device.room
        cut: list[int] = []
        power_loss = loop.device.power_loss

        def outage(t: float, *args: Any, **kwargs: Any) -> None:
            power_loss(t, *args, **kwargs)
            cut.append(len(wire.sent))
            if swapped:  # while the power is off, someone swaps board 2 for board 1 (dealt already)
                board2 = room.take_out(t)
                assert board2 is not None and board2.label.decode() == label(2)
                room.insert(room.rack.neighbour(board2), t)

        loop.device.power_loss = outage  # type: ignore[method-assign]
        result, text = deal(loop, tmp_path / "j.db")
        run = check_physical_truth(loop.device.ledger, room.rack, DEALS, tmp_path / "j.db", result.run_id)
        ledger = loop.device.ledger
        dealings = {board: ledger.times_dealt(label(board)) for board in (1, 2, 3)}
        board2_cards = [len(record.placed) for record in ledger.for_label(label(2))]
    assert result.complete, text
    assert cut, "the power never went"
    after = wire.sent[cut[0]:]
    first_start = after.index(MsgType.START_DEAL)
    assert MsgType.SCAN_BOARD in after[:first_start] and MsgType.RECOUNT in after[:first_start], after
    assert after[:first_start].index(MsgType.SCAN_BOARD) < after[:first_start].index(MsgType.RECOUNT)
    assert dealings == {1: 1, 2: 1, 3: 1}  # board 2 dealt on (one dealing), never board 1 in its place
    assert board2_cards == [52]
    assert "power-cut" in " ".join(run.kinds(2)) or "machine-fault-resumed" in run.kinds(2), run.kinds(2)
    refused = [line for line in text.splitlines() if "board 2" in line and "REFUSED" in line]
    if swapped:
        (line,) = refused
        assert "F8 wrong board (Law 2)" in line and "the board is board 1 of set A" in line, text
    else:
        assert refused == [], text


def test_a_board_emptied_during_the_power_cut_is_not_dealt_on_but_dealt_afresh_under_a_new_job(tmp_path: Path) -> None:
    plan = FaultPlan.from_json({"faults": [{"kind": "power_loss", "board": 2, "card": 25, "seconds": 2.0}]})
    config = SimConfig(seed=3, faults=plan, boards=(1, 2, 3), keeps_job=True, capabilities=NO_SENSOR)
    with Loopback(config) as loop:
        room = loop.device.room
        power_loss = loop.device.power_loss

        def outage(t: float, *args: Any, **kwargs: Any) -> None:
            power_loss(t, *args, **kwargs)
            assert room.slot is not None
            room.slot.board.empty()  # someone takes the cards out while the power is off

        loop.device.power_loss = outage  # type: ignore[method-assign]
        result, text = deal(loop, tmp_path / "j.db")
        check_physical_truth(loop.device.ledger, room.rack, DEALS, tmp_path / "j.db", result.run_id)
        records = loop.device.ledger.for_label(label(2))
    assert result.complete, text
    assert [len(r.placed) for r in records] == [24, 52] and records[0].job != records[1].job
    assert "does not hold what the machine dealt into it (0 cards for 24)" in text, text
