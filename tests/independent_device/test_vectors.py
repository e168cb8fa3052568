"""The device's codec against the golden vectors of `tests/vectors/` (PROTOCOL.md section 10).

The device was written without them; this is the check made afterwards that section 10 asks for.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.independent_device import messages as m
from tests.support.independent_device.wire import (
    Damage,
    Frame,
    StreamDecoder,
    cobs_decode,
    cobs_encode,
    crc16,
    encode_frame,
)

VECTORS = Path(__file__).resolve().parent.parent / "vectors"
BYTE_FIELDS = {"deal", "label", "text", "serial"}


def _hex(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


def _load(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    return loaded


def _fields(raw: dict[str, Any]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for name, value in raw.items():
        if name in BYTE_FIELDS:
            fields[name] = _hex(value)
        elif name == "pockets" and isinstance(value, list):
            fields[name] = [(p["cards"], p["unidentified"]) for p in value]
        else:
            fields[name] = value
    return fields


EXAMPLES = [
    pytest.param(source, example, id=f"{source}-{example['name']}-{i}")
    for source in ("messages.json", "handworked.json")
    for i, example in enumerate(_load(source)["messages"])
]


@pytest.mark.parametrize(("source", "example"), EXAMPLES)
def test_every_message_example_encodes_and_decodes(source: str, example: dict[str, Any]) -> None:
    fields = _fields(example["fields"])
    payload = m.encode_payload(example["type"], **fields)
    assert payload == _hex(example["payload"])
    assert encode_frame(example["type"], example["seq"], payload) == _hex(example["frame"])
    (frame,) = StreamDecoder().feed(_hex(example["frame"]))
    assert isinstance(frame, Frame) and frame.body == _hex(example["body"])
    assert m.decode_payload(frame.type_code, frame.payload) == fields


def test_schema_and_deals_of_messages_json() -> None:
    vectors = _load("messages.json")
    assert "".join(line + "\n" for line in vectors["schema"]) == m.SCHEMA_TEXT
    assert int(vectors["schema_hash"], 16) == m.SCHEMA_HASH
    for deal in vectors["deals"]:
        packed = _hex(deal["packed"])
        assert m.deal_hash(packed) == deal["hash"]
        assert "".join("NESW"[m.seat_of(packed, c)] for c in range(52)) == deal["seats"]


def test_crc_and_cobs_of_framing_json() -> None:
    vectors = _load("framing.json")
    for case in vectors["crc"]["cases"]:
        assert crc16(_hex(case["data"])) == int(case["crc"], 16)
    for case in vectors["cobs"]:
        assert cobs_encode(_hex(case["decoded"])) == _hex(case["encoded"])
        assert cobs_decode(_hex(case["encoded"])) == _hex(case["decoded"])


def _events(found: list[Frame | Damage]) -> list[dict[str, Any]]:
    return [
        {"bad": item.why, "length": item.length}
        if isinstance(item, Damage)
        else {"frame": {"type": item.type_code, "seq": item.seq, "payload": item.payload.hex()}}
        for item in found
    ]


@pytest.mark.parametrize("stream", _load("framing.json")["streams"], ids=lambda s: s["name"])
def test_streams_whole_and_byte_by_byte(stream: dict[str, Any]) -> None:
    data = _hex(stream["stream"])
    assert _events(StreamDecoder().feed(data)) == stream["events"]
    decoder = StreamDecoder()
    one_by_one: list[Frame | Damage] = []
    for byte in data:
        one_by_one += decoder.feed(bytes([byte]))
    assert _events(one_by_one) == stream["events"]
