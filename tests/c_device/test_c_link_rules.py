"""The C device's link, rule by rule of PROTOCOL.md section 4, driven frame by frame on a fake clock in
milliseconds: what it writes is read back with the Python codec, the reference reader.

The device runs at 9600 baud: RTO 850 ms, NAKs at most every 425 ms, backoff 850, 1700, 2000, 2000 ms.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from firmware_protocol import (
    PROTOCOL_VERSION,
    SCHEMA_HASH,
    Ack,
    Boot,
    BootReason,
    DealDone,
    EventAck,
    Frame,
    FrameDecoder,
    Hello,
    HelloAck,
    LoadDeal,
    Message,
    Nak,
    Progress,
    Refused,
    RefuseReason,
    Reset,
    ResetMode,
    decode_message,
    encode_frame,
    encode_message,
)
from firmware_protocol.deal import pack_seats
from tests.support.c_build import CBuilds
from tests.support.c_device import CDeviceLink

LOAD = LoadDeal.for_deal(7, 1, pack_seats([s for s in range(4) for _ in range(13)]))
HELLO = Hello(1, SCHEMA_HASH, 0xBEEF)


@pytest.fixture
def device(c_builds: CBuilds) -> Iterator[CDeviceLink]:
    link = CDeviceLink(c_builds("link_driver"))
    try:
        yield link
    finally:
        link.close()


def frames(data: bytes) -> list[tuple[Message, int]]:
    """(message, seq) of each frame in `data`; every one must be intact."""
    out = []
    for item in FrameDecoder().feed(data):
        assert isinstance(item, Frame), f"the device wrote a damaged frame: {item}"
        out.append((decode_message(item.type, item.payload), item.seq))
    return out


def written(device: CDeviceLink) -> list[tuple[Message, int]]:
    """What the device wrote since last asked."""
    return frames(device.data_to_send())


def send(device: CDeviceLink, ms: int, msg: Message, seq: int) -> list[tuple[Message, int]]:
    device.receive(encode_message(msg, seq), ms / 1000)
    return written(device)


def started(device: CDeviceLink) -> list[tuple[Message, int]]:
    """Power the device up at 0 ms; what it wrote (after the delimiter that cuts off line noise, 2.4)."""
    device.start(0.0)
    data = device.data_to_send()
    assert data[:1] == b"\x00"
    return frames(data[1:])


def test_boot_first_then_every_command_refused_until_hello(device: CDeviceLink) -> None:
    assert started(device) == [(Boot(BootReason.POWER_ON, 1), 0)]
    refused = send(device, 10, LOAD, 57)  # a command from before a restart, whatever its seq
    assert refused == [(Refused(RefuseReason.HANDSHAKE_REQUIRED, 0), 57)]
    assert send(device, 20, LOAD, 57) == refused  # its retransmission: the same answer from the cache
    (ack, seq), = send(device, 30, HELLO, 3)
    assert isinstance(ack, HelloAck) and seq == 3
    assert (ack.protocol_version, ack.schema_hash) == (PROTOCOL_VERSION, SCHEMA_HASH)
    assert device.stats()["loads"] == {}  # nothing carried out before the Hello
    assert send(device, 40, LOAD, 4) == [(Progress(7, 26), 0), (Ack(), 4)]
    # DealDone waits behind the Boot, still unacknowledged; the EventAck for the Boot lets it go
    assert send(device, 50, EventAck(), 0) == [(DealDone(7, 0, 52, (13, 13, 13, 13)), 1)]
    assert device.stats()["loads"] == {"7": 1}


def test_repeats_stale_copies_and_late_hellos(device: CDeviceLink) -> None:
    started(device)
    send(device, 0, HELLO, 3)
    assert send(device, 10, LOAD, 4)[-1] == (Ack(), 4)
    assert send(device, 20, LOAD, 4) == [(Ack(), 4)]  # a repeat: answered again, not carried out again
    assert send(device, 30, LOAD, 3) == []  # stale: no answer
    assert send(device, 40, LOAD, 6) == []  # not the next seq either
    assert send(device, 50, HELLO, 3) == []  # a late copy of the Hello accepted before
    stats = device.stats()
    assert stats["loads"] == {"7": 1} and stats["duplicates"] == 1 and stats["stale"] == 3
    assert isinstance(send(device, 60, HELLO, 9)[0][0], HelloAck)  # a new Hello: accepted at any seq


def deadline(device: CDeviceLink) -> int:
    when = device.next_deadline()
    assert when is not None
    return round(when * 1000)


def test_an_event_is_retransmitted_with_backoff_to_two_seconds_forever(device: CDeviceLink) -> None:
    boot = started(device)
    assert deadline(device) == 850
    device.poll(0.849)
    assert written(device) == []
    times = []
    for _ in range(5):
        at = deadline(device)
        device.poll(at / 1000)
        assert written(device) == boot  # the same event, the same seq
        times.append(at)
    assert times == [850, 850 + 1700, 2550 + 2000, 4550 + 2000, 6550 + 2000]
    assert device.stats()["retransmits"] == 5


def test_hearing_the_host_starts_the_backoff_again(device: CDeviceLink) -> None:
    boot = started(device)
    for _ in range(3):  # nobody there: 850, 1700, 2000 ms apart
        device.poll(deadline(device) / 1000)
        written(device)
    assert deadline(device) == 2550 + 2000 + 2000
    assert send(device, 5000, Nak(), 0) == boot  # the host is there: at once, and at RTO from now on
    assert deadline(device) == 5000 + 850
    device.poll(5.85)
    device.poll(deadline(device) / 1000)
    written(device)
    assert deadline(device) == 5850 + 1700 + 2000  # backing off again while nothing comes
    device.receive(b"\x05\x11\x22\x00", 8.0)  # a damaged frame: someone is talking, if garbled
    assert deadline(device) == 8000 + 850


def test_a_nak_brings_one_retransmission_until_the_next_timed_one(device: CDeviceLink) -> None:
    boot = started(device)
    assert send(device, 100, Nak(), 0) == boot
    assert send(device, 200, Nak(), 0) == []
    device.poll(deadline(device) / 1000)
    assert written(device) == boot
    assert send(device, 1200, Nak(), 0) == boot


def test_damaged_frames_are_naked_at_most_once_per_half_rto(device: CDeviceLink) -> None:
    started(device)
    bad_crc = encode_frame(0x11, 1)[:-2] + b"\x55\x00"
    nak = [(Nak(), 0)]
    for ms, expected in ((1000, nak), (1100, []), (1424, []), (1425, nak)):
        device.receive(bad_crc, ms / 1000)
        assert written(device) == expected, ms
    assert device.stats()["bad_frames"] == 4


def test_an_oversize_run_is_naked_once_at_its_256th_byte_and_the_next_frame_is_read(device: CDeviceLink) -> None:
    started(device)
    device.receive(b"\x42" * 255, 1.0)
    assert written(device) == []
    device.receive(b"\x42", 1.0)
    assert written(device) == [(Nak(), 0)]  # before any delimiter
    device.receive(b"\x42" * 100, 2.0)
    assert written(device) == []
    assert send(device, 3000, HELLO, 0) == []  # up to the next delimiter, the rest of the run
    device.receive(b"\x00" + encode_message(HELLO, 1), 3.1)
    assert isinstance(written(device)[0][0], HelloAck)


def test_a_new_hello_brings_the_unacknowledged_event_at_once(device: CDeviceLink) -> None:
    boot = started(device)
    device.poll(0.85)
    assert written(device) == boot and deadline(device) == 2550  # nobody listening: backing off
    assert isinstance(send(device, 1000, HELLO, 0)[0][0], HelloAck)
    assert deadline(device) == 1000
    device.poll(1.0)
    assert written(device) == boot


def test_frames_a_device_never_receives_are_ignored(device: CDeviceLink) -> None:
    boot = started(device)
    for msg, seq in boot + [(Ack(), 0), (Progress(1, 13), 0)]:  # its own frames, echoed back
        assert send(device, 10, msg, seq) == []
    assert device.stats()["ignored"] == 3


def test_a_command_type_this_version_does_not_define_is_damage(device: CDeviceLink) -> None:
    started(device)
    device.receive(encode_frame(0x1A, 1), 1.0)  # in the command range, right CRC, defined nowhere
    assert written(device) == [(Nak(), 0)]
    stats = device.stats()
    assert stats["bad_frames"] == 1 and stats["frames"] == 1


# --- the cases PROTOCOL.md once left open ---------------------------------------------------------------


def test_an_event_raised_by_a_command_goes_after_its_reply(device: CDeviceLink) -> None:
    boot = started(device)
    send(device, 5, HELLO, 0)
    assert send(device, 10, EventAck(), boot[0][1]) == []
    # the driver's LoadDeal raises a DealDone as it is carried out (4.3: the reply first, then the event)
    out = send(device, 20, LOAD, 1)
    kinds = [type(m).__name__ for m, _ in out]
    assert kinds.index("Ack") < kinds.index("DealDone"), kinds


def test_a_malformed_frame_of_the_devices_own_direction_is_damage(device: CDeviceLink) -> None:
    started(device)
    short_status = encode_frame(0x41, 3, b"\x01\x02")  # a Status, right CRC, payload far too short (2.4)
    assert send_raw(device, 1000, short_status) == [(Nak(), 0)]
    assert device.stats()["bad_frames"] == 1 and device.stats()["ignored"] == 0


def test_starting_the_backoff_again_keeps_the_nak_retransmission_used(device: CDeviceLink) -> None:
    boot = started(device)
    device.poll(0.85)
    assert written(device) == boot  # a timed retransmission: the next would wait 2 RTO
    assert deadline(device) == 850 + 1700
    assert send(device, 1000, Nak(), 0) == boot  # the host is heard (back to RTO) and its NAK honoured
    assert deadline(device) == 1000 + 850
    device.receive(b"\x05\x11\x22\x00", 1.2)  # heard again, garbled: the deadline is not put off
    assert written(device) == [(Nak(), 0)] and deadline(device) == 1850
    assert send(device, 1300, Nak(), 0) == []  # starting again from RTO gave no second NAK retransmission
    device.poll(1.85)
    assert written(device) == boot  # the timed one, at RTO


def send_raw(device: CDeviceLink, ms: int, frame: bytes) -> list[tuple[Message, int]]:
    device.receive(frame, ms / 1000)
    return written(device)


def test_a_reset_with_a_mode_the_document_does_not_define_is_refused_by_the_library(device: CDeviceLink) -> None:
    started(device)
    send(device, 5, HELLO, 0)
    assert send(device, 10, Reset(7), 1) == [(Refused(RefuseReason.UNSUPPORTED, 0x18), 1)]
    assert device.stats()["resets"] == 0  # the machine never saw it
    assert send(device, 20, Reset(ResetMode.CLEAR), 2) == [(Ack(), 2)]
    assert device.stats()["resets"] == 1


def test_a_hello_longer_than_this_versions_layout_is_answered_with_hello_ack(device: CDeviceLink) -> None:
    """PROTOCOL.md 5: a later version MAY add fields at the end of Hello; the bytes after this version's
    fields are ignored. The frame is built by hand: type 0x10, seq 0, version 1, the schema hash
    8F FD 51 C4, session BE EF, then two bytes a later version might add."""
    started(device)
    device.receive(encode_frame(0x10, 0, bytes.fromhex("01 8F FD 51 C4 BE EF 07 08")), 1.0)
    out = written(device)
    assert [(type(m).__name__, seq) for m, seq in out] == [("HelloAck", 0)]


def test_a_hello_shorter_than_this_versions_layout_is_damage(device: CDeviceLink) -> None:
    started(device)
    device.receive(encode_frame(0x10, 0, bytes.fromhex("01 8F FD 51 C4 BE")), 1.0)
    assert written(device) == [(Nak(), 0)]
    assert device.stats()["bad_frames"] == 1
