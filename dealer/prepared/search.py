"""The search for prepared boards: deals from an engine in batches, each made to hold the predealt cards,
kept in the engine's order where the compiled condition accepts them, until enough are found or the bound
on deals examined is reached.

Predeal is exact: a deal's Big Deal number g (uniform over the D deals) gives a uniform number r = g mod M
among the M ways to share the free cards out (g is passed over when it falls in the last, incomplete run
of M), and r is read as one hand after another in the combinatorial number system. Each kept deal is thus a
uniform draw among the deals that meet the condition with the predealt cards in place.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from math import comb
from typing import Final

import numpy as np
import numpy.typing as npt

from dealer.core import godel, parallel
from dealer.core.cards import DealArray
from dealer.core.errors import DealerError
from dealer.engines import Engine, SpanEngine
from dealer.language import _
from dealer.prepared.compiler import Compiled
from dealer.prepared.script import multinomial

DEFAULT_MAX_DEALS: Final = 100_000_000
"""Deals examined at most unless `--max-deals` says otherwise (the reference stops at 10 million)."""
MAX_DEALS_BOUND: Final = 10 ** 12
"""The largest `--max-deals`."""
BATCH: Final = 1 << 16
"""Deals examined at a time, at most; the first batch is FIRST_BATCH and each after it twice the last."""
FIRST_BATCH: Final = 1 << 12
TOTAL_DEALS: Final = godel.C52 * godel.C39 * godel.C26


Judged = tuple[DealArray, DealArray, npt.NDArray[np.intp]]
"""A batch as drawn, with its predealt cards in place, and the rows of it that meet the condition."""


class ConditionNotMet(DealerError):
    """The bound on deals examined came before enough deals met the condition (exit 3)."""

    exit_code = 3


@dataclass
class Found:
    """The deals kept, in order, and how many were examined to find them."""

    deals: DealArray
    examined: int


class Predeal:
    """The cards given to seats before the deal, and the exact mapping of engine deals onto the rest."""

    def __init__(self, given: dict[int, list[int]]) -> None:
        self.fixed = np.full(52, -1, dtype=np.int8)
        for seat, cards in given.items():
            self.fixed[cards] = seat
        self.free = np.flatnonzero(self.fixed < 0)
        self.quotas = [13 - int(np.count_nonzero(self.fixed == s)) for s in range(4)]
        self.ways = multinomial(self.quotas)
        self.usable = TOTAL_DEALS // self.ways * self.ways
        # per seat N, E, S: the ways the seats after it can share what is left (the place values of r)
        rest = len(self.free)
        self.pools: list[int] = []
        for quota in self.quotas[:3]:
            self.pools.append(rest)
            rest -= quota

    def apply(self, deals: DealArray) -> DealArray:
        """The deals with the predealt cards in place (some engine deals are passed over: fewer rows)."""
        numbers = godel.join_numbers(godel.deals_to_parts(deals))
        kept = [g % self.ways for g in numbers if g < self.usable]
        n = len(kept)
        out = np.empty((n, 52), dtype=np.uint8)
        out[:, self.fixed >= 0] = self.fixed[self.fixed >= 0]
        avail = np.ones((n, len(self.free)), dtype=np.bool_)
        seat_of = np.full((n, len(self.free)), 3, dtype=np.uint8)
        ranks: list[npt.NDArray[np.uint64]] = []
        rest = kept
        for seat in (2, 1, 0):  # r = (rN * C_E + rE) * C_S + rS
            size = comb(self.pools[seat], self.quotas[seat])
            ranks.insert(0, np.array([r % size for r in rest], dtype=np.uint64))
            rest = [r // size for r in rest]
        for seat in range(3):
            chosen = _unrank(ranks[seat], self.pools[seat], self.quotas[seat])
            place = np.cumsum(avail, axis=1) - 1  # each free card's place among those still free
            for column in range(chosen.shape[1]):
                hit = avail & (place == chosen[:, column:column + 1])
                index = np.argmax(hit, axis=1)
                seat_of[np.arange(n), index] = seat
                avail[np.arange(n), index] = False
        out[:, self.free] = seat_of
        return out


def _unrank(ranks: npt.NDArray[np.uint64], pool: int, k: int) -> npt.NDArray[np.int64]:
    """The k-subsets of range(pool) of these colexicographic ranks, as places (n, k)."""
    out = np.zeros((len(ranks), k), dtype=np.int64)
    rest = ranks.copy()
    for i in range(k, 0, -1):
        table = np.array([comb(c, i) for c in range(pool)], dtype=np.uint64)
        place = np.searchsorted(table, rest, side="right") - 1
        out[:, i - 1] = place
        rest = rest - table[place]
    return out


def search(compiled: Compiled, engine: Engine, wanted: int, *, max_deals: int,
           predeal: Predeal | None = None, progress: Callable[[int, int], None] | None = None,
           threads: int | None = None) -> Found:
    """The first `wanted` deals of the engine's stream that meet the condition, in order; `ConditionNotMet`
    if `max_deals` deals are examined first (counting engine deals, those passed over by predeal included).

    Batches are put in place and judged on `threads` threads (default: one a CPU) while the engine draws
    the next ones (on those threads too when it deals any span by itself, else in turn on one thread of its
    own); they are taken back in the order they were drawn, so the deals kept do not depend on the number
    of threads."""
    workers = parallel.thread_count(threads)
    kept: list[DealArray] = []
    found = examined = 0
    sizes = _batch_sizes(max_deals)

    def judge(drawn: DealArray | Future[DealArray]) -> Judged:
        deals = drawn.result() if isinstance(drawn, Future) else drawn
        batch = predeal.apply(deals) if predeal is not None else deals
        return deals, batch, np.flatnonzero(compiled.accepts(batch))

    spans = engine if isinstance(engine, SpanEngine) and workers > 1 else None  # drawn on the judges' threads
    judges = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="dealer-judge") if workers > 1 else None
    drawer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dealer-draw") \
        if judges is not None and spans is None else None

    def launch(size: int) -> Future[Judged]:
        """The next batch of `size`, drawn and judged (at once on one thread, else on the pools)."""
        if judges is None:
            done: Future[Judged] = Future()
            done.set_result(judge(engine.deals(size)))
            return done
        if spans is not None:
            start = spans.skip(size)
            return judges.submit(lambda: judge(spans.deals_at(start, size, threads=1)))  # the judges are the threads
        assert drawer is not None
        return judges.submit(judge, drawer.submit(engine.deals, size))

    ahead: deque[Future[Judged]] = deque()
    lookahead = 1 if judges is None else 2 * workers
    try:
        while found < wanted:
            while len(ahead) < lookahead and (size := next(sizes, 0)) > 0:
                ahead.append(launch(size))
            if not ahead:
                rate = found / examined if examined else 0.0
                raise ConditionNotMet(_("{found} of {wanted} deals met the condition in {examined} deals examined "
                                        "(rate {rate:.3g}); raise --max-deals or ease the condition").format(
                    found=found, wanted=wanted, examined=examined, rate=rate))
            deals, batch, accepted = ahead.popleft().result()
            need = wanted - found
            if len(accepted) >= need:
                last = int(accepted[need - 1])
                kept.append(batch[accepted[:need]])
                examined += _engine_rows(deals, batch, last, predeal)
                found = wanted
                break
            kept.append(batch[accepted])
            found += len(accepted)
            examined += len(deals)
            if progress is not None:
                progress(examined, found)
    finally:
        for pool in (drawer, judges):
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
    return Found(np.concatenate(kept) if kept else np.empty((0, 52), np.uint8), examined)


def _batch_sizes(max_deals: int) -> Iterator[int]:
    """The sizes of the engine's batches: FIRST_BATCH, each after it twice the last up to BATCH, until
    `max_deals` deals are drawn."""
    drawn, step = 0, FIRST_BATCH
    while drawn < max_deals:
        size = min(step, max_deals - drawn)
        drawn += size
        step = min(2 * step, BATCH)
        yield size


def _engine_rows(deals: DealArray, batch: DealArray, last: int, predeal: Predeal | None) -> int:
    """The engine deals examined up to row `last` of the batch (the same row without predeal)."""
    if predeal is None or len(batch) == len(deals):
        return last + 1
    numbers = godel.join_numbers(godel.deals_to_parts(deals))
    usable = np.flatnonzero(np.array([g < predeal.usable for g in numbers]))
    return int(usable[last]) + 1
