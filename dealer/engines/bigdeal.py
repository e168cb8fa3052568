"""The ``bigdeal`` engine: Big Deal's published generator, bit for bit (``bigdealx -h SEED -W OWNER``).

For counter = 1, 2, 3, ... the block ``counter (4 bytes, little-endian) || seed (20 bytes) ||
RIPEMD-160(owner)`` is hashed with RIPEMD-160; the first 12 bytes of each digest, big-endian, are a
candidate deal number, rejected if >= D, else a deal through `dealer.core.godel`. Board numbers take no
part. Why hashing goes through hashlib or numpy by batch size: docs/decisions/2026-12-01-bigdeal-hashlib-or-numpy.md.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable
from typing import Final

import numpy as np
import numpy.typing as npt

from dealer.core import godel, parallel
from dealer.core.cards import DECK_SIZE, DealArray
from dealer.engines import ripemd160

SEED_SIZE: Final = 20
CANDIDATE_BYTES: Final = 12
_COUNTER_MOD: Final = 1 << 32  # Big Deal writes the counter as 4 bytes
# D split at bit 64 for a vectorised comparison of the 96-bit candidates
_D_HIGH: Final = godel.DEAL_COUNT >> 64
_D_LOW: Final = godel.DEAL_COUNT & ((1 << 64) - 1)
_ACCEPT_RATE: Final = godel.DEAL_COUNT / 2**96  # about 0.677
_MAX_BATCH: Final = 1 << 17  # candidates hashed at once by one thread (measured: the numpy RIPEMD-160 takes
# ~1,800 array operations a batch, and below ~10**5 candidates their Python overhead, under the GIL, keeps
# a second thread from helping: 1.48 M deals/s on 2 threads at 2**14, 2.5 M at 2**17, 1.4 M on 1 thread)
_NUMPY_FROM: Final = 3000  # blocks per batch from which the numpy RIPEMD-160 is the faster (measured)

DigestFunction = Callable[[bytes, int, int], bytes]


def hashlib_has_ripemd160() -> bool:
    """True if ``hashlib`` can compute RIPEMD-160 on this system."""
    try:
        hashlib.new("ripemd160", b"")
    except (ValueError, TypeError):
        return False
    return True


def rmd160(data: bytes) -> bytes:
    """RIPEMD-160 of `data`: hashlib's where available, else the fallback."""
    if hashlib_has_ripemd160():
        return hashlib.new("ripemd160", data).digest()
    return ripemd160.ripemd160(data)


def owner_bytes(owner: str | bytes) -> bytes:
    """The owner as the bytes Big Deal hashes (its -W argument as its ``main`` receives it): bytes as they
    are; text in UTF-8, an undecodable byte the command line carried (``surrogateescape``) as that byte."""
    return owner if isinstance(owner, bytes) else owner.encode("utf-8", "surrogateescape")


def owner_hash(owner: str | bytes) -> bytes:
    """The 20-byte owner hash: RIPEMD-160 of the owner's bytes (:func:`owner_bytes`)."""
    return rmd160(owner_bytes(owner))


def _hashlib_digests(tail: bytes, start: int, count: int) -> bytes:
    """Digests of the blocks for counters start .. start+count-1, concatenated, through hashlib."""
    base = hashlib.new("ripemd160")
    copy = base.copy
    pack = struct.Struct("<I").pack
    out: list[bytes] = []
    append = out.append
    for counter in range(start, start + count):
        h = copy()
        h.update(pack(counter % _COUNTER_MOD) + tail)
        append(h.digest())
    return b"".join(out)


def _numpy_digests(tail: bytes, start: int, count: int) -> bytes:
    """The same digests as :func:`_hashlib_digests`, computed by the numpy RIPEMD-160."""
    counters = np.arange(start, start + count, dtype=np.uint64) % np.uint64(_COUNTER_MOD)
    return ripemd160.digest_counter_messages(counters, tail).tobytes()


def _fastest_digests(tail: bytes, start: int, count: int) -> bytes:
    """The same digests again, through whichever of hashlib and numpy is the faster for `count`."""
    if count >= _NUMPY_FROM:
        return _numpy_digests(tail, start, count)
    return _hashlib_digests(tail, start, count)


def accepted_candidates(digests: bytes) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.uint64],
                                                  npt.NDArray[np.uint64]]:
    """Indices of the digests whose 96-bit candidate is below D, and those candidates' high 32 and
    low 64 bits."""
    rows = np.frombuffer(digests, dtype=np.uint8).reshape(-1, ripemd160.DIGEST_SIZE)
    high = rows[:, 0:4].copy().view(">u4")[:, 0].astype(np.uint64)
    low = rows[:, 4:12].copy().view(">u8")[:, 0].astype(np.uint64)
    ok = (high < np.uint64(_D_HIGH)) | ((high == np.uint64(_D_HIGH)) & (low < np.uint64(_D_LOW)))
    index = np.flatnonzero(ok)
    return index, high[index], low[index]


