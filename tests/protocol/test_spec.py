"""PROTOCOL.md against the code: the message table, the field types, the value tables, the constants.

The document is read by `tests.support.protocol_spec`, which does not import the codec. For every message the
row of section 7.2 (code, name, kind, direction, sync, reply, and each payload field's name, order,
type, width, limit and enumeration) must equal what the codec declares (`cls.CODEC.fields`); the size
columns must follow from the field types of section 7.1; the value tables of section 7.4 must list
exactly the members of `firmware_protocol.codes`.
"""

from __future__ import annotations

import re
from binascii import crc_hqx
from enum import IntEnum, IntFlag
from typing import NamedTuple

import pytest

from firmware_protocol import codes
from firmware_protocol.crc import CRC_CHECK
from firmware_protocol.framing import MAX_PAYLOAD, MAX_WIRE
from firmware_protocol.layout import ByteList, FieldSpec, FixedBytes, PocketList, Text, UInt
from firmware_protocol.link import REPLY_TIME
from firmware_protocol.messages import REGISTRY, SCHEMA_HASH, Direction, Kind, Message, schema_text
from tests.support import protocol_spec as spec

SPEC = spec.text()
ROWS = spec.messages()
CLASSES: list[type[Message]] = sorted(REGISTRY.values(), key=lambda c: int(c.TYPE))
ENUMS: list[type[IntEnum] | type[IntFlag]] = [
    v for v in vars(codes).values()
    if isinstance(v, type) and issubclass(v, IntEnum | IntFlag) and v.__module__ == codes.__name__]

KINDS = {"reply": Kind.REPLY, "response": Kind.REPLY, "link": Kind.NAK, "command": Kind.COMMAND,
         "event": Kind.EVENT, "notice": Kind.NOTICE}
DIRECTIONS = {"H→D": Direction.TO_DEVICE, "D→H": Direction.TO_HOST, "both": Direction.BOTH}
SECTION_3_DIRECTIONS = {"host → device": "H→D", "device → host": "D→H", "both": "both"}


class Field(NamedTuple):
    """A payload field reduced to what both sides state: compared as a whole, in order."""

    name: str
    type: str  # u8, u16, u32, bytes, text, u8list, pockets
    width: int | None  # bytes of an integer or of a fixed bytes field
    limit: int | None  # most bytes / values / pockets of a variable field
    enum: str | None  # the enumeration the value is read as
    bits: bool  # the enumeration is a set of flag bits (IntFlag)


def from_document(f: spec.SpecField) -> Field:
    return Field(f.name, f.base, f.width, f.limit, f.enum, f.bits)


def from_codec(f: FieldSpec) -> Field:
    k = f.kind
    if isinstance(k, UInt):
        enum = k.enum
        return Field(f.name, f"u{8 * k.size}", k.size, None, enum.__name__ if enum else None,
                     enum is not None and issubclass(enum, IntFlag))
    if isinstance(k, FixedBytes):
        return Field(f.name, "bytes", k.size, None, None, False)
    if isinstance(k, Text):
        return Field(f.name, "text", None, k.max_len, None, False)
    if isinstance(k, ByteList):
        return Field(f.name, "u8list", None, k.max_len, None, False)
    if isinstance(k, PocketList):
        return Field(f.name, "pockets", None, k.max_pockets, None, False)
    raise AssertionError(f"{f.name}: field kind {type(k).__name__} has no type in PROTOCOL.md section 7.1")


def row_of(cls: type[Message]) -> spec.SpecMessage:
    rows = [r for r in ROWS if r.code == cls.TYPE]
    assert len(rows) == 1, f"0x{cls.TYPE:02X} {cls.__name__}: {len(rows)} rows in section 7.2"
    return rows[0]


# --- the schema block (section 5) ---------------------------------------------------------------


def test_the_schema_block_is_the_schema_text() -> None:
    assert "```\n" + schema_text() + "```" in SPEC
    assert f"schema hash **`0x{SCHEMA_HASH:08X}`**" in SPEC


# --- the message table (section 7.2) against the codec -------------------------------------------


