"""Frames on the wire: ``COBS(type, seq, payload, crc16) 0x00``, and a decoder fed bytes in any split.

`FrameDecoder.feed` takes whatever arrived (one byte, half a frame, ten frames, garbage) and returns the
intact `Frame`s and a `BadFrame` for each damaged one, resynchronising at the next 0x00; nothing here raises
on bad input. The layout and its limits: PROTOCOL.md section 2.
"""

from __future__ import annotations

from binascii import crc_hqx
from dataclasses import dataclass, field
from enum import Enum
from typing import Final

from firmware_protocol import cobs
from firmware_protocol.crc import CRC_INIT

DELIMITER: Final = b"\x00"
HEADER_SIZE: Final = 2
CRC_SIZE: Final = 2
MIN_BODY: Final = HEADER_SIZE + CRC_SIZE
MAX_BODY: Final = 254
MAX_PAYLOAD: Final = MAX_BODY - MIN_BODY
MAX_ENCODED: Final = cobs.max_encoded_length(MAX_BODY)
MAX_WIRE: Final = MAX_ENCODED + 1
"""The longest frame on the wire, delimiter included (256 bytes)."""


@dataclass(frozen=True, slots=True)
class Frame:
    """An intact frame: its message type code, sequence number and payload bytes."""

    type: int
    seq: int
    payload: bytes


class BadFrameReason(Enum):
    """Why a delimited chunk of bytes was not an intact frame."""

    COBS = "cobs"
    SHORT = "short"
    CRC = "crc"
    OVERSIZE = "oversize"


@dataclass(frozen=True, slots=True)
class BadFrame:
    """A damaged frame, dropped: why, and its encoded length (contents are not kept).

    An OVERSIZE chunk is reported as soon as it passes `MAX_ENCODED` bytes, with length
    ``MAX_ENCODED + 1`` whatever its final size, so the events never depend on how bytes were split.
    """

    reason: BadFrameReason
    length: int


@dataclass
class DecoderCounters:
    """What a decoder has seen since it was made."""

    bytes: int = 0
    frames: int = 0
    bad_frames: int = 0
    by_reason: dict[BadFrameReason, int] = field(default_factory=lambda: dict.fromkeys(BadFrameReason, 0))


def encode_body(type_: int, seq: int, payload: bytes = b"") -> bytes:
    """The frame body before COBS: type, seq, payload and the big-endian CRC of those bytes."""
    if not (0 <= type_ <= 0xFF and 0 <= seq <= 0xFF):
        raise ValueError(f"type {type_} and seq {seq} must be 0..255")
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    head = bytes((type_, seq)) + payload
    return head + crc_hqx(head, CRC_INIT).to_bytes(2, "big")


def encode_frame(type_: int, seq: int, payload: bytes = b"") -> bytes:
    """One frame as it goes on the wire, delimiter included."""
    return cobs.encode(encode_body(type_, seq, payload)) + DELIMITER


def decode_frame(wire: bytes) -> Frame | BadFrame:
    """Decode one frame's bytes (with or without its trailing delimiter); never raises."""
    events = FrameDecoder().feed(wire.rstrip(DELIMITER) + DELIMITER)
    return events[0] if events else BadFrame(BadFrameReason.SHORT, 0)


class FrameDecoder:
    """Incremental frame decoder: feed it bytes as they arrive, get frames and bad-frame events.

    Empty chunks between two delimiters are idle fill, not errors. A chunk longer than
    `MAX_ENCODED` is reported once as OVERSIZE when detected and skipped up to the next delimiter,
    so the buffer never holds more than one maximum frame.
    """

    def __init__(self) -> None:
        self._partial = b""
        self._discarding = False
        self.counters = DecoderCounters()

    def reset(self) -> None:
        """Forget any partial frame (e.g. after reopening the port)."""
        self._partial = b""
        self._discarding = False

    def feed(self, data: bytes) -> list[Frame | BadFrame]:
        """Frames and bad-frame events completed by `data`, in order. `b""` is a no-op."""
        if not data:
            return []
        self.counters.bytes += len(data)
        out: list[Frame | BadFrame] = []
        parts = data.split(DELIMITER)
        tail = parts.pop()
        if parts:
            first = parts[0]
            if self._discarding:
                self._discarding = False
                parts[0] = b""
            elif self._partial:
                parts[0] = self._partial + first
                self._partial = b""
            for chunk in parts:
                if chunk:
                    out.append(self._decode(chunk))
        self._hold(tail, out)
        return out

    def _hold(self, tail: bytes, out: list[Frame | BadFrame]) -> None:
        if self._discarding or not tail:
            return
        partial = self._partial + tail if self._partial else tail
        if len(partial) > MAX_ENCODED:
            self._partial = b""
            self._discarding = True
            out.append(self._bad(BadFrameReason.OVERSIZE, MAX_ENCODED + 1))
        else:
            self._partial = partial

    def _decode(self, enc: bytes) -> Frame | BadFrame:
        n = len(enc)
        if n > MAX_ENCODED:
            return self._bad(BadFrameReason.OVERSIZE, MAX_ENCODED + 1)
        if enc[0] == n:  # one run, no zero in the body: the common short frame
            body = enc[1:]
        else:  # cobs.decode, inlined for speed; the split on 0x00 already ruled out zero code bytes
            pieces = []
            i = 0
            while i < n:
                code = enc[i]
                end = i + code
                if end > n:
                    return self._bad(BadFrameReason.COBS, n)
                pieces.append(enc[i + 1 : end])
                if code != 0xFF and end < n:
                    pieces.append(DELIMITER)
                i = end
            body = b"".join(pieces)
        if len(body) < MIN_BODY:
            return self._bad(BadFrameReason.SHORT, n)
        if crc_hqx(body, CRC_INIT):
            return self._bad(BadFrameReason.CRC, n)
        self.counters.frames += 1
        return Frame(body[0], body[1], body[2:-2])

    def _bad(self, reason: BadFrameReason, length: int) -> BadFrame:
        self.counters.bad_frames += 1
        self.counters.by_reason[reason] += 1
        return BadFrame(reason, length)
