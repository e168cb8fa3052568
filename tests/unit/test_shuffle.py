"""The shuffle engine against the pure-Python scalar reference written from its docstring alone
(:mod:`tests.support.shuffle_reference`): the same deals bit for bit, with the real keystream and with
crafted keystreams that force the rejection branch.
"""

from __future__ import annotations

import itertools

import numpy as np
import numpy.typing as npt
import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

import dealer.engines.shuffle as shuffle
from dealer.core.cards import check_deals, seat_counts
from dealer.engines import make_engine
from dealer.engines.shuffle import ShuffleEngine, lemire_digits
from tests.support.shuffle_reference import BlockFunction, aes_block, ref_deals, ref_digit, ref_word

KEY = bytes.fromhex("6b0d6f3c2a9e41d58c7b3f1e0a2d4c6e8f9a1b3c5d7e9f10213243546576879a")
OTHER_KEY = bytes(range(32))


# ---- crafted keystreams -------------------------------------------------------------------------

def lemire_word(m: int, low: int) -> int:
    """A word whose Lemire product for modulus m (odd) has low 26 bits equal to `low`."""
    x = low * pow(m, -1, 2**26) % 2**26
    assert (x * m) % 2**26 == low
    return x << 6


def crafted_block(key: bytes) -> BlockFunction:
    """AES, except for chosen (attempt, step, group) whose words are replaced to force rejections:

    attempt 0, step 5 (m = 47), group % 7 == 3: all four words 0 -> those deals are rejected;
    attempt 1, step 40 (m = 12), group % 14 == 3: words 0 -> rejected again, dealt at attempt 2;
    attempt 0, step 11 (m = 41), group % 7 == 5: word 0 at the rejection limit (accepted), word 1 one
    below it (rejected).
    """
    real = aes_block(key)
    limit = 2**26 % 41

    def block(data: bytes) -> bytes:
        value = int.from_bytes(data, "big")
        attempt, step, group = value >> 96, (value >> 64) & 0xFFFFFFFF, value & (2**64 - 1)
        out = real(data)
        if attempt == 0 and step == 5 and group % 7 == 3:
            return bytes(16)
        if attempt == 1 and step == 40 and group % 14 == 3:
            return bytes(16)
        if attempt == 0 and step == 11 and group % 7 == 5:
            words = [lemire_word(41, limit), lemire_word(41, limit - 1)]
            return b"".join(w.to_bytes(4, "little") for w in words) + out[8:]
        return out

    return block


class BlockwiseECB:
    """Stands in for the engine's AES-ECB encryptor, one block function call per 16 bytes."""

    def __init__(self, block: BlockFunction) -> None:
        self.block = block

    def update_into(self, data: npt.NDArray[np.uint8], buffer: bytearray) -> int:
        raw = bytes(data)
        for offset in range(0, len(raw), 16):
            buffer[offset:offset + 16] = self.block(raw[offset:offset + 16])
        return len(raw)


def crafted_engine(key: bytes, monkeypatch: pytest.MonkeyPatch) -> ShuffleEngine:
    engine = ShuffleEngine(key)
    monkeypatch.setattr(engine, "_encryptor", lambda: BlockwiseECB(crafted_block(key)))
    return engine


# ---- tests --------------------------------------------------------------------------------------

def test_engine_matches_scalar_reference_bit_for_bit() -> None:
    expected, attempts = ref_deals(aes_block(KEY), 0, 300)
    assert np.array_equal(ShuffleEngine(KEY).deals(300), expected)
    assert set(attempts) == {0}


def test_reference_match_holds_at_an_unaligned_start_and_another_key() -> None:
    expected, _ = ref_deals(aes_block(OTHER_KEY), 1_000_003, 45)
    assert np.array_equal(ShuffleEngine(OTHER_KEY).deals_at(1_000_003, 45), expected)


def test_reference_match_holds_at_the_end_of_the_stream() -> None:
    start = 2**63 - 7  # group numbers near 2**61: no overflow in the counter blocks
    expected, _ = ref_deals(aes_block(KEY), start, 7)
    assert np.array_equal(ShuffleEngine(KEY).deals_at(start, 7), expected)


def test_keystream_words_follow_the_documented_counter_blocks() -> None:
    block = aes_block(KEY)
    engine = ShuffleEngine(KEY)
    for attempt in (0, 1, 7):
        words = engine.keystream(13, 10, attempt)
        assert words.shape == (51, 10)
        for s, i in itertools.product((0, 1, 25, 50), range(13, 23)):
            assert int(words[s, i - 13]) == ref_word(block, i, s, attempt)


def test_each_step_of_the_keystream_is_aes_ctr_output() -> None:
    g0, groups = 1234, 8
    words = ShuffleEngine(KEY).keystream(4 * g0, 4 * groups)
    for step in (0, 17, 50):
        nonce = ((step << 64) | g0).to_bytes(16, "big")
        ctr = Cipher(algorithms.AES(KEY), modes.CTR(nonce)).encryptor().update(bytes(16 * groups))
        assert words[step].astype("<u4").tobytes() == ctr


