"""The device's codec against the worked examples printed in PROTOCOL.md (sections 2, 7.3, 8, 12)."""

from __future__ import annotations

import pytest

from tests.support.independent_device import messages as m
from tests.support.independent_device.labels import make_label, parse_label
from tests.support.independent_device.wire import (
    Damage,
    Frame,
    StreamDecoder,
    cobs_decode,
    cobs_encode,
    crc16,
    encode_frame,
)

COBS_TABLE = [  # section 2.2
    ("00", "01 01"),
    ("00 00", "01 01 01"),
    ("11 22 00 33", "03 11 22 02 33"),
    ("11 22 33 44", "05 11 22 33 44"),
    ("11 00 00 00", "02 11 01 01 01"),
    (bytes(range(1, 255)).hex(), "FF" + bytes(range(1, 255)).hex()),
    (bytes(range(1, 256)).hex(), "FF" + bytes(range(1, 255)).hex() + "02 FF"),
]


@pytest.mark.parametrize(("body", "encoded"), COBS_TABLE)
def test_cobs_table_of_section_2_2(body: str, encoded: str) -> None:
    assert cobs_encode(bytes.fromhex(body)) == bytes.fromhex(encoded)
    assert cobs_decode(bytes.fromhex(encoded)) == bytes.fromhex(body)


def test_crc_check_value_of_section_2_3() -> None:
    assert crc16(b"123456789") == 0x29B1


def test_schema_hash_of_section_5() -> None:
    assert m.schema_hash_of(m.SCHEMA_TEXT) == 0x94585374 == m.SCHEMA_HASH


def test_packed_deal_of_section_7_3() -> None:
    deal = bytes.fromhex("00 00 00 15 55 55 5A AA AA AB FF FF FF")
    assert m.deal_hash(deal) == 0xE7
    assert [m.seat_of(deal, c) for c in (0, 12, 13, 25, 26, 38, 39, 51)] == [0, 0, 1, 1, 2, 2, 3, 3]


SECTION_8 = [  # (type, seq, fields, frame) from the table of section 8
    (m.T.SCAN_BOARD, 1, {}, "05 12 01 68 3F 00"),
    (m.T.ACK, 1, {}, "05 01 01 3E 1F 00"),
    (
        m.T.BOARD_SCANNED,
        1,
        {"result": 0, "turns": 0, "label": b"RED:17:N0:8"},
        "03 62 01 01 0F 0B 52 45 44 3A 31 37 3A 4E 30 3A 38 5D 34 00",
    ),
    (m.T.EVENT_ACK, 1, {}, "05 04 01 C1 EA 00"),
    (
        m.T.LOAD_DEAL,
        2,
        {"job": 101, "board": 17, "deal": bytes([0x1B] * 12 + [0x1B]), "deal_hash": 0x0B},
        "03 13 02 02 65 12 11 1B 1B 1B 1B 1B 1B 1B 1B 1B 1B 1B 1B 1B 0B 0A 32 00",
    ),
    (m.T.ACK, 2, {}, "05 01 02 0E 7C 00"),
    (m.T.RECOUNT, 3, {"job": 101}, "03 16 03 04 65 DD AD 00"),
    (
        m.T.RECOUNT_REPORT,
        2,
        {"job": 101, "pockets": [([], 0)] * 4},
        "03 65 02 03 65 04 01 01 01 01 01 01 01 03 0C 18 00",
    ),
    (m.T.START_DEAL, 4, {"job": 101}, "03 14 04 04 65 B5 55 00"),
    (m.T.PROGRESS, 0, {"job": 101, "cards_dealt": 13}, "02 70 01 05 65 0D 29 F8 00"),
    (
        m.T.DEAL_DONE,
        3,
        {"job": 101, "outcome": 0, "cards_dealt": 52, "pocket_counts": [13] * 4},
        "03 63 03 02 65 09 34 04 0D 0D 0D 0D 4A 9E 00",
    ),
    (m.T.EVENT_ACK, 4, {}, "05 04 04 91 4F 00"),
]


@pytest.mark.parametrize(("code", "seq", "fields", "frame"), SECTION_8)
def test_frames_of_section_8(code: int, seq: int, fields: dict[str, object], frame: str) -> None:
    wire = bytes.fromhex(frame)
    assert encode_frame(code, seq, m.encode_payload(code, **fields)) == wire
    (decoded,) = StreamDecoder().feed(wire)
    assert isinstance(decoded, Frame)
    assert (decoded.type_code, decoded.seq) == (code, seq)
    assert m.decode_payload(code, decoded.payload) == fields


def test_the_section_8_load_deal_is_a_valid_deal() -> None:
    deal = bytes([0x1B] * 13)
    assert m.deal_hash(deal) == 0x0B


def test_damage_and_resync_of_section_2_4() -> None:
    good = encode_frame(m.T.GET_STATUS, 7, b"")
    stream = b"\x00\x00" + b"\x01" * 300 + b"\x00" + b"\x02\x11" + b"\x00" + b"\x03\x11\x00" + good
    found = []
    decoder = StreamDecoder()
    for byte in stream:  # one byte at a time: the same events as whole
        found += decoder.feed(bytes([byte]))
    assert found == StreamDecoder().feed(stream)
    assert [type(x) for x in found] == [Damage, Damage, Damage, Frame]
    assert found[:3] == [Damage("oversize", 256), Damage("short", 2), Damage("cobs", 2)]


def test_malformed_payloads_of_section_7_1() -> None:
    with pytest.raises(m.Malformed):
        m.decode_payload(m.T.START_DEAL, b"\x00")
    with pytest.raises(m.Malformed):
        m.decode_payload(m.T.GET_STATUS, b"\x00")
    with pytest.raises(m.Malformed):
        m.decode_payload(0x1A, b"")
    with pytest.raises(m.Malformed):
        m.decode_payload(m.T.RECOUNT_REPORT, bytes([0, 1, 1, 1, 52, 0]))


def test_label_example_and_law_2_marks_of_section_12() -> None:
    assert make_label("RED", 17) == "RED:17:N0:8"
    marks = {b: make_label("A", b).split(":")[2] for b in range(1, 17)}
    assert [marks[b][1] for b in (1, 8, 11, 14)] == ["0"] * 4
    assert [marks[b][1] for b in (2, 5, 12, 15)] == ["N"] * 4
    assert [marks[b][1] for b in (3, 6, 9, 16)] == ["E"] * 4
    assert [marks[b][1] for b in (4, 7, 10, 13)] == ["B"] * 4
    assert [marks[b][0] for b in (1, 2, 3, 4, 5)] == list("NESWN")
    assert parse_label("RED:17:N0:8") == ("RED", 17)
    assert parse_label("RED:17:N0:9") is None and parse_label("RED:71:N0:8") is None


def test_the_one_non_canonical_cobs_encoding_decodes_to_the_same_body() -> None:
    body = bytes(range(1, 255))  # section 2.2: a final FF block followed by 01
    assert cobs_decode(b"\xff" + body + b"\x01") == body == cobs_decode(cobs_encode(body))
