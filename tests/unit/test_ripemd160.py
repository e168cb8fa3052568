"""The RIPEMD-160 fallback against published test vectors and against hashlib where it has RIPEMD-160."""

from __future__ import annotations

import hashlib
import random

import numpy as np
import pytest

from dealer.engines import ripemd160

HASHLIB_HAS_IT = "ripemd160" in hashlib.algorithms_available
needs_hashlib = pytest.mark.skipif(not HASHLIB_HAS_IT, reason="hashlib offers no RIPEMD-160 here")

# test vectors of the RIPEMD-160 specification (Dobbertin, Bosselaers, Preneel)
VECTORS = [
    (b"", "9c1185a5c5e9fc54612808977ee8f548b2258d31"),
    (b"a", "0bdc9d2d256b3ee9daae347be6f4dc835a467ffe"),
    (b"abc", "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc"),
    (b"message digest", "5d0689ef49d2fae572b881b123a85ffa21595f36"),
    (b"abcdefghijklmnopqrstuvwxyz", "f71c27109c692c1b56bbdceb5b9d2865b3708dbc"),
    (b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "12a053384a9c0c88e405a06c27dcf49ada62eb2b"),
    (b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
     "b0e20b6e3116640286ed3a87a5713079b21f5189"),
    (b"1234567890" * 8, "9b752e45573d4b39f4dbd3323cab82bf63326bfb"),
]


@pytest.mark.parametrize(("data", "digest"), VECTORS, ids=lambda v: repr(v)[:20])
def test_specification_vectors(data: bytes, digest: str) -> None:
    assert ripemd160.ripemd160(data).hex() == digest


def test_a_million_a() -> None:
    assert ripemd160.ripemd160(b"a" * 1_000_000).hex() == "52783243c1697bdbe16d37f97f68f08325dc1528"


@needs_hashlib
def test_agrees_with_hashlib_on_every_length_around_block_boundaries() -> None:
    rng = random.Random(160)
    for length in [*range(0, 200), 255, 256, 257, 1000, 4096]:
        data = rng.randbytes(length)
        assert ripemd160.ripemd160(data) == hashlib.new("ripemd160", data).digest(), length


@needs_hashlib
def test_batch_of_short_messages_agrees_with_hashlib() -> None:
    rng = np.random.default_rng(44)
    for length in range(0, ripemd160.MAX_SHORT + 1):
        messages = rng.integers(0, 256, size=(7, length), dtype=np.uint8)
        digests = ripemd160.digest_short_messages(messages)
        assert digests.shape == (7, 20)
        for row, digest in zip(messages, digests, strict=True):
            assert digest.tobytes() == hashlib.new("ripemd160", row.tobytes()).digest()


def test_batch_agrees_with_the_scalar_form() -> None:
    rng = np.random.default_rng(1)
    messages = rng.integers(0, 256, size=(300, 44), dtype=np.uint8)
    digests = ripemd160.digest_short_messages(messages)
    for i in (0, 1, 150, 299):
        assert digests[i].tobytes() == ripemd160.ripemd160(messages[i].tobytes())


def test_batch_refuses_messages_longer_than_one_block() -> None:
    with pytest.raises(ValueError, match="L <= 55"):
        ripemd160.digest_short_messages(np.zeros((2, 56), dtype=np.uint8))


def test_counter_messages_agree_with_the_scalar_form_for_every_tail_length() -> None:
    rng = np.random.default_rng(3)
    for length in range(0, ripemd160.MAX_SHORT - 4 + 1):
        tail = rng.bytes(length)
        counters = np.array([0, 1, 2**32 - 1, 2**32, 2**32 + 5, *rng.integers(0, 2**40, 5)], dtype=np.uint64)
        digests = ripemd160.digest_counter_messages(counters, tail)
        for counter, digest in zip(counters.tolist(), digests, strict=True):
            block = (counter % 2**32).to_bytes(4, "little") + tail
            assert digest.tobytes() == ripemd160.ripemd160(block), (length, counter)


def test_counter_messages_refuse_a_tail_past_one_block() -> None:
    with pytest.raises(ValueError, match="at most 51 bytes"):
        ripemd160.digest_counter_messages(np.arange(3), bytes(52))
