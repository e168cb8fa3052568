"""A machine that goes silent for good mid-deal (PROTOCOL.md 4.7, 4.5), default settings, in virtual time
on the in-memory simulated machine: the host asks for its status after 5 s of silence, retransmits that
one GetStatus, gives up 30 s after first sending it, and once the new Hello goes unanswered (2 s) the run
ends (exit 5) naming the machine and what to do, about 37 s after the silence began. Once the machine
is switched on again, `--resume` finishes the run, and the simulator's ledger shows every board dealt as
the journal says, into an empty board (the cut board emptied and redealt).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dealer.core.errors import DealerError
from dealer.dealing.machine import Machine
from dealer.dealing.run import RunOptions, RunResult, deal_session, raise_for
from dealer.dealing.sim_ports import loopback_opener
from dealer.journal.store import JobState
from firmware_protocol import GetStatus, MsgType, decode_message
from firmware_protocol.framing import Frame, FrameDecoder
from firmware_protocol.labels import BoardLabel
from hil.config import SimConfig
from hil.fault_plan import FaultPlan
from hil.loopback import Loopback
from tests.support.loopback_run import deals_for
from tests.support.physical_truth import check_physical_truth

DEALS = deals_for((1, 2, 3))


@pytest.fixture(autouse=True)
def _no_leaks(hil_leak_check: None) -> Iterator[None]:
    yield


class HostWrites:
    """The GetStatus frames the host wrote, with the virtual time each went out and its seq (a manipulator
    that passes every byte through)."""

    def __init__(self) -> None:
        self.loop: Loopback | None = None
        self.get_status: list[tuple[float, int]] = []
        self._decoder = FrameDecoder()

    def __call__(self, data: bytes, direction: str) -> list[tuple[float, bytes]]:
        assert self.loop is not None
        if direction == "to_device":
            for item in self._decoder.feed(data):
                if isinstance(item, Frame) and item.type == MsgType.GET_STATUS:
                    assert isinstance(decode_message(item.type, item.payload), GetStatus)
                    self.get_status.append((self.loop.clock(), item.seq))
        return [(0.0, data)]


def deal(loop: Loopback, journal: Path, **options: Any) -> tuple[RunResult, str]:
    """`dealer deal`'s run with its default limits, on the loopback's machine."""
    out = io.StringIO()

    def factory(url: str) -> Machine:
        return Machine(url, opener=loopback_opener(loop), clock=loop.clock,
                       sleep=loop.clock.sleep)  # type: ignore[attr-defined]

    opts = RunOptions(ports=["loop://sim"], journal=journal, machine_factory=factory, out=out, **options)
    return deal_session(DEALS, "session.pbn", opts), out.getvalue()


def test_a_machine_silent_for_good_mid_deal_is_named_within_40_s_and_the_resume_finishes_the_run(
        tmp_path: Path) -> None:
    journal = tmp_path / "j.db"
    plan = FaultPlan.from_json({"faults": [{"kind": "silent", "board": 2, "card": 20}]})
    wire = HostWrites()
    with Loopback(SimConfig(seed=3, faults=plan, boards=(1, 2, 3)), manipulator=wire) as loop:
        wire.loop = loop
        cut: list[float] = []
        power_loss = loop.device.power_loss

        def hang(t: float, *args: Any, **kwargs: Any) -> None:
            cut.append(t)
            power_loss(t, *args, **kwargs)

        loop.device.power_loss = hang  # type: ignore[method-assign]
        first, text = deal(loop, journal)
        ended = loop.clock()
        with pytest.raises(DealerError) as raised:
            raise_for(first)
        assert cut, "the machine never went silent"
        silent_for = ended - cut[0]
        probes = [(t - cut[0], seq) for t, seq in wire.get_status if t > cut[0]]

        loop.device.switch_on(loop.clock())  # the director switches the machine off and on
        second, resumed = deal(loop, journal, resume=True)
        run = check_physical_truth(loop.device.ledger, loop.device.room.rack, DEALS, journal, second.run_id)
        board2 = loop.device.ledger.times_dealt(BoardLabel.for_board("A", 2).payload())
    error = raised.value
    assert error.exit_code == 5
    assert str(error).count("loop://sim") == 1 and "stopped answering" in str(error), str(error)
    assert "continue with --resume" in str(error) and "\n" not in str(error), str(error)
    assert probes and 4.0 <= probes[0][0] <= 6.0, f"GetStatus after the silence began: {probes}"
    assert len(probes) > 1 and {seq for _, seq in probes} == {probes[0][1]}, probes  # one, retransmitted
    # given up 30 s after the GetStatus was first sent, then 2 s for the Hello: PROTOCOL.md 4.5, 4.7
    assert 32.0 <= silent_for - probes[0][0] <= 32.5, f"named {silent_for:.1f} s after the silence:\n{text}"
    assert silent_for <= 40.0
    assert second.complete, resumed
    assert all(job.state is JobState.VERIFIED for job in run.jobs)
    assert board2 == 2 and run.kinds(2).count("redeal") == 1  # cut at card 20: emptied and dealt again
