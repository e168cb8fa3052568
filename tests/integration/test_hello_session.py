"""A host that comes after another (a controller killed, then resumed) and happens to pick the session number
its predecessor's Hello carried: its Hello is, byte for byte, the device's last sync request, which PROTOCOL.md
4.3 has the device drop as a late copy. The host sends a new Hello (another seq, another session) when its
Hello goes unanswered (4.4), so the machine answers within seconds instead of being named silent."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from dealer.dealing.machine import HELLO_RENEW, Machine
from dealer.dealing.sim_ports import loopback_opener
from firmware_protocol import Hello, MsgType, decode_message
from firmware_protocol.framing import Frame, FrameDecoder
from hil.config import SimConfig
from hil.loopback import Loopback


@pytest.fixture(autouse=True)
def _no_leaks(hil_leak_check: None) -> Iterator[None]:
    yield


class Hellos:
    """The Hello frames the host wrote: (virtual time, seq, session)."""

    def __init__(self) -> None:
        self.loop: Loopback | None = None
        self.sent: list[tuple[float, int, int]] = []
        self._decoder = FrameDecoder()

    def __call__(self, data: bytes, direction: str) -> list[tuple[float, bytes]]:
        assert self.loop is not None
        if direction == "to_device":
            for item in self._decoder.feed(data):
                if isinstance(item, Frame) and item.type == MsgType.HELLO:
                    hello = decode_message(item.type, item.payload)
                    assert isinstance(hello, Hello)
                    self.sent.append((self.loop.clock(), item.seq, hello.session))
        return [(0.0, data)]


def machine(loop: Loopback) -> Machine:
    return Machine("loop://sim", opener=loopback_opener(loop), clock=loop.clock,
                   sleep=loop.clock.sleep)  # type: ignore[attr-defined]


def test_a_host_that_picks_its_predecessors_session_is_still_answered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(random, "getrandbits", lambda bits: 0x1234)  # every Hello's session: the same number
    hellos = Hellos()
    with Loopback(SimConfig(seed=5), manipulator=hellos) as loop:
        hellos.loop = loop
        first = machine(loop)
        first.connect()
        first.status()  # the device's last request is now this GetStatus, its last sync request the Hello
        first.close()   # the first host is gone (killed), as a resumed run's predecessor is
        began = loop.clock()
        second = machine(loop)
        try:
            identity = second.connect()
        finally:
            second.close()
    assert identity.serial
    answered_after = loop.clock() - began
    assert answered_after < HELLO_RENEW + 1.0, f"the second host was answered only after {answered_after:.1f} s"
    second_hellos = [h for h in hellos.sent if h[0] >= began]
    assert len({(seq, session) for _, seq, session in second_hellos}) >= 2, second_hellos
