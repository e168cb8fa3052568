"""After a machine restarts, the host reads its Status before it sends anything else (PROTOCOL.md 9: the host
reads Status and acts on what it says), judged from the bytes the host wrote on the wire."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from dealer.dealing.context import RunLimits
from dealer.dealing.machine import Machine
from dealer.dealing.run import RunOptions, deal_session
from dealer.dealing.transport import SerialTransport, Transport
from firmware_protocol.framing import Frame, decode_frame
from firmware_protocol.messages import MsgType
from hil.config import SimConfig
from hil.fault_plan import FaultPlan
from hil.loopback import Loopback
from tests.support.loopback_run import deals_for

ANSWERS = {MsgType.ACK.name, MsgType.NAK.name, MsgType.EVENT_ACK.name}
"""What a host writes that is no command: it answers the machine's frames."""


def commands_on_the_wire(written: list[bytes]) -> list[str]:
    """The host's commands, in the order written, each by its message type's name."""
    names = []
    for wire in b"".join(written).split(b"\x00"):
        frame = decode_frame(wire + b"\x00") if wire else None
        if isinstance(frame, Frame) and MsgType(frame.type).name not in ANSWERS:
            names.append(MsgType(frame.type).name)
    return names


@pytest.mark.parametrize("fault", [{"kind": "power_loss", "board": 2, "card": 20},
                                   *({"kind": "power_loss", "frame": n} for n in range(8, 40, 3))],
                         ids=lambda f: "board 2 card 20" if "board" in f else f"frame {f['frame']}")
def test_after_a_power_cut_the_host_reads_status_before_anything_else(tmp_path: Path, fault: dict[str, int]) -> None:
    """The power goes while the machine deals, or as one of the host's frames arrives (in every state a job
    passes through: loaded, scanned, dealing, done)."""
    plan = FaultPlan.from_json({"faults": [fault]})
    written: list[bytes] = []
    with Loopback(SimConfig(seed=3, faults=plan, boards=(1, 2, 3, 4))) as loop:
        def opener(url: str) -> Transport:
            port = loop.open()
            write = port.write

            def recorded(data: bytes) -> int | None:
                written.append(bytes(data))
                return write(data)

            port.write = recorded  # type: ignore[method-assign]
            return SerialTransport.wrap(port, url)

        def factory(url: str) -> Machine:
            return Machine(url, opener=opener, clock=loop.clock, sleep=loop.clock.sleep)  # type: ignore[attr-defined]

        options = RunOptions(ports=["loop://sim"], journal=tmp_path / "j.db", machine_factory=factory,
                             out=io.StringIO(), limits=RunLimits(board_timeout=120, deal_timeout=120))
        result = deal_session(deals_for((1, 2, 3, 4)), "s.pbn", options)
    assert result.complete
    commands = commands_on_the_wire(written)
    hellos = [k for k, name in enumerate(commands) if name == MsgType.HELLO.name]
    assert len(hellos) >= 2, commands  # the first handshake, and the one after the restart
    for k in hellos[1:]:
        after = commands[k + 1:k + 2]
        assert after == [MsgType.GET_STATUS.name], commands[k - 2:k + 4]
