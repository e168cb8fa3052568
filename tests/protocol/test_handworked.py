"""The hand-worked vectors (tests/vectors/handworked.json): checked against PROTOCOL.md, then the codec against them.

The file was written from the document, not from the codec. Two kinds of test use it:

* the file against the document: an encoder written here from the field types of section 7.1 and the
  rows of section 7.2 (as `tests.support.protocol_spec` reads them), a bitwise CRC from section 2.3 and a COBS
  encoder from section 2.2 must give exactly the file's layouts, payloads, CRCs, bodies and frames, so
  a slip in the hand-worked bytes fails too;
* the codec against the file: `firmware_protocol` must decode each frame to exactly the listed fields
  and encode the fields to exactly the listed payload, body and frame.

Nothing on the first side imports `firmware_protocol`.
"""

from __future__ import annotations

import re
from binascii import crc_hqx
from typing import Any

import pytest

from firmware_protocol.framing import Frame, decode_frame, encode_body
from firmware_protocol.layout import Pocket
from firmware_protocol.messages import REGISTRY, decode_message, encode_message, message_from_fields
from tests.support import protocol_spec as spec
from tests.support.golden_vectors import load

HAND = load("handworked.json")
EXAMPLES: list[dict[str, Any]] = HAND["messages"]
ROWS = {r.name: r for r in spec.messages()}


def hx(s: str) -> bytes:
    return bytes.fromhex(s)


# --- an independent encoder, from the document ----------------------------------------------------


def crc16(data: bytes) -> int:
    """Section 2.3's bitwise reference, as written there."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def cobs(data: bytes) -> bytes:
    """Section 2.2: each run of non-zero bytes as (length + 1, bytes); a run of 254 is code 0xFF, no zero implied."""
    out, run = bytearray(), bytearray()
    for i, b in enumerate(data):
        if b:
            run.append(b)
        if b == 0 or len(run) == 254:
            out += bytes([len(run) + 1]) + run
            run.clear()
            if b and i == len(data) - 1:  # a final run of exactly 254: no code byte after it
                return bytes(out)
    return bytes(out + bytes([len(run) + 1]) + run)


def encode_field(f: spec.SpecField, value: Any) -> bytes:
    """One field's bytes by section 7.1, from its JSON value."""
    if f.base in ("u8", "u16", "u32"):
        assert f.width is not None and 0 <= value < 1 << (8 * f.width), f"{f.name} = {value} does not fit {f.type}"
        return int(value).to_bytes(f.width, "big")
    if f.base == "bytes":
        assert len(hx(value)) == f.width
        return hx(value)
    assert f.limit is not None
    if f.base == "text":
        assert len(hx(value)) <= f.limit
        return bytes([len(hx(value))]) + hx(value)
    if f.base == "u8list":
        assert len(value) <= f.limit and all(0 <= v <= 255 for v in value)
        return bytes([len(value), *value])
    assert f.base == "pockets" and len(value) <= f.limit
    out = bytes([len(value)])
    for p in value:
        assert all(0 <= c <= 51 for c in p["cards"]), "card indices are 0..51"
        out += bytes([len(p["cards"]), *p["cards"], p["unidentified"]])
    return out


def size_of(formula: str, row: spec.SpecMessage, fields: dict[str, Any]) -> int:
    """A size column ("5 + n + m", "3 + Σ(2 + k)") evaluated for one example's fields."""
    texts = [len(hx(fields[f.name])) for f in row.fields if f.base == "text"]
    lists = [len(fields[f.name]) for f in row.fields if f.base == "u8list"]
    pockets = [fields[f.name] for f in row.fields if f.base == "pockets"]
    var = {"n": texts[:1], "m": texts[1:2], "p": lists, "S": [sum(2 + len(p["cards"]) for p in ps) for ps in pockets]}
    total = 0
    for term in formula.replace("Σ(2 + k)", "S").split(" + "):
        if term.isdigit():
            total += int(term)
        else:
            assert len(var[term]) == 1, f"{row.name}: {term} in {formula!r} stands for no field"
            total += var[term][0]
    return total


