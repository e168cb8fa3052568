"""Independent reference implementations for checking the codec: a bitwise CRC and a byte-loop COBS.

Written from the published definitions (the Rocksoft CRC model; Cheshire and Baker's COBS paper),
deliberately unlike the production code (table-free, byte at a time), so an agreement between the two
is evidence, not an echo.
"""

from __future__ import annotations


def crc16_ccitt_false(data: bytes) -> int:
    """CRC-16/CCITT-FALSE, one bit at a time: poly 0x1021, init 0xFFFF, no reflection, no final xor."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def cobs_encode(data: bytes) -> bytes:
    """COBS, byte at a time: a code byte before each run; a full run of 254 closes without a zero."""
    out = bytearray([0])
    code_at, code = 0, 1
    for i, byte in enumerate(data):
        if byte:
            out.append(byte)
            code += 1
        if not byte or code == 0xFF:
            out[code_at] = code
            code = 1
            code_at = len(out)
            if not byte or i + 1 < len(data):
                out.append(0)
    if code_at < len(out):
        out[code_at] = code
    return bytes(out)


def frame(type_: int, seq: int, payload: bytes) -> bytes:
    """A whole frame from the PROTOCOL.md recipe, using only the reference functions above."""
    body = bytes([type_, seq]) + payload
    crc = crc16_ccitt_false(body)
    return cobs_encode(body + bytes([crc >> 8, crc & 0xFF])) + b"\x00"


def pack_deal(seats: list[int]) -> bytes:
    """13 bytes, 2 bits a card, card 0 in the top two bits of byte 0."""
    out = bytearray(13)
    for card, seat in enumerate(seats):
        out[card // 4] |= seat << (6 - 2 * (card % 4))
    return bytes(out)
