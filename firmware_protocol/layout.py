"""Payload layouts: the field kinds a message is made of, and the codec compiled from a layout.

A message class declares its fields with ``Annotated[type, KIND]`` (e.g. ``Annotated[int, UInt(2)]``);
`Codec.for_message` reads them once, so the encoder, the decoder, the golden vectors' JSON form and the
schema text behind the schema hash all come from one description. Integers are big-endian.
"""

from __future__ import annotations

import dataclasses
import struct
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum, IntFlag
from typing import Any

from firmware_protocol.errors import DecodeError

CARD_LIMIT = 52


@dataclass(frozen=True, slots=True)
class Pocket:
    """One pocket as recounted: the cards identified (0..51, in reading order) and how many were not."""

    cards: tuple[int, ...]
    unidentified: int = 0


class FieldKind:
    """How one field is laid out; subclasses give fixed-size fields a `struct` code (a fixed layout decodes
    with one `struct` call)."""

    struct_code: str | None = None

    def describe(self) -> str:
        raise NotImplementedError

    def check(self, value: Any) -> None:
        """Raise ValueError if `value` cannot be encoded."""
        raise NotImplementedError

    def read(self, buf: bytes, pos: int) -> tuple[Any, int]:
        """The value at `pos` and the position after it; raises DecodeError if it does not fit."""
        raise NotImplementedError

    def write(self, value: Any, out: bytearray) -> None:
        raise NotImplementedError

    def to_json(self, value: Any) -> Any:
        return value

    def from_json(self, obj: Any) -> Any:
        return obj


def _enum_converter(enum: type[IntEnum] | type[IntFlag] | None) -> Callable[[int], int] | None:
    """Map a wire value to the enum member, keeping values the enum does not know as plain ints."""
    if enum is None:
        return None
    if issubclass(enum, IntFlag):
        return enum
    members: dict[int, int] = {int(m): m for m in enum}
    return lambda v: members.get(v, v)


class UInt(FieldKind):
    """An unsigned big-endian integer of 1, 2 or 4 bytes, optionally read as an IntEnum/IntFlag."""

    _CODES: typing.ClassVar[dict[int, str]] = {1: "B", 2: "H", 4: "I"}

    def __init__(self, size: int, enum: type[IntEnum] | type[IntFlag] | None = None) -> None:
        self.size = size
        self.struct_code = self._CODES[size]
        self.limit = 1 << (8 * size)
        self.enum = enum
        """The IntEnum or IntFlag the field holds (PROTOCOL.md section 7.2 names it), or None."""
        self.convert = _enum_converter(enum)

    def describe(self) -> str:
        return f"u{8 * self.size}"

    def check(self, value: Any) -> None:
        if not isinstance(value, int) or not 0 <= value < self.limit:
            raise ValueError(f"{value!r} is not an unsigned {8 * self.size}-bit integer")

    def read(self, buf: bytes, pos: int) -> tuple[Any, int]:
        end = pos + self.size
        if end > len(buf):
            raise DecodeError(f"{self.describe()} past the end of the payload")
        value = int.from_bytes(buf[pos:end], "big")
        return (self.convert(value) if self.convert else value), end

    def write(self, value: Any, out: bytearray) -> None:
        out += int(value).to_bytes(self.size, "big")


