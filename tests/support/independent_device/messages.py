"""Messages of PROTOCOL.md section 7: the type table, field layouts, enumerations, codec."""

# ruff: noqa: E501  (the schema text is copied line for line)

from __future__ import annotations

import hashlib
from enum import IntEnum
from typing import Any

# The schema text of section 5, copied from the document; its hash must be 0x94585374.
SCHEMA_TEXT = """\
protocol 2 max-body 254 crc16-ccitt-false big-endian
0x01 Ack reply d>h -
0x02 Nak nak -
0x03 Refused reply d>h reason:u8 detail:u8
0x04 EventAck reply h>d -
0x10 Hello command h>d sync protocol_version:u8 schema_hash:u32 session:u16 -> HelloAck
0x11 GetStatus command h>d - -> Status
0x12 ScanBoard command h>d - -> Ack
0x13 LoadDeal command h>d job:u16 board:u16 deal:bytes[13] deal_hash:u8 -> Ack
0x14 StartDeal command h>d job:u16 -> Ack
0x15 Abort command h>d - -> Ack
0x16 Recount command h>d job:u16 -> Ack
0x17 Eject command h>d - -> Ack
0x18 Reset command h>d mode:u8 -> Ack
0x19 Display command h>d prompt:u8 board:u16 label:text[<=64] text:text[<=80] -> Ack
0x40 HelloAck reply d>h protocol_version:u8 schema_hash:u32 firmware_major:u8 firmware_minor:u8 firmware_patch:u8 boot_id:u16 capabilities:u16 pockets:u8 hoppers:u8 serial:text[<=32]
0x41 Status reply d>h state:u8 activity:u8 flags:u8 job:u16 board:u16 deal_hash:u8 cards_dealt:u8 fault:u8 fault_detail:u16 boot_id:u16 pocket_counts:u8list[<=8]
0x60 Boot event d>h sync reason:u8 boot_id:u16
0x61 BoardChanged event d>h present:u8
0x62 BoardScanned event d>h result:u8 turns:u8 label:text[<=64]
0x63 DealDone event d>h job:u16 outcome:u8 cards_dealt:u8 pocket_counts:u8list[<=8]
0x64 Fault event d>h code:u8 detail:u16 job:u16 cards_dealt:u8 flags:u8
0x65 RecountReport event d>h job:u16 pockets:pockets[<=8]
0x70 Progress notice d>h job:u16 cards_dealt:u8
capabilities BARCODE_READER=1 CARD_RECOUNT=2 BOARD_SENSOR=4 DOOR_SENSOR=8 EJECT=16 RESUME_AFTER_FAULT=32 KEEPS_JOB_OVER_POWER_LOSS=64 DISPLAY=128 SIMULATED=256
status-flags BOARD_PRESENT=1 DOOR_OPEN=2 HOPPER_EMPTY=4 FAULT_RESUMABLE=8
"""

SCHEMA_HASH = 0x94585374
PROTOCOL_VERSION = 2


def schema_hash_of(text: str) -> int:
    """The first four bytes of the SHA-256 of the schema text, big-endian (section 5)."""
    return int.from_bytes(hashlib.sha256(text.encode("ascii")).digest()[:4], "big")


class T(IntEnum):
    """Type codes (section 7.2)."""

    ACK = 0x01
    NAK = 0x02
    REFUSED = 0x03
    EVENT_ACK = 0x04
    HELLO = 0x10
    GET_STATUS = 0x11
    SCAN_BOARD = 0x12
    LOAD_DEAL = 0x13
    START_DEAL = 0x14
    ABORT = 0x15
    RECOUNT = 0x16
    EJECT = 0x17
    RESET = 0x18
    DISPLAY = 0x19
    HELLO_ACK = 0x40
    STATUS = 0x41
    BOOT = 0x60
    BOARD_CHANGED = 0x61
    BOARD_SCANNED = 0x62
    DEAL_DONE = 0x63
    FAULT = 0x64
    RECOUNT_REPORT = 0x65
    PROGRESS = 0x70


# Field layouts, parsed from the schema text so that one text defines both hash and codec.
Layout = list[tuple[str, str]]
LAYOUTS: dict[int, Layout] = {}
HOST_TO_DEVICE: set[int] = set()
for _line in SCHEMA_TEXT.splitlines()[1:]:
    if not _line.startswith("0x"):  # the bit sets' lines (capabilities, status flags): no message
        continue
    _words = _line.split()
    _code = int(_words[0], 16)
    _rest = [w for w in _words[2:] if w not in ("reply", "command", "event", "notice", "nak", "sync")]
    if _rest and _rest[0] == "h>d":
        HOST_TO_DEVICE.add(_code)
    _rest = [w for w in _rest if w not in ("h>d", "d>h")]
    if "->" in _rest:
        _rest = _rest[: _rest.index("->")]
    LAYOUTS[_code] = [tuple(w.split(":", 1)) for w in _rest if w != "-"]  # type: ignore[misc]
HOST_TO_DEVICE.add(T.NAK)


class Malformed(ValueError):
    """A payload that section 7.1 lists as malformed: treated as damage (section 2.4)."""


# Section 5: the only messages whose payload may be longer than their layout; the rest is ignored.
MAY_GROW = {T.HELLO, T.HELLO_ACK}


def _limit(kind: str) -> int:
    return int(kind[kind.index("<=") + 2 : -1])


