"""The shuffle engine against the references of :mod:`tests.support.shuffle_reference` over many random
keys, starts, counts, thread counts and chunk sizes, and at real deals of real keys that are rejected at
their first attempt (found by a search of the first 3 million deals of two keys, about 7 in a million).
"""

from __future__ import annotations

import numpy as np
import pytest

import dealer.engines.shuffle as shuffle
from dealer.engines.shuffle import MAX_INDEX, ShuffleEngine
from tests.support.shuffle_reference import aes_block, array_deals, ref_deal, ref_deals

KEY_A = bytes(range(32))
KEY_B = bytes.fromhex("6b0d6f3c2a9e41d58c7b3f1e0a2d4c6e8f9a1b3c5d7e9f10213243546576879a")
REJECTED_AT_FIRST_ATTEMPT = {
    KEY_A: (100366, 146481, 155861, 257537, 1403811, 1406486, 1412487),
    KEY_B: (100872, 183373, 487543),
}
"""Deals whose attempt 0 has a rejected digit (each test checks it with the scalar reference)."""
KEY_A_REJECTED_FROM_1_4_TO_1_6_MILLION = (1403811, 1406486, 1412487, 1473541, 1483541, 1514454, 1535842)


def random_cases(seed: int, cases: int) -> list[tuple[bytes, int, int, int, tuple[int, int] | None]]:
    """(key, start, count, threads, (chunk, piece) or None for the engine's own) drawn at random."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(cases):
        key = rng.bytes(32)
        count = int(rng.choice([0, 1, 2, 3, 5, int(rng.integers(1, 400))]))
        start = int(rng.choice([rng.integers(0, 10**6), rng.integers(0, MAX_INDEX - count)]))
        threads = int(rng.integers(1, 5))
        chunk = int(rng.integers(1, 70))
        sizes = None if rng.random() < 0.5 else (chunk, int(rng.integers(1, chunk + 1)))
        out.append((key, start, count, threads, sizes))
    return out


def test_the_two_references_agree() -> None:
    scalar, attempts = ref_deals(aes_block(KEY_B), 183_300, 150)  # holds a rejected deal
    arrays, redealt = array_deals(KEY_B, 183_300, 150)
    assert attempts[183_373 - 183_300] == 1 and redealt.tolist() == [183_373 - 183_300]
    assert np.array_equal(arrays, scalar)
    assert np.array_equal(array_deals(KEY_A, 2**63 - 9, 9)[0], ref_deals(aes_block(KEY_A), 2**63 - 9, 9)[0])


@pytest.mark.parametrize(("key", "start", "count", "threads", "sizes"), random_cases(2026, 40))
def test_engine_matches_the_reference_on_random_batches(key: bytes, start: int, count: int, threads: int,
                                                         sizes: tuple[int, int] | None,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """`sizes`: the deals dealt together (CHUNK) and those whose words are made together (PIECE)."""
    if sizes is not None:
        monkeypatch.setattr(shuffle, "CHUNK", sizes[0])
        monkeypatch.setattr(shuffle, "PIECE", sizes[1])
    expected, _ = array_deals(key, start, count)
    assert np.array_equal(ShuffleEngine(key, threads=threads).deals_at(start, count), expected)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_engine_matches_the_reference_over_several_full_chunks(threads: int) -> None:
    """Chunks of the engine's own size (one thread) or balanced ones, real rejections among them."""
    start, count = 1_400_000, min(2 * shuffle.CHUNK + 1001, 200_000)
    expected, redealt = array_deals(KEY_A, start, count)
    assert set((redealt + start).tolist()) == {i for i in KEY_A_REJECTED_FROM_1_4_TO_1_6_MILLION if i < start + count}
    assert np.array_equal(ShuffleEngine(KEY_A, threads=threads).deals_at(start, count), expected)


@pytest.mark.parametrize("key", list(REJECTED_AT_FIRST_ATTEMPT), ids=["A", "B"])
def test_real_rejections_are_dealt_from_the_next_attempt(key: bytes) -> None:
    block = aes_block(key)
    rng = np.random.default_rng(7)
    for index in REJECTED_AT_FIRST_ATTEMPT[key]:
        seats, attempt = ref_deal(block, index)
        assert attempt == 1, index
        engine = ShuffleEngine(key, threads=int(rng.integers(1, 4)))
        assert engine.deals_at(index, 1)[0].tolist() == seats
        before, after = int(rng.integers(0, 40)), int(rng.integers(1, 40))
        expected, redealt = array_deals(key, index - before, before + after)
        assert redealt.tolist() == [before]
        assert np.array_equal(engine.deals_at(index - before, before + after), expected)
