"""The in-memory cable: pyserial-like port, virtual time, the manipulator hook, unplugging, the registry."""

from __future__ import annotations

import errno

import pytest

from firmware_protocol import SCHEMA_HASH, Boot, Hello, encode_message
from firmware_protocol.framing import Frame, FrameDecoder
from firmware_protocol.messages import decode_message
from hil.bytefaults import Chunk
from hil.config import SimConfig
from hil.loopback import Loopback, VirtualClock, open_loopbacks


def test_a_read_waits_in_virtual_time_only() -> None:
    with Loopback() as loop:
        port = loop.open(timeout=5.0)
        assert port.read(10_000) != b""  # the Boot frames the device retransmits while nobody answers
        assert loop.clock() == pytest.approx(5.0)
        port.timeout = 0.0
        port.reset_input_buffer()
        assert port.read(1) == b"" and loop.clock() == pytest.approx(5.0)


def test_a_command_is_answered_at_once() -> None:
    with Loopback() as loop:
        port = loop.open(timeout=1.0)
        port.reset_input_buffer()
        port.write(encode_message(Hello(1, SCHEMA_HASH, 9), 0))
        assert port.in_waiting > 0 and loop.clock() == 0.0


def test_the_manipulator_sees_both_directions() -> None:
    seen: list[str] = []

    def spy(data: bytes, direction: str) -> list[Chunk]:
        seen.append(direction)
        return [(0.0, data)]

    with Loopback(manipulator=spy) as loop:
        port = loop.open()
        port.write(b"\x00")
        port.read(1)
    assert {"to_host", "to_device"} <= set(seen)


def test_unplugged_the_port_fails_with_eio_and_cannot_be_reopened_until_replugged() -> None:
    with Loopback() as loop:
        port = loop.open()
        loop.unplug()
        with pytest.raises(OSError) as read_error:
            port.read(1)
        assert read_error.value.errno == errno.EIO
        with pytest.raises(OSError):
            port.write(b"\x00")
        with pytest.raises(FileNotFoundError):
            loop.open()
        loop.replug()
        port.close()
        frames = FrameDecoder().feed(loop.open().read(64))
    # the reopened port carries the machine's frames again: its Boot, still unanswered
    assert frames and all(isinstance(f, Frame) and isinstance(decode_message(f.type, f.payload), Boot)
                          for f in frames), frames


def test_a_timed_unplug_plugs_itself_back() -> None:
    with Loopback() as loop:
        loop.unplug(2.0)
        loop.advance(2.5)
        assert loop.plugged


def test_one_host_at_a_time() -> None:
    with Loopback() as loop:
        loop.open()
        with pytest.raises(OSError) as busy:
            loop.open()
        assert busy.value.errno == errno.EBUSY


def test_every_loopback_is_registered_until_closed() -> None:
    loop = Loopback(SimConfig())
    assert loop in open_loopbacks()
    loop.close()
    assert loop not in open_loopbacks()


def test_virtual_clock_only_moves_when_told() -> None:
    clock = VirtualClock(3.0)
    clock.sleep(2.0)
    clock.sleep(-1.0)
    assert clock() == 5.0


def test_a_loopback_can_run_in_real_time_too() -> None:
    import time

    with Loopback(SimConfig(speed=1000.0), clock=time.monotonic) as loop:
        port = loop.open(timeout=0.01)
        port.write(encode_message(Hello(1, SCHEMA_HASH, 9), 0))
        assert port.read(4096)  # the HelloAck (and Boot) came back through the real-time cable
