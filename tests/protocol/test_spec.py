"""PROTOCOL.md against the code: the schema text, the message table, the value tables, the constants."""

from __future__ import annotations

import re
from enum import IntEnum, IntFlag
from pathlib import Path

import pytest

from firmware_protocol import codes
from firmware_protocol.crc import CRC_CHECK
from firmware_protocol.framing import MAX_PAYLOAD, MAX_WIRE
from firmware_protocol.link import REPLY_TIME
from firmware_protocol.messages import REGISTRY, SCHEMA_HASH, Message, schema_text

SPEC = (Path(__file__).resolve().parents[2] / "firmware_protocol" / "PROTOCOL.md").read_text(encoding="utf-8")
CLASSES: list[type[Message]] = sorted(REGISTRY.values(), key=lambda c: int(c.TYPE))
ENUMS = [v for v in vars(codes).values()
         if isinstance(v, type) and issubclass(v, IntEnum | IntFlag) and v.__module__ == codes.__name__]


def test_the_schema_block_is_the_schema_text() -> None:
    assert "```\n" + schema_text() + "```" in SPEC
    assert f"schema hash **`0x{SCHEMA_HASH:08X}`**" in SPEC


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_message_has_a_row_with_its_sizes(cls: type[Message]) -> None:
    rows = [line for line in SPEC.splitlines() if line.startswith(f"| `0x{cls.TYPE:02X}` | {cls.__name__} |")]
    assert len(rows) == 1, f"no row for {cls.__name__} in section 7.2"
    cells = [c.strip() for c in rows[0].split("|")[1:-1]]
    for f in cls.CODEC.fields:
        assert f.name in cells[3], f"{cls.__name__}.{f.name} missing from its row"
    size = getattr(cls.CODEC, "_struct", None)
    if size is not None:  # fixed layouts: payload and wire sizes are exact numbers
        assert cells[4:6] == [str(size.size), str(size.size + 6)]


@pytest.mark.parametrize("enum", ENUMS, ids=lambda e: e.__name__)
def test_every_enumerated_value_is_in_a_table(enum: type[IntEnum]) -> None:
    for member in enum:
        assert re.search(rf"^\| {int(member)} \| {member.name} \|", SPEC, re.MULTILINE), (
            f"{enum.__name__}.{member.name} = {int(member)} is not in PROTOCOL.md")


def test_constants_quoted_in_the_spec() -> None:
    assert f"**`0x{CRC_CHECK:04X}`**" in SPEC
    assert f"at most **{MAX_WIRE} bytes on the wire**" in SPEC
    assert f"payload at most {MAX_PAYLOAD} bytes" in SPEC
    assert f"| `T_reply` | {REPLY_TIME * 1000:.0f} ms |" in SPEC
