"""Deals on several threads are the deals of one thread, byte for byte: both engines, chunk sizes that
split a batch into many uneven spans (a count not a multiple of the chunk, n = 0 and n = 1), streams
continued over several calls; and the thread helper itself (order, errors, no thread left behind)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from dealer import engines
from dealer.core import godel, parallel
from dealer.core.errors import UsageError
from dealer.engines import bigdeal, shuffle
from dealer.engines.bigdeal import BigDealEngine
from dealer.engines.shuffle import ShuffleEngine

SHUFFLE_KEY = bytes(range(32))
BIGDEAL_SEED = bytes(range(100, 120))
COUNTS = (0, 1, 5, 1001)
THREADS = (2, 3, 5)


@pytest.fixture(scope="module")
def shuffle_reference() -> np.ndarray:
    """The shuffle stream's first 1001 deals from one thread in the engine's own chunk size."""
    return ShuffleEngine(SHUFFLE_KEY, threads=1).deals_at(0, max(COUNTS))


@pytest.fixture(scope="module")
def bigdeal_reference() -> np.ndarray:
    return BigDealEngine(BIGDEAL_SEED, "threads", threads=1).deals(max(COUNTS))


@pytest.mark.parametrize("chunk", [4, 7, 64])
@pytest.mark.parametrize("threads", THREADS)
def test_shuffle_deals_on_n_threads_are_one_threads(shuffle_reference: np.ndarray, chunk: int, threads: int,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shuffle, "CHUNK", chunk)
    engine = ShuffleEngine(SHUFFLE_KEY, threads=threads)
    for count in COUNTS:
        assert np.array_equal(engine.deals_at(0, count), shuffle_reference[:count]), count
        assert np.array_equal(engine.deals_at(3, count - 3 if count > 3 else 0),
                              shuffle_reference[3:max(count, 3)]), count
    streamed = np.concatenate([engine.deals(n) for n in (0, 1, 500, 500)])
    assert np.array_equal(streamed, shuffle_reference)


@pytest.mark.parametrize(("batch", "decode_chunk"), [(17, 3), (100, 64), (3000, 1000)])
@pytest.mark.parametrize("threads", THREADS)
def test_bigdeal_deals_on_n_threads_are_one_threads(bigdeal_reference: np.ndarray, batch: int, decode_chunk: int,
                                                    threads: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Counters hashed and screened in spans of `batch` and deals decoded in chunks of `decode_chunk`,
    each span on whichever thread: the same stream, and the same counter after each call."""
    monkeypatch.setattr(bigdeal, "_MAX_BATCH", batch)
    monkeypatch.setattr(godel, "_CHUNK", decode_chunk)
    for count in COUNTS:
        engine = BigDealEngine(BIGDEAL_SEED, "threads", threads=threads)
        assert np.array_equal(engine.deals(count), bigdeal_reference[:count]), count
        one = BigDealEngine(BIGDEAL_SEED, "threads", threads=1)
        one.deals(count)
        assert engine.counter == one.counter
    engine = BigDealEngine(BIGDEAL_SEED, "threads", threads=threads)
    streamed = np.concatenate([engine.deals(n) for n in (1, 0, 499, 501)])
    assert np.array_equal(streamed, bigdeal_reference)


def test_bigdeal_threads_match_the_hashlib_stream() -> None:
    """The spans hashed by numpy on threads give the stream of one hashlib call a block."""
    threaded = BigDealEngine(BIGDEAL_SEED, "threads", use_hashlib=False, threads=3).deals(7000)
    if bigdeal.hashlib_has_ripemd160():
        plain = BigDealEngine(BIGDEAL_SEED, "threads", use_hashlib=True, threads=1).deals(7000)
        assert np.array_equal(threaded, plain)
    assert np.array_equal(threaded[:1001], BigDealEngine(BIGDEAL_SEED, "threads", threads=1).deals(1001))


def test_the_registry_passes_the_thread_count_and_refuses_none() -> None:
    engine = engines.make_engine("shuffle", SHUFFLE_KEY, threads=3)
    assert isinstance(engine, ShuffleEngine) and engine.threads == 3
    engine = engines.make_engine("bigdeal", BIGDEAL_SEED, "x")
    assert isinstance(engine, BigDealEngine) and engine.threads == parallel.default_threads()
    with pytest.raises(UsageError, match="at least one thread"):
        engines.make_engine("shuffle", SHUFFLE_KEY, threads=0)


