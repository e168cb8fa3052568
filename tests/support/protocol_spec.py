"""PROTOCOL.md read as data: its sections, tables, field types, message table and value tables.

Nothing here imports `firmware_protocol`: the tests compare what this module reads from the document
with what the codec declares, so neither side can supply the other's expected values. The parsing is
strict: a row or a field that does not have the documented shape raises `SpecFormatError` instead of
being skipped, so a malformed table fails the tests rather than hiding a difference.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from tests.support.paths import ROOT

SPEC_PATH = ROOT / "firmware_protocol" / "PROTOCOL.md"
WIRE_OVERHEAD = 6
"""Bytes a frame adds to its payload (section 2.1): type, seq, 2 CRC bytes, 1 COBS byte, the delimiter."""


class SpecFormatError(ValueError):
    """A part of PROTOCOL.md does not have the shape this reader expects."""


@cache
def text() -> str:
    return SPEC_PATH.read_text(encoding="utf-8")


def section(number: str) -> str:
    """The text of section `number` ("6", "7.2"), from its heading up to the next heading of its level or above."""
    lines = text().splitlines()
    level = 2 if "." not in number else 3
    head = re.compile(rf"^#{{{level}}} {re.escape(number)}[. ]")
    starts = [i for i, line in enumerate(lines) if head.match(line)]
    if len(starts) != 1:
        raise SpecFormatError(f"section {number} heading found {len(starts)} times")
    out = [lines[starts[0]]]
    for line in lines[starts[0] + 1:]:
        m = re.match(r"^(#+) ", line)
        if m and len(m.group(1)) <= level:
            break
        out.append(line)
    return "\n".join(out)


def tables(chunk: str) -> list[list[dict[str, str]]]:
    """Every markdown table in `chunk`, as rows of {header: cell} (cells stripped, the rule line dropped)."""
    found: list[list[dict[str, str]]] = []
    block: list[str] = []
    for line in [*chunk.splitlines(), ""]:
        if line.startswith("|"):
            block.append(line)
            continue
        if block:
            header = _cells(block[0])
            if len(block) < 2 or not re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", block[1].replace(" ", "")):
                raise SpecFormatError(f"table without a rule line: {block[0]}")
            rows = []
            for row in block[2:]:
                cells = _cells(row)
                if len(cells) != len(header):
                    raise SpecFormatError(f"row with {len(cells)} cells under {len(header)} headers: {row}")
                rows.append(dict(zip(header, cells, strict=True)))
            found.append(rows)
            block = []
    return found


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().removeprefix("|").removesuffix("|").split("|")]


def split_top_level(cell: str) -> list[str]:
    """`cell` split at ", " outside parentheses (a field's note may contain commas)."""
    parts, depth, cur = [], 0, ""
    for ch in cell:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return parts


# --- section 7.1: field types ------------------------------------------------------------------


@dataclass(frozen=True)
class SizeRule:
    """What a field type adds to a payload: a constant, plus a variable part (None for fixed types)."""

    const: int
    var: str | None


def field_type_sizes() -> dict[str, SizeRule]:
    """Section 7.1's size column, by type pattern: ``u16`` -> 2, ``text[<=N]`` -> 1 + n, ..."""
    (table,) = tables(section("7.1"))
    rules: dict[str, SizeRule] = {}
    for row in table:
        names = re.findall(r"`([^`]+)`", row["type"])
        sizes = [s.strip() for s in row["size"].split(",")]
        if len(names) == len(sizes) and all(s.isdigit() for s in sizes):  # "`u8`, `u16`, `u32`" | "1, 2, 4"
            for name, size in zip(names, sizes, strict=True):
                rules[name] = SizeRule(int(size), None)
        elif len(names) == 1 and (m := re.fullmatch(r"(\d+) \+ (.+)", row["size"])):
            rules[names[0]] = SizeRule(int(m.group(1)), m.group(2))
        else:
            raise SpecFormatError(f"section 7.1 row not understood: {row}")
    return rules


# --- section 7.2: the message table ------------------------------------------------------------

FIELD_RE = re.compile(
    r"(?P<name>[a-z][a-z0-9_]*) "
    r"(?P<type>u8|u16|u32|bytes\[(?P<size>\d+)\]|(?P<var>text|u8list|pockets)\[<=(?P<limit>\d+)\])"
    r"(?: \((?P<note>[^()]*)\))?"
)
ENUM_NOTE_RE = re.compile(r"(?P<enum>[A-Z][A-Za-z]+)(?P<bits> bits)?")
"""A field's note names the enumeration it holds when it is one CamelCase word ("RefuseReason"), or one
followed by " bits" for a set of flag bits ("StatusFlag bits"); any other note is a comment."""


@dataclass(frozen=True)
class SpecField:
    """One payload field as section 7.2 writes it, e.g. ``reason u8 (RefuseReason)``."""

    name: str
    type: str  # as written: u8, u16, u32, bytes[13], text[<=64], u8list[<=8], pockets[<=8]
    base: str  # u8, u16, u32, bytes, text, u8list, pockets
    width: int | None  # bytes of an integer or of a bytes[N] field; None for variable-length types
    limit: int | None  # N of text[<=N], u8list[<=N], pockets[<=N]
    enum: str | None  # the enumeration named in the note (section 7.4), if any
    bits: bool  # True if the note says "<Enum> bits" (a set of IntFlag bits)
    note: str | None

    @property
    def pattern(self) -> str:
        """The type as section 7.1 lists it: ``text[<=64]`` -> ``text[<=N]``."""
        return re.sub(r"\[<=\d+\]", "[<=N]", self.type)


def parse_field(cell: str) -> SpecField:
    m = FIELD_RE.fullmatch(cell)
    if m is None:
        raise SpecFormatError(f"payload field not understood: {cell!r}")
    base = m.group("var") or ("bytes" if m.group("size") else m.group("type"))
    width = int(m.group("size")) if m.group("size") else (int(base[1:]) // 8 if base.startswith("u") and
                                                           base != "u8list" else None)
    note = m.group("note")
    enum_m = ENUM_NOTE_RE.fullmatch(note) if note else None
    return SpecField(
        name=m.group("name"), type=m.group("type"), base=base, width=width,
        limit=int(m.group("limit")) if m.group("limit") else None,
        enum=enum_m.group("enum") if enum_m else None, bits=bool(enum_m and enum_m.group("bits")), note=note,
    )


@dataclass(frozen=True)
class SpecMessage:
    """One row of section 7.2."""

    code: int
    name: str
    kind: str  # first word of the kind column: reply, link, command, response, event, notice
    kind_text: str  # the kind column before the direction, e.g. "reply to a command", "command (sync)"
    sync: bool
    direction: str  # H→D, D→H or both
    fields: tuple[SpecField, ...]
    payload_bytes: str
    wire_bytes: str
    reply: str


def messages() -> list[SpecMessage]:
    """Every row of the message table of section 7.2, in document order."""
    (table,) = tables(section("7.2"))
    out = []
    for row in table:
        code_m = re.fullmatch(r"`0x([0-9A-F]{2})`", row["code"])
        kind_m = re.fullmatch(r"(?P<kind>.+), (?P<dir>H→D|D→H|both)", row["kind, direction"])
        if code_m is None or kind_m is None or not re.fullmatch(r"[A-Z][A-Za-z]+", row["name"]):
            raise SpecFormatError(f"section 7.2 row not understood: {row}")
        kind_text = kind_m.group("kind")
        cell = row["payload fields"]
        fields = () if cell == "—" else tuple(parse_field(f) for f in split_top_level(cell))
        out.append(SpecMessage(
            code=int(code_m.group(1), 16), name=row["name"], kind=kind_text.split()[0], kind_text=kind_text,
            sync="(sync)" in kind_text, direction=kind_m.group("dir"), fields=fields,
            payload_bytes=row["payload bytes"], wire_bytes=row["wire bytes"], reply=row["reply"],
        ))
    return out


def message(name: str) -> SpecMessage:
    (found,) = [m for m in messages() if m.name == name]
    return found


# --- section 3: kinds by type code -------------------------------------------------------------


@dataclass(frozen=True)
class CodeRange:
    first: int
    last: int
    kind: str
    direction: str  # "device → host", "host → device", "both" or "—"


def code_ranges() -> list[CodeRange]:
    """Section 3's table: which codes are which kind, sent which way (reserved codes left out)."""
    (table,) = tables(section("3"))
    out = []
    for row in table:
        if row["kind"] == "reserved":
            continue
        m = re.fullmatch(r"`0x([0-9A-F]{2})`(?:–`0x([0-9A-F]{2})`| \w+)", row["type codes"])
        if m is None:
            raise SpecFormatError(f"section 3 row not understood: {row}")
        first = int(m.group(1), 16)
        out.append(CodeRange(first, int(m.group(2), 16) if m.group(2) else first, row["kind"], row["direction"]))
    return out


# --- section 7.4 (and 6): enumerated values ----------------------------------------------------


@dataclass(frozen=True)
class SpecEnum:
    name: str
    heading_note: str  # the text after the bold name, e.g. "(bits of Status.flags)"
    values: dict[int, str]


def enums() -> dict[str, SpecEnum]:
    """Every enumeration of section 7.4 with its values; DeviceState's table is in section 6."""
    chunk = section("7.4")
    heads = list(re.finditer(r"^\*\*(?P<name>[A-Za-z]+)\*\*(?P<note>.*)$", chunk, re.MULTILINE))
    out = {}
    for i, h in enumerate(heads):
        body = chunk[h.end(): heads[i + 1].start() if i + 1 < len(heads) else len(chunk)]
        found = tables(body)
        if not found and "see section 6" in h.group("note"):
            found = [t for t in tables(section("6")) if t and "state" in t[0]]
        if len(found) != 1:
            raise SpecFormatError(f"enumeration {h.group('name')}: {len(found)} value tables")
        (table,) = found
        name_col = "name" if "name" in table[0] else "state"
        values = {}
        for row in table:
            if not re.fullmatch(r"\d+", row["value"]) or int(row["value"]) in values:
                raise SpecFormatError(f"{h.group('name')}: bad or repeated value in {row}")
            values[int(row["value"])] = row[name_col]
        out[h.group("name")] = SpecEnum(h.group("name"), h.group("note").strip(), values)
    return out
