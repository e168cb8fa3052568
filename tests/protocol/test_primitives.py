"""CRC and COBS against their definitions: check values, hand-worked examples, reference implementations."""

from __future__ import annotations

import random

import pytest

from firmware_protocol import cobs
from firmware_protocol.crc import CRC_CHECK, crc16
from firmware_protocol.errors import DecodeError
from tests.support import protocol_reference as reference


def test_crc_check_value_of_the_catalogue() -> None:
    assert crc16(b"123456789") == CRC_CHECK == 0x29B1
    assert reference.crc16_ccitt_false(b"123456789") == 0x29B1


def test_crc_agrees_with_the_bitwise_reference() -> None:
    rng = random.Random(7)
    for n in [0, 1, 2, 13, 254, 300]:
        data = bytes(rng.randrange(256) for _ in range(n))
        assert crc16(data) == reference.crc16_ccitt_false(data)


def test_crc_appended_big_endian_leaves_zero_residue() -> None:
    body = b"\x13\x03" + bytes(range(18))
    crc = crc16(body)
    assert crc16(body + crc.to_bytes(2, "big")) == 0


# Worked examples of the COBS paper / the usual tables, written out by hand.
HAND_EXAMPLES = [
    ("00", "0101"),
    ("0000", "010101"),
    ("001100", "01021101"),
    ("11220033", "0311220233"),
    ("11223344", "0511223344"),
    ("11000000", "0211010101"),
    (bytes(range(1, 255)).hex(), "ff" + bytes(range(1, 255)).hex()),
    ("00" + bytes(range(1, 255)).hex(), "01ff" + bytes(range(1, 255)).hex()),
    (bytes(range(1, 256)).hex(), "ff" + bytes(range(1, 255)).hex() + "02ff"),
    (bytes(range(2, 256)).hex() + "00", "ff" + bytes(range(2, 256)).hex() + "0101"),
    (bytes(range(3, 256)).hex() + "0001", "fe" + bytes(range(3, 256)).hex() + "0201"),
]


@pytest.mark.parametrize("decoded, encoded", HAND_EXAMPLES)
def test_cobs_hand_examples(decoded: str, encoded: str) -> None:
    assert cobs.encode(bytes.fromhex(decoded)).hex() == encoded
    assert cobs.decode(bytes.fromhex(encoded)).hex() == decoded


def test_cobs_agrees_with_the_byte_loop_reference_around_run_boundaries() -> None:
    rng = random.Random(11)
    for n in list(range(0, 10)) + list(range(250, 260)) + list(range(505, 512)) + [1000]:
        for zero_rate in (0.0, 0.01, 0.3, 1.0):
            data = bytes(0 if rng.random() < zero_rate else rng.randrange(1, 256) for _ in range(n))
            enc = cobs.encode(data)
            assert enc == reference.cobs_encode(data), (n, zero_rate)
            assert 0 not in enc
            assert len(enc) <= cobs.max_encoded_length(n)
            assert cobs.decode(enc) == data


@pytest.mark.parametrize("bad", ["00", "0511", "02110011", "ff" + "01" * 10])
def test_cobs_decode_rejects_broken_encodings(bad: str) -> None:
    with pytest.raises(DecodeError):
        cobs.decode(bytes.fromhex(bad))


def test_max_encoded_length() -> None:
    assert cobs.max_encoded_length(0) == 1
    assert cobs.max_encoded_length(254) == 255
    assert cobs.max_encoded_length(255) == 257