class FixedBytes(FieldKind):
    """Exactly `size` opaque bytes (e.g. the 13-byte packed deal)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.struct_code = f"{size}s"

    def describe(self) -> str:
        return f"bytes[{self.size}]"

    def check(self, value: Any) -> None:
        if not isinstance(value, bytes) or len(value) != self.size:
            raise ValueError(f"needs exactly {self.size} bytes, got {value!r}")

    def read(self, buf: bytes, pos: int) -> tuple[Any, int]:
        end = pos + self.size
        if end > len(buf):
            raise DecodeError(f"{self.describe()} past the end of the payload")
        return bytes(buf[pos:end]), end

    def write(self, value: Any, out: bytearray) -> None:
        out += value

    def to_json(self, value: Any) -> Any:
        return bytes(value).hex()

    def from_json(self, obj: Any) -> Any:
        return bytes.fromhex(obj)


class Text(FieldKind):
    """Opaque bytes with a one-byte length prefix: u8 n, then n bytes (n <= max_len)."""

    def __init__(self, max_len: int) -> None:
        self.max_len = max_len

    def describe(self) -> str:
        return f"text[<={self.max_len}]"

    def check(self, value: Any) -> None:
        if not isinstance(value, bytes) or len(value) > self.max_len:
            raise ValueError(f"needs at most {self.max_len} bytes, got {value!r}")

    def read(self, buf: bytes, pos: int) -> tuple[Any, int]:
        if pos >= len(buf):
            raise DecodeError("text length past the end of the payload")
        n = buf[pos]
        end = pos + 1 + n
        if n > self.max_len or end > len(buf):
            raise DecodeError(f"text of {n} bytes does not fit (limit {self.max_len})")
        return bytes(buf[pos + 1 : end]), end

    def write(self, value: Any, out: bytearray) -> None:
        out.append(len(value))
        out += value

    def to_json(self, value: Any) -> Any:
        return bytes(value).hex()

    def from_json(self, obj: Any) -> Any:
        return bytes.fromhex(obj)


class ByteList(FieldKind):
    """A list of small integers: u8 n, then n u8 values (n <= max_len)."""

    def __init__(self, max_len: int) -> None:
        self.max_len = max_len

    def describe(self) -> str:
        return f"u8list[<={self.max_len}]"

    def check(self, value: Any) -> None:
        if not isinstance(value, tuple) or len(value) > self.max_len:
            raise ValueError(f"needs a tuple of at most {self.max_len} values, got {value!r}")
        if any(not isinstance(v, int) or not 0 <= v <= 0xFF for v in value):
            raise ValueError(f"values must be 0..255, got {value!r}")

    def read(self, buf: bytes, pos: int) -> tuple[Any, int]:
        if pos >= len(buf):
            raise DecodeError("list length past the end of the payload")
        n = buf[pos]
        end = pos + 1 + n
        if n > self.max_len or end > len(buf):
            raise DecodeError(f"list of {n} values does not fit (limit {self.max_len})")
        return tuple(buf[pos + 1 : end]), end

    def write(self, value: Any, out: bytearray) -> None:
        out.append(len(value))
        out += bytes(value)

    def to_json(self, value: Any) -> Any:
        return list(value)

    def from_json(self, obj: Any) -> Any:
        return tuple(obj)


class PocketList(FieldKind):
    """Recounted pockets: u8 pockets; per pocket u8 n, n card indices (0..51), u8 unidentified."""

    def __init__(self, max_pockets: int) -> None:
        self.max_pockets = max_pockets

    def describe(self) -> str:
        return f"pockets[<={self.max_pockets}]"

    def check(self, value: Any) -> None:
        if not isinstance(value, tuple) or len(value) > self.max_pockets:
            raise ValueError(f"needs a tuple of at most {self.max_pockets} pockets, got {value!r}")
        for p in value:
            if not isinstance(p, Pocket) or len(p.cards) > 0xFF or not 0 <= p.unidentified <= 0xFF:
                raise ValueError(f"not a valid Pocket: {p!r}")
            if any(not isinstance(c, int) or not 0 <= c < CARD_LIMIT for c in p.cards):
                raise ValueError(f"card indices must be 0..51, got {p.cards!r}")

    def read(self, buf: bytes, pos: int) -> tuple[Any, int]:
        if pos >= len(buf) or buf[pos] > self.max_pockets:
            raise DecodeError("pocket count missing or too large")
        count = buf[pos]
        pos += 1
        pockets = []
        for _ in range(count):
            if pos >= len(buf):
                raise DecodeError("pocket past the end of the payload")
            n = buf[pos]
            end = pos + 1 + n
            if end >= len(buf):
                raise DecodeError(f"pocket of {n} cards past the end of the payload")
            cards = tuple(buf[pos + 1 : end])
            if cards and max(cards) >= CARD_LIMIT:
                raise DecodeError(f"card index {max(cards)} is not 0..51")
            pockets.append(Pocket(cards, buf[end]))
            pos = end + 1
        return tuple(pockets), pos

    def write(self, value: Any, out: bytearray) -> None:
        out.append(len(value))
        for p in value:
            out.append(len(p.cards))
            out += bytes(p.cards)
            out.append(p.unidentified)

    def to_json(self, value: Any) -> Any:
        return [{"cards": list(p.cards), "unidentified": p.unidentified} for p in value]

    def from_json(self, obj: Any) -> Any:
        return tuple(Pocket(tuple(p["cards"]), p["unidentified"]) for p in obj)


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One field of a layout: its name and kind."""

    name: str
    kind: FieldKind


