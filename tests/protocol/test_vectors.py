"""The codec against the committed golden vectors, and a few vectors recomputed independently."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from dealer.core import cards
from firmware_protocol import cobs
from firmware_protocol.crc import crc16
from firmware_protocol.deal import deal_hash, pack_seats
from firmware_protocol.framing import Frame, decode_frame, encode_body
from firmware_protocol.messages import (
    REGISTRY,
    SCHEMA_HASH,
    decode_message,
    encode_message,
    message_from_fields,
    schema_text,
)
from tests.support import protocol_reference as reference
from tests.support.golden_vectors import load, message_vectors

MESSAGES = message_vectors()


def test_schema_hash_and_text_match_the_vectors() -> None:
    data = load("messages.json")
    assert data["schema_hash"] == f"{SCHEMA_HASH:08x}"
    assert data["schema"] == schema_text().splitlines()


def test_every_registered_type_has_a_vector_and_no_vector_is_orphaned() -> None:
    names = {v["name"] for v in MESSAGES}
    assert names == {cls.__name__ for cls in REGISTRY.values()}


@pytest.mark.parametrize("vec", MESSAGES, ids=lambda v: f"{v['name']}-{v['seq']}")
def test_message_vector_encodes_and_decodes_exactly(vec: dict[str, Any]) -> None:
    msg = message_from_fields(vec["name"], vec["fields"])
    assert vec["type"] == msg.TYPE and msg.KIND.value == vec["kind"]
    assert msg.payload().hex() == vec["payload"]
    assert encode_body(msg.TYPE, vec["seq"], msg.payload()).hex() == vec["body"]
    assert encode_message(msg, vec["seq"]).hex() == vec["frame"]
    frame = decode_frame(bytes.fromhex(vec["frame"]))
    assert frame == Frame(vec["type"], vec["seq"], bytes.fromhex(vec["payload"]))
    decoded = decode_message(frame.type, frame.payload)
    assert decoded == msg
    assert decoded.to_fields() == vec["fields"]


@pytest.mark.parametrize("vec", MESSAGES, ids=lambda v: f"{v['name']}-{v['seq']}")
def test_message_vector_frame_matches_the_reference_recipe(vec: dict[str, Any]) -> None:
    expected = reference.frame(vec["type"], vec["seq"], bytes.fromhex(vec["payload"]))
    assert vec["frame"] == expected.hex()


def _vector(name: str, seq: int) -> dict[str, Any]:
    return next(v for v in MESSAGES if v["name"] == name and v["seq"] == seq)


def test_ack_frame_worked_by_hand() -> None:
    # body 01 05 | CRC-16/CCITT-FALSE(01 05); no zero in the body, so COBS is one run: code = 5.
    crc = reference.crc16_ccitt_false(b"\x01\x05")
    expected = bytes([0x05, 0x01, 0x05, crc >> 8, crc & 0xFF, 0x00])
    assert _vector("Ack", 5)["frame"] == expected.hex()
    # seq 0 puts a zero in the body: runs "01" and "00 crc crc" -> 02 01 03 crc crc 00
    crc0 = reference.crc16_ccitt_false(b"\x01\x00")
    assert _vector("Ack", 0)["frame"] == bytes([0x02, 0x01, 0x03, crc0 >> 8, crc0 & 0xFF, 0]).hex()


def test_load_deal_frame_worked_by_hand() -> None:
    vec = _vector("LoadDeal", 3)
    fields = vec["fields"]
    deal = bytes.fromhex(fields["deal"])
    payload = fields["job"].to_bytes(2, "big") + fields["board"].to_bytes(2, "big") + deal
    payload += bytes([reference.crc16_ccitt_false(deal) & 0xFF])
    assert fields["deal_hash"] == reference.crc16_ccitt_false(deal) & 0xFF
    assert vec["frame"] == reference.frame(0x13, 3, payload).hex()
    assert len(bytes.fromhex(vec["frame"])) <= 24


def test_recount_report_payload_worked_by_hand() -> None:
    vec = _vector("RecountReport", 10)
    pockets = vec["fields"]["pockets"]
    payload = vec["fields"]["job"].to_bytes(2, "big") + bytes([len(pockets)])
    for p in pockets:
        payload += bytes([len(p["cards"]), *p["cards"], p["unidentified"]])
    assert vec["payload"] == payload.hex()
    assert vec["frame"] == reference.frame(0x65, 10, payload).hex()


def test_status_payload_worked_by_hand() -> None:
    f = _vector("Status", 1)["fields"]
    payload = bytes([f["state"], f["activity"], f["flags"]]) + f["job"].to_bytes(2, "big")
    payload += f["board"].to_bytes(2, "big") + bytes([f["deal_hash"], f["cards_dealt"], f["fault"]])
    payload += f["fault_detail"].to_bytes(2, "big") + f["boot_id"].to_bytes(2, "big")
    payload += bytes([len(f["pocket_counts"]), *f["pocket_counts"]])
    assert _vector("Status", 1)["payload"] == payload.hex()


def test_deal_vectors_match_the_reference_packing_and_dealer_cards() -> None:
    for vec in load("messages.json")["deals"]:
        seats = ["NESW".index(ch) for ch in vec["seats"]]
        packed = bytes.fromhex(vec["packed"])
        assert reference.pack_deal(seats) == packed == pack_seats(seats)
        assert cards.pack(np.array(seats, dtype=np.uint8)).tobytes() == packed
        assert vec["hash"] == deal_hash(packed) == reference.crc16_ccitt_false(packed) & 0xFF


def test_pure_packing_agrees_with_dealer_cards_on_random_deals() -> None:
    rng = np.random.default_rng(5)
    base = np.repeat(np.arange(4, dtype=np.uint8), 13)
    for _ in range(200):
        deal = rng.permutation(base)
        assert pack_seats([int(s) for s in deal]) == cards.pack(deal).tobytes()


def test_crc_and_cobs_vectors() -> None:
    data = load("framing.json")
    assert data["crc"]["check"] == f"{crc16(b'123456789'):04x}"
    for case in data["crc"]["cases"]:
        raw = bytes.fromhex(case["data"])
        assert case["crc"] == f"{crc16(raw):04x}" == f"{reference.crc16_ccitt_false(raw):04x}"
    for case in data["cobs"]:
        raw, enc = bytes.fromhex(case["decoded"]), bytes.fromhex(case["encoded"])
        assert cobs.encode(raw) == enc == reference.cobs_encode(raw), case["name"]
        assert cobs.decode(enc) == raw