def test_rejected_deals_are_redealt_from_their_next_attempt(monkeypatch: pytest.MonkeyPatch) -> None:
    expected, attempts = ref_deals(crafted_block(KEY), 0, 300)
    # the crafted words really reach the branch: first and second rejections, and the boundary word
    assert attempts.count(1) > 10 and attempts.count(2) > 0
    assert attempts[4 * 5] == 0 and attempts[4 * 5 + 1] == 1
    assert np.array_equal(crafted_engine(KEY, monkeypatch).deals(300), expected)


def test_rejections_do_not_depend_on_chunking(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = crafted_engine(KEY, monkeypatch)
    whole = engine.deals_at(0, 200)
    monkeypatch.setattr(shuffle, "CHUNK", 13)
    assert np.array_equal(engine.deals_at(0, 200), whole)
    assert np.array_equal(engine.deals_at(57, 90), whole[57:147])


def test_digits_at_the_rejection_limit() -> None:
    """Lane 0: every odd modulus at its limit (accepted); lane 1: one below (rejected); lane 2: zero
    words (x = 0, rejected where 2**26 mod m > 0); lane 3: all-ones words (always accepted)."""
    words = np.zeros((51, 4), dtype=np.uint32)
    for s in range(51):
        m = 52 - s
        limit = 2**26 % m
        at_limit = lemire_word(m, limit) if m % 2 else 2**32 - 1
        below = lemire_word(m, limit - 1) if m % 2 and limit else 2**32 - 1
        words[s] = [at_limit, below, 0, 2**32 - 1]
    digits, rejected = lemire_digits(words)
    assert rejected.tolist() == [False, True, True, False]
    for s, j in itertools.product(range(51), (0, 3)):
        assert digits[s, j] == ref_digit(int(words[s, j]), 52 - s)


def test_digits_match_the_reference_on_random_words() -> None:
    rng = np.random.default_rng(5)
    words = rng.integers(0, 2**32, size=(51, 400), dtype=np.uint32)
    steps = [s for s in range(51) if 2**26 % (52 - s)]
    for j in range(40):  # a word below 64 (x = 0) at a step whose modulus rejects x = 0
        words[rng.choice(steps), j] = rng.integers(0, 64)
    digits, rejected = lemire_digits(words)
    for j in range(400):
        ref = [ref_digit(int(words[s, j]), 52 - s) for s in range(51)]
        assert bool(rejected[j]) == (None in ref)
        if not rejected[j]:
            assert digits[:, j].tolist() == ref
    assert rejected[:40].all() and not rejected[40:].any()


def test_digits_stay_below_their_modulus() -> None:
    words = np.full((51, 3), 2**32 - 1, dtype=np.uint32)
    words[:, 1] = (2**25 + 1) << 6
    digits, rejected = lemire_digits(words)
    assert not rejected.any()
    assert (digits[:, 0] == np.arange(52, 1, -1) - 1).all()
    assert (digits[:, 1] == np.arange(52, 1, -1) // 2).all()


def test_random_access_equals_the_slice_of_a_longer_run() -> None:
    long_run = ShuffleEngine(KEY).deals_at(0, 5000)
    assert np.array_equal(ShuffleEngine(KEY).deals_at(2000, 10), long_run[2000:2010])
    assert np.array_equal(ShuffleEngine(KEY).deals(1000), long_run[:1000])


def test_stream_position_is_kept_between_calls() -> None:
    engine = ShuffleEngine(KEY)
    parts = np.concatenate([engine.deals(8), engine.deals(0), engine.deals(8)])
    assert engine.position == 16
    assert np.array_equal(parts, ShuffleEngine(KEY).deals(16))
    engine.deals_at(100, 5)
    assert engine.position == 16


def test_chunking_does_not_change_the_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    whole = ShuffleEngine(KEY).deals(3000)
    for chunk in (1, 4, 7, 1024):
        monkeypatch.setattr(shuffle, "CHUNK", chunk)
        assert np.array_equal(ShuffleEngine(KEY).deals_at(3, 2997), whole[3:]), chunk


@pytest.mark.parametrize("count", [0, 1, 5, 20_000])
def test_every_deal_has_13_cards_a_seat(count: int) -> None:
    deals = ShuffleEngine(KEY).deals(count)
    assert deals.shape == (count, 52) and deals.dtype == np.uint8 and deals.flags.c_contiguous
    check_deals(deals)
    assert (seat_counts(deals) == 13).all()


def test_keys_give_different_streams() -> None:
    a, b = ShuffleEngine(KEY).deals(50), ShuffleEngine(OTHER_KEY).deals(50)
    assert (a != b).any(axis=1).all()
    assert len({row.tobytes() for row in a}) == 50


def test_registry_builds_the_engine() -> None:
    engine = make_engine("shuffle", KEY)
    assert engine.name == "shuffle"
    assert np.array_equal(engine.deals(4), ShuffleEngine(KEY).deals(4))


@pytest.mark.parametrize("key", [b"", bytes(16), bytes(33)])
def test_wrong_key_size_is_refused(key: bytes) -> None:
    with pytest.raises(ValueError, match="256-bit key"):
        ShuffleEngine(key)


@pytest.mark.parametrize(("start", "count"), [(-1, 3), (0, -1), (2**63 - 2, 3)])
def test_indices_outside_the_stream_are_refused(start: int, count: int) -> None:
    with pytest.raises(ValueError, match="deal indices"):
        ShuffleEngine(KEY).deals_at(start, count)
