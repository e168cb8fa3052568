"""Work split over threads in chunks, results in chunk order: each chunk a span ``[first, last)`` computed
from its span alone (numpy and AES release the GIL), so the result does not depend on the number of
threads; every call joins its threads before it returns (`iter_spans`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Final, TypeVar

from dealer.core.osys import usable_cpus

MAX_THREADS: Final = 8
"""The default never exceeds this many threads, however many CPUs (memory grows with each thread)."""

Result = TypeVar("Result")


def default_threads() -> int:
    """The threads an engine uses unless told: the CPUs this process may run on, at most MAX_THREADS."""
    return max(1, min(usable_cpus(), MAX_THREADS))


def thread_count(threads: int | None) -> int:
    """`threads`, or the default for None; `ValueError` below 1."""
    if threads is None:
        return default_threads()
    if threads < 1:
        raise ValueError(f"an engine needs at least one thread; got {threads}")
    return threads


def spans(total: int, chunk: int) -> list[tuple[int, int]]:
    """Consecutive spans ``(first, last)`` covering 0..total, each at most `chunk` long."""
    if chunk < 1:
        raise ValueError(f"chunks hold at least one item; got {chunk}")
    return [(first, min(first + chunk, total)) for first in range(0, total, chunk)]


def balanced_chunk(total: int, chunk: int, threads: int) -> int:
    """The span length to split `total` items over `threads` threads: `chunk`, or less (down to a
    quarter of it) so that there are at least four spans a thread and no thread is left with a much
    larger share than another (100,000 deals in chunks of 32,768 would give one thread twice the work
    of the other)."""
    if threads <= 1:
        return chunk
    return max(1, chunk // 4, min(chunk, -(-total // (4 * threads))))


def even_chunk(total: int, chunk: int, threads: int) -> int:
    """The span length that splits `total` items into the fewest spans of at most `chunk` that give every
    thread as many spans, all of one length but the last (100,000 deals in chunks of 32,768 on 2 threads:
    4 spans of 25,000), though never below a quarter of `chunk` (a small batch is not worth a thread).
    For work whose cost per call (Python, under the GIL) favours long spans."""
    if threads <= 1 or total <= 0:
        return chunk
    rounds = -(-total // (threads * chunk))
    return max(1, chunk // 4, -(-total // (threads * rounds)))


def map_spans(work: Callable[[int, int], Result], total: int, chunk: int, threads: int, *,
              even: bool = False) -> list[Result]:
    """``work(first, last)`` for each span of 0..total of at most `chunk` (see :func:`balanced_chunk`, or
    with `even` :func:`even_chunk`), on up to `threads` threads; the results in span order. One span, or
    one thread, runs in the calling thread."""
    parts = spans(total, (even_chunk if even else balanced_chunk)(total, chunk, threads))
    if threads <= 1 or len(parts) <= 1:
        return [work(first, last) for first, last in parts]
    with ThreadPoolExecutor(max_workers=min(threads, len(parts)), thread_name_prefix="dealer-chunks") as pool:
        return list(pool.map(lambda span: work(*span), parts))


def iter_spans(work: Callable[[int, int], Result], total: int, chunk: int,
               threads: int) -> Generator[Result, None, None]:
    """Like :func:`map_spans`, lazily: the results in span order, with at most `threads` spans
    computed ahead of the one the caller has taken (bounded memory for any `total`)."""
    parts = spans(total, balanced_chunk(total, chunk, threads))
    if threads <= 1 or len(parts) <= 1:
        for first, last in parts:
            yield work(first, last)
        return
    pool = ThreadPoolExecutor(max_workers=min(threads, len(parts)), thread_name_prefix="dealer-chunks")
    ahead: deque[Future[Result]] = deque()
    try:
        for first, last in parts:
            ahead.append(pool.submit(work, first, last))
            if len(ahead) > threads:
                yield ahead.popleft().result()
        while ahead:
            yield ahead.popleft().result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
