"""Consistent Overhead Byte Stuffing (Cheshire and Baker, 1999): data with no 0x00 bytes left, so 0x00 can
delimit frames on the wire (the framing layer adds the delimiter; this module does not).
"""

from __future__ import annotations

from firmware_protocol.errors import DecodeError

_RUN = 254


def max_encoded_length(size: int) -> int:
    """The longest encoding of `size` bytes (one code byte per started 254-byte run, at least one)."""
    return size + max(1, -(-size // _RUN))


def encode(data: bytes) -> bytes:
    """COBS encoding of `data` (no trailing delimiter), adding one byte per started run of 254 bytes. The
    canonical one: a final run of exactly 254 non-zero bytes (code 0xFF) gets no extra 0x01 code byte."""
    out = bytearray()
    blocks = data.split(b"\x00")
    last = len(blocks) - 1
    for i, block in enumerate(blocks):
        while len(block) >= _RUN:
            out.append(0xFF)
            out += block[:_RUN]
            block = block[_RUN:]
            if not block and i == last:
                return bytes(out)
        out.append(len(block) + 1)
        out += block
    return bytes(out)


def decode(encoded: bytes) -> bytes:
    """The data `encoded` stands for; raises `DecodeError` for a 0x00 byte or a run past the end."""
    out = bytearray()
    i = 0
    n = len(encoded)
    while i < n:
        code = encoded[i]
        end = i + code
        if code == 0 or end > n:
            raise DecodeError("COBS: zero code byte" if code == 0 else "COBS: run past the end")
        block = encoded[i + 1 : end]
        if 0 in block:
            raise DecodeError("COBS: 0x00 inside a run")
        out += block
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)