def decode_payload(type_code: int, payload: bytes) -> dict[str, Any]:
    """The fields of a payload; Malformed unless it matches the layout (7.1; Hello, HelloAck may grow)."""
    if type_code not in LAYOUTS:
        raise Malformed(f"unknown type 0x{type_code:02X}")
    fields: dict[str, Any] = {}
    at = 0

    def take(n: int) -> bytes:
        nonlocal at
        if at + n > len(payload):
            raise Malformed("payload too short")
        chunk = payload[at : at + n]
        at += n
        return chunk

    for name, kind in LAYOUTS[type_code]:
        if kind in ("u8", "u16", "u32"):
            fields[name] = int.from_bytes(take({"u8": 1, "u16": 2, "u32": 4}[kind]), "big")
        elif kind == "bytes[13]":
            fields[name] = take(13)
        elif kind.startswith("text["):
            n = take(1)[0]
            if n > _limit(kind):
                raise Malformed(f"{name} longer than its limit")
            fields[name] = take(n)
        elif kind.startswith("u8list["):
            n = take(1)[0]
            if n > _limit(kind):
                raise Malformed(f"{name} longer than its limit")
            fields[name] = list(take(n))
        elif kind.startswith("pockets["):
            p = take(1)[0]
            if p > _limit(kind):
                raise Malformed("too many pockets")
            pockets = []
            for _ in range(p):
                k = take(1)[0]
                cards = list(take(k))
                if any(c > 51 for c in cards):
                    raise Malformed("card index above 51")
                pockets.append((cards, take(1)[0]))
            fields[name] = pockets
        else:  # pragma: no cover - the schema has no other kinds
            raise AssertionError(kind)
    if at != len(payload) and type_code not in MAY_GROW:
        raise Malformed("payload too long")
    return fields


def encode_payload(type_code: int, **fields: Any) -> bytes:
    """The payload of a message from its fields, checked against the layout's limits."""
    out = bytearray()
    for name, kind in LAYOUTS[type_code]:
        value = fields[name]
        if kind in ("u8", "u16", "u32"):
            out += int(value).to_bytes({"u8": 1, "u16": 2, "u32": 4}[kind], "big")
        elif kind == "bytes[13]":
            if len(value) != 13:
                raise ValueError("a packed deal is 13 bytes")
            out += bytes(value)
        elif kind.startswith("text[") or kind.startswith("u8list["):
            data = bytes(value)
            if len(data) > _limit(kind):
                raise ValueError(f"{name} longer than {_limit(kind)}")
            out += bytes([len(data)]) + data
        elif kind.startswith("pockets["):
            if len(value) > _limit(kind):
                raise ValueError("too many pockets")
            out.append(len(value))
            for cards, unidentified in value:
                out.append(len(cards))
                out += bytes(cards)
                out.append(unidentified)
        else:  # pragma: no cover
            raise AssertionError(kind)
    return bytes(out)


class State(IntEnum):
    IDLE = 0
    LOADED = 1
    DEALING = 2
    DONE = 3
    FAULT = 4


class Activity(IntEnum):
    NONE = 0
    SCANNING = 1
    RECOUNTING = 2
    EJECTING = 3


class Flag(IntEnum):
    BOARD_PRESENT = 1
    DOOR_OPEN = 2
    HOPPER_EMPTY = 4
    FAULT_RESUMABLE = 8


class Cap(IntEnum):
    BARCODE_READER = 1
    CARD_RECOUNT = 2
    BOARD_SENSOR = 4
    DOOR_SENSOR = 8
    EJECT = 16
    RESUME_AFTER_FAULT = 32
    KEEPS_JOB_OVER_POWER_LOSS = 64
    DISPLAY = 128


class Refuse(IntEnum):
    HANDSHAKE_REQUIRED = 1
    WRONG_STATE = 2
    BUSY = 3
    NO_BOARD = 4
    BAD_DEAL = 5
    BAD_HASH = 6
    WRONG_JOB = 7
    FAULT_PRESENT = 8
    UNSUPPORTED = 9
    NOT_SCANNED = 10


class FaultCode(IntEnum):
    NONE = 0
    JAM = 1
    EMPTY_HOPPER = 2
    MISFEED = 3
    UNREADABLE_CARD = 4
    DUPLICATE_CARD = 5
    FOREIGN_CARD = 6
    BOARD_REMOVED = 7
    DOOR_OPEN = 8
    POWER_LOSS = 9
    HARDWARE = 10
    INTERNAL = 11


RESUMABLE = 1


class ScanResult(IntEnum):
    OK = 0
    NO_READ = 1
    NO_BOARD = 2


class Outcome(IntEnum):
    COMPLETE = 0
    ABORTED = 1


class BootReason(IntEnum):
    UNKNOWN = 0
    POWER_ON = 1
    RESET_COMMAND = 2
    WATCHDOG = 3
    BROWN_OUT = 4


class Prompt(IntEnum):
    NONE = 0
    INSERT_BOARD = 1
    REMOVE_BOARD = 2
    EMPTY_BOARD = 3
    CLEAR_PATH = 4
    FIX_PACK = 5


def deal_hash(deal: bytes) -> int:
    """The low byte of the CRC-16/CCITT-FALSE of the 13 deal bytes (section 7.2)."""
    from .wire import crc16

    return crc16(deal) & 0xFF


def seat_of(deal: bytes, card: int) -> int:
    """The seat 0..3 (N E S W) of card 0..51 in a packed deal (section 7.3)."""
    return (deal[card >> 2] >> (6 - 2 * (card & 3))) & 3


def card_name(card: int) -> str:
    """`SA`, `H2`, ...: suit S H D C then rank A K Q J T 9 .. 2 (section 7.1)."""
    return "SHDC"[card // 13] + "AKQJT98765432"[card % 13]