def test_the_independent_crc_gives_the_check_value_of_section_2_3() -> None:
    m = re.search(r"check \(CRC of the ASCII bytes `123456789`\) \| \*\*`0x([0-9A-F]{4})`\*\*", spec.section("2.3"))
    assert m is not None
    assert crc16(b"123456789") == int(m.group(1), 16) == 0x29B1
    assert crc_hqx(b"123456789", 0xFFFF) == 0x29B1


def _expand(hexes: str) -> bytes:
    """``01 02 .. FE`` -> the bytes 01 to FE."""
    out: list[int] = []
    tokens = hexes.split()
    for i, t in enumerate(tokens):
        if t == "..":
            out += range(out[-1] + 1, int(tokens[i + 1], 16))
        else:
            out.append(int(t, 16))
    return bytes(out)


def test_the_independent_cobs_gives_the_examples_of_section_2_2() -> None:
    (table,) = spec.tables(spec.section("2.2"))
    assert len(table) == 7
    for row in table:
        body = _expand(re.match(r"`([^`]+)`", row["body"]).group(1))  # type: ignore[union-attr]
        encoded = _expand(row["encoded"].strip("`"))
        assert cobs(body) == encoded, row


def test_the_independent_crc_and_cobs_agree_with_each_other_on_the_section_8_load_deal() -> None:
    # section 8: "the body is 13 02 | 00 65 00 11 1B…1B 0B | 0A 32", frame 03 13 02 02 65 12 11 1B…1B 0B 0A 32 00
    head = hx("13 02 00 65 00 11") + bytes([0x1B] * 13) + hx("0B")
    assert crc16(head) == 0x0A32
    assert cobs(head + hx("0A 32")) + b"\x00" == hx("03 13 02 02 65 12 11") + bytes([0x1B] * 13) + hx("0B 0A 32 00")


# --- the file against the document ------------------------------------------------------------------


def test_the_file_says_where_it_comes_from() -> None:
    assert HAND["source"] == "worked by hand from PROTOCOL.md §7.1-7.3"


def test_one_example_for_each_message_type_of_section_7_2() -> None:
    assert len(EXAMPLES) == len(ROWS) == 23
    assert [(e["name"], e["type"]) for e in EXAMPLES] == [(r.name, r.code) for r in spec.messages()]


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: e["name"])
def test_layout_and_payload_follow_sections_7_1_and_7_2(ex: dict[str, Any]) -> None:
    row = ROWS[ex["name"]]
    assert list(ex["fields"]) == [f.name for f in row.fields]
    assert [name for name, _ in ex["layout"]] == [f.name for f in row.fields]
    for f, (_, piece) in zip(row.fields, ex["layout"], strict=True):
        assert encode_field(f, ex["fields"][f.name]) == hx(piece), f"{ex['name']}.{f.name}"
    assert hx(ex["payload"]) == b"".join(hx(piece) for _, piece in ex["layout"])


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: e["name"])
def test_sizes_are_the_size_columns_of_section_7_2(ex: dict[str, Any]) -> None:
    row = ROWS[ex["name"]]
    assert len(hx(ex["payload"])) == size_of(row.payload_bytes, row, ex["fields"])
    assert len(hx(ex["frame"])) == size_of(row.wire_bytes, row, ex["fields"])


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: e["name"])
def test_crc_body_and_frame_follow_sections_2_1_to_2_3(ex: dict[str, Any]) -> None:
    head = bytes([ex["type"], ex["seq"]]) + hx(ex["payload"])
    assert hx(ex["crc"]) == crc16(head).to_bytes(2, "big") == crc_hqx(head, 0xFFFF).to_bytes(2, "big")
    assert hx(ex["body"]) == head + hx(ex["crc"])
    assert crc16(hx(ex["body"])) == 0  # section 2.3: the CRC of a whole body is 0
    frame = hx(ex["frame"])
    assert frame == cobs(hx(ex["body"])) + b"\x00"
    assert 0 not in frame[:-1] and len(frame) == len(hx(ex["body"])) + 2


