"""The codec against the rules PROTOCOL.md states for what is malformed (sections 5 and 7.1) and against
the bytes section 8 prints, every expected value here worked out from the document, not from the codec."""

from __future__ import annotations

import re

import pytest

from firmware_protocol import Hello, HelloAck, RecountReport, decode_message
from firmware_protocol.errors import DecodeError
from firmware_protocol.framing import Frame, FrameDecoder
from tests.support import protocol_spec as spec


def test_a_hello_with_fields_a_later_version_added_reads_as_this_versions_hello() -> None:
    # 7.2: version 1, schema hash 8F FD 51 C4, session 12 34; then 2 bytes of a later version (section 5)
    msg = decode_message(0x10, bytes.fromhex("01 8F FD 51 C4 12 34 AA BB"))
    assert msg == Hello(1, 0x8FFD51C4, 0x1234)


def test_a_hello_ack_with_fields_a_later_version_added_reads_as_this_versions_hello_ack() -> None:
    # 7.2: version 1, hash, firmware 2.3.4, boot_id 00 05, capabilities 00 FF, 4 pockets, 1 hopper,
    # serial "S1"; then 3 bytes a later version might add after the serial
    payload = bytes.fromhex("01 8F FD 51 C4 02 03 04 00 05 00 FF 04 01 02 53 31 09 09 09")
    msg = decode_message(0x40, payload)
    assert isinstance(msg, HelloAck)
    assert (msg.firmware_major, msg.boot_id, msg.capabilities, msg.pockets, msg.serial) == (2, 5, 0xFF, 4, b"S1")


@pytest.mark.parametrize(("type_code", "payload"), [
    (0x10, "01 8F FD 51 C4 12"),        # a Hello one byte short
    (0x40, "01 8F FD 51 C4 02 03 04 00 05 00 FF 04 01 02 53"),  # a serial that runs past the end
    (0x11, "00"),                       # GetStatus: no payload, and only Hello and HelloAck may be longer
    (0x61, "01 00"),                    # BoardChanged one byte long
    (0x62, "00 00 41 41"),              # a label of 0x41 bytes: above the limit of 64
    (0x65, "00 01 01 01 34 00"),        # a card index 52
])
def test_only_lengths_limits_and_card_indices_are_malformed(type_code: int, payload: str) -> None:
    with pytest.raises(DecodeError):
        decode_message(type_code, bytes.fromhex(payload))


@pytest.mark.parametrize(("type_code", "payload"), [
    (0x62, "00 07 00"),                 # turns 7 (reserved): kept, judged by the application
    (0x62, "01 02 02 41 42"),           # NO_READ with turns 2 and a label
    (0x61, "05"),                       # present 5
    (0x64, "63 00 00 00 00 00 00"),     # fault code 99, which this version does not define
    (0x62, "00 00 02 C3 A9"),           # a label that is not ASCII
    (0x65, "00 01 02 00 00 00 00"),     # 2 pockets where HelloAck may have announced 4
])
def test_every_other_value_is_kept(type_code: int, payload: str) -> None:
    decode_message(type_code, bytes.fromhex(payload))  # no DecodeError


def test_the_full_recount_printed_in_section_8_is_the_deal_read_back() -> None:
    """Section 8: job 101, deal bytes 1B thirteen times (card c to seat c mod 4), each pocket read in
    ascending order: pocket s holds s, s + 4, ... s + 48, none unidentified; 69 bytes on the wire."""
    row = re.search(r"\| RecountReport\(101, 4 pockets of 13[^|]*\| 4 \| `([0-9A-F ]+)` \| 69 \|", spec.section("8"))
    assert row is not None
    wire = bytes.fromhex(row.group(1))
    assert len(wire) == 69
    (frame,) = FrameDecoder().feed(wire)
    assert isinstance(frame, Frame) and (frame.type, frame.seq) == (0x65, 4)
    msg = decode_message(frame.type, frame.payload)
    assert isinstance(msg, RecountReport) and msg.job == 101
    assert [(p.cards, p.unidentified) for p in msg.pockets] == [(tuple(range(s, 52, 4)), 0) for s in range(4)]


def test_the_line_time_of_section_8_follows_from_its_byte_counts() -> None:
    # 218 bytes at 9600 baud, 10 bits a byte: 227 ms; with the scan 256 bytes: 267 ms
    text = " ".join(spec.section("8").split())
    assert "218 bytes" in text and "227 ms" in text and "256 bytes and 267 ms" in text
    assert round(218 * 10 / 9600 * 1000) == 227 and round(256 * 10 / 9600 * 1000) == 267