def test_the_message_table_has_one_row_per_registered_type() -> None:
    assert len(ROWS) == 23
    assert [(r.code, r.name) for r in ROWS] == [(int(c.TYPE), c.__name__) for c in CLASSES]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_row_fields_are_the_codec_fields(cls: type[Message]) -> None:
    """Same names in the same order, same type and width, same limits, same enumeration."""
    document = [from_document(f) for f in row_of(cls).fields]
    codec = [from_codec(f) for f in cls.CODEC.fields]
    assert document == codec


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_row_kind_direction_sync_and_reply_are_the_codec_s(cls: type[Message]) -> None:
    row = row_of(cls)
    assert KINDS[row.kind] is cls.KIND
    assert DIRECTIONS[row.direction] is cls.DIRECTION
    assert row.sync is cls.SYNC
    if cls.KIND is Kind.COMMAND:
        assert cls.REPLY is not None
        first = re.match(r"[A-Z][A-Za-z]+", row.reply)
        assert first is not None and first.group() == REGISTRY[cls.REPLY].__name__
    else:
        assert cls.REPLY is None
        assert row.reply == {Kind.EVENT: "EventAck", Kind.NOTICE: "none"}.get(cls.KIND, "—")


def test_messages_named_in_the_reply_column_exist() -> None:
    names = {r.name for r in ROWS}
    for row in ROWS:
        for word in re.findall(r"[A-Z][a-z]+[A-Z][A-Za-z]*|[A-Z][a-z]+", row.reply):
            assert word in names, f"{row.name}: reply column names {word!r}"


# --- the table against the rest of the document ---------------------------------------------------


def test_every_field_type_of_the_table_is_defined_in_section_7_1() -> None:
    rules = spec.field_type_sizes()
    assert set(rules) == {"u8", "u16", "u32", "bytes[13]", "text[<=N]", "u8list[<=N]", "pockets[<=N]"}
    for row in ROWS:
        for f in row.fields:
            assert f.pattern in rules, f"{row.name}.{f.name}: type {f.type} is not in section 7.1"


def expected_sizes(row: spec.SpecMessage) -> tuple[str, str]:
    """The payload and wire size columns as section 7.1's field sizes imply them.

    Variable parts are named as the legend under the table names them: n and m for the first and
    second text, p for a list of pocket counts, Σ(2 + k) for recounted pockets.
    """
    rules = spec.field_type_sizes()
    texts = iter(["n", "m"])
    const, parts = 0, []
    for f in row.fields:
        rule = rules[f.pattern]
        const += rule.const
        if rule.var is None:
            continue
        if f.base == "text":
            parts.append(next(texts))
        elif f.base == "u8list":
            parts.append("p")
        else:
            parts.append(rule.var)
    return (" + ".join([str(const), *parts]),
            " + ".join([str(const + spec.WIRE_OVERHEAD), *parts]))


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_size_columns_follow_from_the_field_types(row: spec.SpecMessage) -> None:
    assert (row.payload_bytes, row.wire_bytes) == expected_sizes(row)


def test_size_legend_and_wire_overhead_are_stated() -> None:
    chunk = " ".join(spec.section("7.2").split())
    assert '"Wire" is the frame size on the wire, delimiter included: payload + 6 bytes.' in chunk
    assert "(n, m: bytes of text; p: number of pockets, 4 on a bridge machine; k: cards in a pocket." in chunk
    # section 2.1: type + seq + 2 CRC bytes, one COBS byte for a body of at most 254, the delimiter
    assert spec.WIRE_OVERHEAD == 1 + 1 + 2 + 1 + 1
    # "A full recount of 52 cards in 4 pockets is 63 payload bytes, 69 on the wire."
    full = 3 + sum(2 + 13 for _ in range(4))
    assert f"A full recount of 52 cards in 4 pockets is {full} payload bytes, {full + 6} on the wire" in chunk


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_kind_column_agrees_with_section_3(row: spec.SpecMessage) -> None:
    ranges = [r for r in spec.code_ranges() if r.first <= row.code <= r.last]
    assert len(ranges) == 1, f"0x{row.code:02X} is in {len(ranges)} ranges of section 3"
    (rng,) = ranges
    assert rng.kind.split()[0] == row.kind
    assert SECTION_3_DIRECTIONS[rng.direction] == row.direction
    if row.kind == "reply":
        assert row.kind_text == rng.kind  # "reply to a command" / "reply to an event"