def candidates_to_parts(high: npt.NDArray[np.uint64], low: npt.NDArray[np.uint64]) -> godel.PartArray:
    """Hand ranks (n, 3) of accepted candidates g = high * 2**64 + low, in exact uint64 arithmetic.

    G_a = g // (C(39,13) C(26,13)) is first estimated in floating point, which is off by at most one
    (g has 96 bits, the quotient 40, float64 keeps 53); the remainder g - G_a * unit is below 2**58
    in magnitude, so it is exact modulo 2**64 and one correction step makes G_a exact. The remainder,
    below 2**57, splits into G_b and G_c by ordinary uint64 division.
    """
    unit = np.uint64(godel.C39 * godel.C26)
    estimate = (high.astype(np.float64) * 2.0**64 + low.astype(np.float64)) / float(godel.C39 * godel.C26)
    g_a = np.floor(estimate).astype(np.uint64)
    rest = (low - g_a * unit).view(np.int64)  # wraps modulo 2**64; the true value is small
    under = rest < 0
    g_a[under] -= np.uint64(1)
    rest[under] += np.int64(godel.C39 * godel.C26)
    over = rest >= np.int64(godel.C39 * godel.C26)
    g_a[over] += np.uint64(1)
    rest[over] -= np.int64(godel.C39 * godel.C26)
    g_b, g_c = np.divmod(rest.view(np.uint64), np.uint64(godel.C26))
    return np.stack([g_a, g_b, g_c], axis=1)


class BigDealEngine:
    """Big Deal's deal stream for a 160-bit seed and an owner (bytes, or text: :func:`owner_bytes`); state
    is kept between calls.

    A large batch is hashed, screened and decoded in spans on `threads` threads (default: one a CPU,
    see :mod:`dealer.core.parallel`): each span of counters is hashed and screened by itself, the
    accepted candidates are then taken in counter order (the one sequential step, over small arrays),
    and the deals decoded span by span. So the stream is the same whatever the number of threads.
    """

    name = "bigdeal"

    def __init__(self, seed: bytes, owner: str | bytes = b"", *, use_hashlib: bool | None = None,
                 threads: int | None = None) -> None:
        """`use_hashlib`: True hashes through hashlib only, False through numpy only; None (the
        default) picks the faster per batch where hashlib has RIPEMD-160, else numpy."""
        if len(seed) != SEED_SIZE:
            raise ValueError(f"a Big Deal seed is {SEED_SIZE} bytes; got {len(seed)}")
        has_hashlib = hashlib_has_ripemd160()
        if use_hashlib is None:
            self._digests: DigestFunction = _fastest_digests if has_hashlib else _numpy_digests
        else:
            self._digests = _hashlib_digests if use_hashlib else _numpy_digests
        owner_digest = owner_hash(owner) if use_hashlib is not False else ripemd160.ripemd160(owner_bytes(owner))
        self._tail = bytes(seed) + owner_digest
        self._counter = 1  # the next counter to hash
        self.threads = parallel.thread_count(threads)

    @property
    def counter(self) -> int:
        """The counter the next candidate will be hashed with (1 for a fresh stream)."""
        return self._counter

    def parts(self, count: int) -> godel.PartArray:
        """Hand ranks (count, 3) of the next `count` accepted deal numbers."""
        if count < 0:
            raise ValueError(f"cannot take {count} deals")
        chunks: list[godel.PartArray] = []
        needed = count
        while needed > 0:
            batch = int(needed / _ACCEPT_RATE * 1.02) + 16
            index, parts = self._screen(self._counter, batch)
            index, parts = index[:needed], parts[:needed]
            chunks.append(parts)
            needed -= len(index)
            # continue right after the last candidate used; unused accepted ones come again next time
            self._counter += int(index[-1]) + 1 if needed == 0 else batch
        if not chunks:
            return np.empty((0, 3), dtype=np.uint64)
        return chunks[0] if len(chunks) == 1 else np.concatenate(chunks)

    def numbers(self, count: int) -> list[int]:
        """The next `count` deal numbers (Big Deal's .goe values)."""
        return godel.join_numbers(self.parts(count))

    def deals(self, count: int) -> DealArray:
        """The next `count` deals, shape (count, 52) uint8."""
        if count == 0:
            return np.empty((0, DECK_SIZE), dtype=np.uint8)
        return godel.parts_to_deals(self.parts(count), threads=self.threads)

    def _screen(self, first: int, count: int) -> tuple[npt.NDArray[np.intp], godel.PartArray]:
        """Positions (from `first`) and hand ranks of the accepted candidates among counters first ..
        first+count-1, in counter order; spans of counters are hashed and screened on the threads."""

        def screen(start: int, stop: int) -> tuple[npt.NDArray[np.intp], godel.PartArray]:
            index, high, low = accepted_candidates(self._digests(self._tail, first + start, stop - start))
            return index + start, candidates_to_parts(high, low)

        spans = parallel.map_spans(screen, count, _MAX_BATCH, self.threads, even=True)
        if len(spans) == 1:
            return spans[0]
        return np.concatenate([i for i, _ in spans]), np.concatenate([p for _, p in spans])