class Codec:
    """Encoder and decoder of one message class's payload, compiled from its field annotations."""

    def __init__(self, cls: type, fields: Sequence[FieldSpec]) -> None:
        self.cls = cls
        self.fields = tuple(fields)
        codes = [f.kind.struct_code for f in self.fields if f.kind.struct_code is not None]
        self._struct = struct.Struct(">" + "".join(codes)) if len(codes) == len(self.fields) else None
        self._names = tuple(f.name for f in self.fields)
        self.extensible = False
        """Bytes after the last field are ignored, not malformed (Hello and HelloAck: PROTOCOL.md 5)."""
        self._integers_only = self._struct is not None and all(type(f.kind) is UInt for f in self.fields)
        """Every field an unsigned integer: `struct` checks each value itself (range and type), as
        `UInt.check` does, so the checks run only to name the field that failed."""
        self._converters = [
            (i, f.kind.convert) for i, f in enumerate(self.fields)
            if isinstance(f.kind, UInt) and f.kind.convert is not None
        ]

    @classmethod
    def for_message(cls, message_cls: type) -> Codec:
        """Read the ``Annotated[..., FieldKind]`` annotation of every dataclass field of `message_cls`."""
        hints = typing.get_type_hints(message_cls, include_extras=True)
        specs = []
        for f in dataclasses.fields(message_cls):
            kinds = [m for m in getattr(hints[f.name], "__metadata__", ()) if isinstance(m, FieldKind)]
            if len(kinds) != 1:
                raise TypeError(f"{message_cls.__name__}.{f.name} needs one FieldKind annotation")
            specs.append(FieldSpec(f.name, kinds[0]))
        return cls(message_cls, specs)

    def describe(self) -> str:
        """The layout as text, e.g. ``job:u16 board:u16 deal:bytes[13] deal_hash:u8``."""
        return " ".join(f"{f.name}:{f.kind.describe()}" for f in self.fields) or "-"

    def encode(self, msg: Any) -> bytes:
        """The payload of `msg`; raises ValueError naming the first field that cannot be encoded."""
        values = [getattr(msg, name) for name in self._names]
        if self._integers_only:
            try:
                return self._struct.pack(*values)  # type: ignore[union-attr]
            except struct.error:
                pass  # the checks below name the field
        for f, v in zip(self.fields, values, strict=True):
            try:
                f.kind.check(v)
            except ValueError as exc:
                raise ValueError(f"{self.cls.__name__}.{f.name}: {exc}") from None
        if self._struct is not None:
            return self._struct.pack(*values)
        out = bytearray()
        for f, v in zip(self.fields, values, strict=True):
            f.kind.write(v, out)
        return bytes(out)

    def decode(self, payload: bytes) -> Any:
        """The message a payload stands for; raises DecodeError if it does not fit the layout exactly."""
        if self._struct is not None:
            size = self._struct.size
            if len(payload) != size and not (self.extensible and len(payload) > size):
                raise DecodeError(f"{self.cls.__name__}: payload of {len(payload)} bytes, expected {size}")
            values = list(self._struct.unpack_from(payload))
            for i, convert in self._converters:
                values[i] = convert(values[i])
            return self.cls(*values)
        pos = 0
        out = []
        for f in self.fields:
            value, pos = f.kind.read(payload, pos)
            out.append(value)
        if pos != len(payload) and not self.extensible:
            raise DecodeError(f"{self.cls.__name__}: {len(payload) - pos} bytes after the last field")
        return self.cls(*out)

    def to_json(self, msg: Any) -> dict[str, Any]:
        """The fields of `msg` as JSON values (bytes as hex, pockets as objects)."""
        return {f.name: f.kind.to_json(getattr(msg, f.name)) for f in self.fields}

    def from_json(self, fields: Mapping[str, Any]) -> Any:
        """The message whose JSON fields are `fields` (the inverse of `to_json`)."""
        unknown = set(fields) - {f.name for f in self.fields}
        if unknown:
            raise ValueError(f"{self.cls.__name__} has no field {sorted(unknown)}")
        return self.cls(*(f.kind.from_json(fields[f.name]) for f in self.fields))