# ---- the helper ---------------------------------------------------------------------------------

def test_spans_cover_the_batch_in_order() -> None:
    assert parallel.spans(0, 4) == []
    assert parallel.spans(1, 4) == [(0, 1)]
    assert parallel.spans(10, 4) == [(0, 4), (4, 8), (8, 10)]
    with pytest.raises(ValueError, match="at least one"):
        parallel.spans(10, 0)


def test_default_threads_is_the_cpus_this_process_may_use_capped() -> None:
    assert 1 <= parallel.default_threads() <= parallel.MAX_THREADS
    assert parallel.thread_count(None) == parallel.default_threads()
    assert parallel.thread_count(3) == 3
    with pytest.raises(ValueError, match="at least one thread"):
        parallel.thread_count(0)


def test_results_come_in_span_order_whatever_finishes_first() -> None:
    order: list[int] = []
    gate = threading.Event()

    def work(first: int, last: int) -> tuple[int, int]:
        if first == 0:
            gate.wait(5)  # the first span finishes last
        else:
            order.append(first)
            if len(order) == 7:
                gate.set()
        return first, last

    assert parallel.map_spans(work, 80, 10, 2) == [(a, a + 10) for a in range(0, 80, 10)]
    assert sorted(order) == list(range(10, 80, 10))
    assert list(parallel.iter_spans(lambda a, b: (a, b), 25, 10, 1)) == [(0, 10), (10, 20), (20, 25)]


def test_an_error_in_a_span_reaches_the_caller_and_no_thread_is_left() -> None:
    before = threading.active_count()

    def work(first: int, last: int) -> int:
        if first == 30:
            raise RuntimeError("span 30 failed")
        return first

    with pytest.raises(RuntimeError, match="span 30 failed"):
        parallel.map_spans(work, 400, 10, 3)
    with pytest.raises(RuntimeError, match="span 30 failed"):
        list(parallel.iter_spans(work, 400, 10, 3))
    lazy = parallel.iter_spans(lambda a, b: a, 1000, 10, 3)
    assert next(lazy) == 0
    lazy.close()  # the caller stops early: pending spans are cancelled, running ones joined
    assert threading.active_count() == before


def test_spans_are_shortened_so_every_thread_gets_a_fair_share() -> None:
    assert parallel.balanced_chunk(100_000, 32_768, 1) == 32_768
    assert parallel.balanced_chunk(100_000, 32_768, 2) == 12_500  # 8 spans, 4 a thread
    assert parallel.balanced_chunk(10**6, 32_768, 2) == 32_768  # already 31 spans
    assert parallel.balanced_chunk(1000, 32_768, 2) == 8_192  # never below a quarter of the chunk
    assert parallel.balanced_chunk(5, 3, 4) == 1
    widths = [b - a for a, b in parallel.spans(100_000, parallel.balanced_chunk(100_000, 32_768, 2))]
    assert sum(widths) == 100_000 and max(widths) - min(widths) == 0


def test_even_spans_are_the_fewest_that_give_every_thread_as_many() -> None:
    assert parallel.even_chunk(100_000, 32_768, 1) == 32_768
    assert parallel.even_chunk(100_000, 32_768, 2) == 25_000  # 4 spans, 2 a thread
    assert parallel.even_chunk(150_000, 1 << 17, 2) == 75_000  # 2 spans, 1 a thread
    assert parallel.even_chunk(10**6, 32_768, 2) == 31_250  # 32 spans, 16 a thread
    assert parallel.even_chunk(1000, 32_768, 2) == 8_192  # never below a quarter of the chunk
    assert parallel.even_chunk(5, 3, 4) == 2  # 2, 2 and 1: the fewest spans of at most 3
    widths = [b - a for a, b in parallel.spans(150_001, parallel.even_chunk(150_001, 1 << 17, 2))]
    assert widths == [75_001, 75_000]
    assert parallel.map_spans(lambda a, b: (a, b), 100, 30, 2, even=True) == [(0, 25), (25, 50), (50, 75), (75, 100)]
    assert parallel.map_spans(lambda a, b: (a, b), 0, 30, 2, even=True) == []  # nothing to split