def test_every_enumeration_named_in_the_table_has_a_value_table() -> None:
    tables = spec.enums()
    named = {f.enum for r in ROWS for f in r.fields if f.enum}
    assert named == set(tables), "an enumeration of 7.4 is held by no field, or a field names no 7.4 table"
    for r in ROWS:
        for f in r.fields:
            if f.enum:
                assert f.base == "u8" or (f.bits and f.base in ("u8", "u16")), f"{r.name}.{f.name}"
                assert max(tables[f.enum].values) < 1 << (8 * (f.width or 0)), f"{r.name}.{f.name} too narrow"


def test_enumeration_headings_name_the_fields_that_hold_them() -> None:
    fields = {f"{r.name}.{f.name}": f for r in ROWS for f in r.fields}
    for e in spec.enums().values():
        for ref in re.findall(r"\b[A-Z][A-Za-z]+\.[a-z_]+\b", e.heading_note):
            assert ref in fields, f"{e.name}: heading names {ref}, which is not a field of section 7.2"
            assert fields[ref].enum == e.name, f"{ref} does not name {e.name} in section 7.2"
            assert fields[ref].bits == ("bits of" in e.heading_note)


# --- value tables (sections 6 and 7.4) against codes.py -------------------------------------------


def test_the_document_and_codes_have_the_same_enumerations() -> None:
    assert set(spec.enums()) == {e.__name__ for e in ENUMS}


@pytest.mark.parametrize("enum", ENUMS, ids=lambda e: e.__name__)
def test_value_table_lists_exactly_the_enum_members(enum: type[IntEnum] | type[IntFlag]) -> None:
    table = spec.enums()[enum.__name__].values
    assert table == {int(m): m.name for m in enum}
    if issubclass(enum, IntFlag):
        assert all(v & (v - 1) == 0 and v for v in table), "flag values must be single bits"


# --- the packed deal (section 7.3) ------------------------------------------------------------------


def test_the_packed_deal_example_follows_the_rule_and_hash() -> None:
    chunk = spec.section("7.3")
    m = re.search(r"packs as\n`([0-9A-F ]+)` \(deal hash `0x([0-9A-F]{2})`", chunk)
    assert m is not None
    packed, stated_hash = bytes.fromhex(m.group(1)), int(m.group(2), 16)
    assert len(packed) == 13
    # the rule of section 7.3, applied to the example: all spades N, hearts E, diamonds S, clubs W
    seats = [(packed[c >> 2] >> (6 - 2 * (c & 3))) & 3 for c in range(52)]
    assert seats == [c // 13 for c in range(52)]
    # deal_hash: the low byte of the CRC-16/CCITT-FALSE of the 13 bytes (section 7.2)
    assert stated_hash == crc_hqx(packed, 0xFFFF) & 0xFF


# --- golden vectors (section 10) ----------------------------------------------------------------------


def test_section_10_lists_every_vector_file() -> None:
    listed = set(re.findall(r"^\* `([a-z]+\.json)`:", spec.section("10"), re.MULTILINE))
    assert listed == {p.name for p in (spec.SPEC_PATH.parents[1] / "tests" / "vectors").glob("*.json")}


# --- constants ----------------------------------------------------------------------------------------


def test_constants_quoted_in_the_spec() -> None:
    assert f"**`0x{CRC_CHECK:04X}`**" in SPEC
    assert f"at most **{MAX_WIRE} bytes on the wire**" in SPEC
    assert f"payload at most {MAX_PAYLOAD} bytes" in SPEC
    assert f"| `T_reply` | {REPLY_TIME * 1000:.0f} ms |" in SPEC
