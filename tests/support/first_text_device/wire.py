"""Frames on the wire (PROTOCOL.md section 2): COBS, CRC-16/CCITT-FALSE and a byte-stream decoder."""

from __future__ import annotations

import binascii
from dataclasses import dataclass

MAX_ENCODED = 255
MAX_BODY = 254


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of `data` (section 2.3)."""
    return binascii.crc_hqx(data, 0xFFFF)


def cobs_encode(body: bytes) -> bytes:
    """The canonical COBS encoding of section 2.2, written from its pseudo-code."""
    out = bytearray([0])
    code_at = 0
    code = 1
    n = len(body)
    for i, b in enumerate(body):
        if b != 0:
            out.append(b)
            code += 1
        if b == 0 or code == 0xFF:
            out[code_at] = code
            code = 1
            code_at = len(out)
            if b == 0 or i + 1 < n:
                out.append(0)
    if code_at < len(out):
        out[code_at] = code
    return bytes(out)


def cobs_decode(data: bytes) -> bytes | None:
    """Undo COBS; None when the encoding is broken (a zero code, a run past the end)."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0 or i + code > n:
            return None
        out += data[i + 1 : i + code]
        i += code
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


def encode_frame(type_code: int, seq: int, payload: bytes) -> bytes:
    """The wire bytes of one frame, delimiter included."""
    body = bytes([type_code, seq]) + payload
    crc = crc16(body)
    body += bytes([crc >> 8, crc & 0xFF])
    if len(body) > MAX_BODY:
        raise ValueError(f"body of {len(body)} bytes is over {MAX_BODY}")
    return cobs_encode(body) + b"\x00"


@dataclass(frozen=True)
class Frame:
    """An intact frame: its type, seq, payload and the whole body (for duplicate checks)."""

    type_code: int
    seq: int
    payload: bytes
    body: bytes


@dataclass(frozen=True)
class Damage:
    """A damaged chunk: `why` is cobs, short, crc or oversize; `length` the bytes collected."""

    why: str
    length: int


class StreamDecoder:
    """Cuts a byte stream into frames at each 0x00 (section 2.4); reports damage."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._skipping = False

    def feed(self, data: bytes) -> list[Frame | Damage]:
        found: list[Frame | Damage] = []
        for byte in data:
            if byte != 0:
                if self._skipping:
                    continue
                if len(self._buf) < MAX_ENCODED:
                    self._buf.append(byte)
                    continue
                self._buf.clear()
                self._skipping = True
                found.append(Damage("oversize", MAX_ENCODED + 1))
                continue
            if self._skipping:
                self._skipping = False
                continue
            if not self._buf:
                continue
            encoded = bytes(self._buf)
            self._buf.clear()
            body = cobs_decode(encoded)
            if body is None:
                found.append(Damage("cobs", len(encoded)))
            elif len(body) < 4:
                found.append(Damage("short", len(encoded)))
            elif crc16(body) != 0:
                found.append(Damage("crc", len(encoded)))
            else:
                found.append(Frame(body[0], body[1], body[2:-2], body))
        return found