def _example(name: str) -> dict[str, Any]:
    (found,) = [e for e in EXAMPLES if e["name"] == name]
    return found


def test_the_load_deal_example_is_a_whole_deal_with_its_hash() -> None:
    f = _example("LoadDeal")["fields"]
    deal = hx(f["deal"])
    seats = [(deal[c >> 2] >> (6 - 2 * (c & 3))) & 3 for c in range(52)]  # section 7.3
    assert [seats.count(s) for s in range(4)] == [13, 13, 13, 13]
    assert f["deal_hash"] == crc16(deal) & 0xFF  # section 7.2: low byte of the CRC of the 13 bytes


def test_the_examples_exercise_the_edges() -> None:
    enums = spec.enums()
    texts, u16s, unknown = [], [], set()
    for ex in EXAMPLES:
        for f in ROWS[ex["name"]].fields:
            v = ex["fields"][f.name]
            if f.base == "text":
                texts.append(len(hx(v)))
            if f.base == "u16":
                u16s.append(v)
            if f.enum and f.bits and v & ~sum(enums[f.enum].values):
                unknown.add(f"{ex['name']}.{f.name}")
            if f.enum and not f.bits and v not in enums[f.enum].values:
                unknown.add(f"{ex['name']}.{f.name}")
    assert 0 in texts and any(n >= 5 for n in texts), "a text of 0 bytes and one of several"
    assert any(v >= 256 and v & 0xFF == 0 for v in u16s) and any(v >= 0x8000 for v in u16s)
    assert unknown >= {"Fault.code", "HelloAck.capabilities", "Status.flags"}, "values the receiver may not know"
    assert len(_example("Status")["fields"]["pocket_counts"]) == 4
    pockets = _example("RecountReport")["fields"]["pockets"]
    assert any(p["unidentified"] for p in pockets) and any(not p["cards"] for p in pockets)
    assert any(len(p["cards"]) != len(set(p["cards"])) for p in pockets), "a card read twice"
    assert {0, 51} <= {c for p in pockets for c in p["cards"]}
    assert {e["seq"] for e in EXAMPLES} >= {0, 255}
    assert any(0 in hx(e["payload"]) for e in EXAMPLES)
    assert any(b"\x00\x00" in hx(e["payload"]) for e in EXAMPLES), "adjacent zero bytes"
    assert any(hx(e["crc"])[0] == 0 for e in EXAMPLES) and any(hx(e["body"])[-1] == 0 for e in EXAMPLES)


# --- the codec against the file ---------------------------------------------------------------------


def python_value(f: spec.SpecField, value: Any) -> Any:
    """The attribute value a message object holds for a field's JSON value."""
    if f.base in ("bytes", "text"):
        return hx(value)
    if f.base == "u8list":
        return tuple(value)
    if f.base == "pockets":
        return tuple(Pocket(tuple(p["cards"]), p["unidentified"]) for p in value)
    return value


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: e["name"])
def test_the_codec_decodes_the_frame_to_the_listed_fields(ex: dict[str, Any]) -> None:
    frame = decode_frame(hx(ex["frame"]))
    assert frame == Frame(ex["type"], ex["seq"], hx(ex["payload"]))
    msg = decode_message(frame.type, frame.payload)
    assert type(msg).__name__ == ex["name"]
    for f in ROWS[ex["name"]].fields:
        assert getattr(msg, f.name) == python_value(f, ex["fields"][f.name]), f"{ex['name']}.{f.name}"
    assert msg.to_fields() == ex["fields"]


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: e["name"])
def test_the_codec_encodes_the_fields_to_the_listed_bytes(ex: dict[str, Any]) -> None:
    cls = REGISTRY[ex["type"]]
    msg = cls(**{f.name: python_value(f, ex["fields"][f.name]) for f in ROWS[ex["name"]].fields})
    assert msg.payload() == hx(ex["payload"])
    assert encode_body(ex["type"], ex["seq"], msg.payload()) == hx(ex["body"])
    assert encode_message(msg, ex["seq"]) == hx(ex["frame"])
    assert message_from_fields(ex["name"], ex["fields"]) == msg
