"""The frame check: CRC-16/CCITT-FALSE (also called CRC-16/IBM-3740), computed by the standard library.

Parameters (Rocksoft model): width 16, poly 0x1021, init 0xFFFF, refin false, refout false,
xorout 0x0000, check 0x29B1 (the CRC of the ASCII bytes "123456789"), residue 0x0000.
``binascii.crc_hqx(data, 0xFFFF)`` is exactly this CRC, implemented in C.
"""

from __future__ import annotations

from binascii import crc_hqx
from typing import Final

CRC_INIT: Final = 0xFFFF
CRC_POLY: Final = 0x1021
CRC_CHECK: Final = 0x29B1
"""The CRC of b"123456789": a firmware's CRC routine must give this value."""


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of `data` (0..0xFFFF)."""
    return crc_hqx(data, CRC_INIT)
