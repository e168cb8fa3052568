"""The ``shuffle`` engine: an AES-256 keystream feeding an exact sequential deal, vectorised in numpy.

This docstring is the specification: everything needed to re-implement the engine and get the same
deals bit for bit is here.

Stream
    The engine is a stream of deals numbered i = 0, 1, 2, ... fixed by a 256-bit key K (the engine's
    32-byte seed, 64 hex digits on the command line, used as the AES key as it is). Deal i depends on
    (K, i) alone: ``deals_at(start, count)`` re-deals any board by itself, and batches of any size and any
    internal chunking give identical deals. ``deals(count)`` returns the next `count` deals of the
    stream (two calls of 8 equal one call of 16).

Keystream: one 32-bit word per (deal i, step s, attempt a)
    AES-256 with key K is used as a pseudo-random function on 16-byte counter blocks. The block for
    group g = i // 4, step s (0..50) and attempt a (0, 1, 2, ...) is the 128-bit big-endian integer

        B(a, s, g) = a * 2**96 + s * 2**64 + g         (bytes: a as 4 bytes BE, s as 4 bytes BE, g as 8 BE)

    and the word W(i, s, a) is word j = i % 4 of E_K(B(a, s, i // 4)), where word j is bytes 4j..4j+3 of
    the 16-byte cipher output read as a little-endian unsigned 32-bit integer. So one block serves four
    consecutive deals at one step. For fixed (a, s) consecutive groups are consecutive counter values:
    the words of groups g0, g0+1, ... at step s are plain AES-256-CTR output with initial counter block
    B(a, s, g0) (a 128-bit big-endian counter), i.e. CTR mode with a step-major layout. The
    implementation encrypts an explicit array of counter blocks with AES-256-ECB, step-major, which
    is the same thing. Deal indices are limited to i < 2**63.

Digits: exact uniform integers by Lemire's multiply-shift with rejection
    Step s needs a digit k uniform in [0, m) with m = 52 - s (m = 52, 51, ..., 2). From the word
    w = W(i, s, a) take x = w >> 6 (its top 26 bits, uniform in [0, 2**26)), and p = x * m, which
    is below 52 * 2**26 < 2**32, so uint32 arithmetic is exact. Then

        k = p >> 26,      rejected  if  (p mod 2**26) < (2**26 mod m).

    Each k in [0, m) is produced by exactly floor(2**26 / m) accepted values of x (Lemire, "Fast random
    integer generation in an interval", 2019), so an accepted digit is exactly uniform: no modulo bias.
    The probability of a rejection is (2**26 mod m) / 2**26 <= 4.8e-7 per step, 6.6e-6 per deal.

Dealing: Fisher-Yates on the label multiset (sequential dealing)
    Cards are dealt in index order c = 0..51 (S A K ... 2, then H, D, C; see :mod:`dealer.core.cards`).
    Before card c there are 52 - c empty slots: each seat's remaining places, listed West's first, then
    South's, East's, North's. Card c goes to the seat owning slot k, the digit of step s = c; the last
    card (c = 51) takes the one slot left, with no digit. With T1 = W's remaining places, T2 = W's + S's,
    T3 = W's + S's + E's, that seat is the number of thresholds above k,

        seat = [k < T1] + [k < T2] + [k < T3]   (N=0, E=1, S=2, W=3),   then  T_j -= [k < T_j],

    starting from T = (13, 26, 39). Card c goes to each seat with probability remaining / (52 - c),
    so every deal with 13 cards a seat has probability exactly (13!)**4 / 52! when the digits are
    uniform. Only small integers are compared: no float keys, no sort, no ties.

Rejection and attempts
    If any of the 51 digits of deal i at attempt a is rejected, the whole deal is dealt again from
    attempt a + 1 (fresh words W(i, s, a + 1)); deal i is the deal of its first attempt whose 51 digits
    are all accepted. Which attempt that is depends on (K, i) only, so the output does not depend on
    chunking. The accepted event is a product of per-digit events, so conditioned on it the digits are
    still independent and exactly uniform: the result is exactly uniform over all
    53,644,737,765,488,792,839,237,440,000 deals, as far as AES-256 is a pseudo-random function.

How the work is split (chunks, threads, memory, stride):
docs/decisions/2026-12-01-shuffle-engine-chunks-and-stride.md.
"""

from __future__ import annotations

import queue
from typing import Any, Final, Protocol

import numpy as np
import numpy.typing as npt
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from dealer.core import parallel
from dealer.core.cards import DECK_SIZE, DealArray

KEY_SIZE: Final = 32
STEPS: Final = DECK_SIZE - 1  # digits per deal: the last card takes the last slot
CHUNK: Final = 131072  # deals dealt together
PIECE: Final = 16384  # deals whose words and digits are made together
MAX_INDEX: Final = 2**63
DIGIT_BITS: Final = 26
WORDS_PER_BLOCK: Final = 4
GROUP: Final = 4  # cards dealt between two seat sums (their hits are kept until then); divides 52

_MODULI = np.arange(DECK_SIZE, 1, -1, dtype=np.uint32)  # m = 52 - s for s = 0..50
_LIMITS = (np.uint32(1 << DIGIT_BITS) % _MODULI).astype(np.uint32)  # 2**26 mod m
_LOW_MASK = np.uint32((1 << DIGIT_BITS) - 1)
_CACHE_LINE = 64

Words = npt.NDArray[np.uint32]
Digits = npt.NDArray[np.uint8]
Mask = npt.NDArray[np.bool_]


class ShuffleEngine:
    """A reproducible stream of exactly uniform deals from a 32-byte AES-256 key (see module docstring).

    Chunks of a batch are dealt on `threads` threads (default: one a CPU, see
    :mod:`dealer.core.parallel`); the deals are the same whatever the number. Each thread's scratch
    space and AES context are kept by the engine from call to call. One engine serves one caller at a
    time.
    """

    name = "shuffle"

    def __init__(self, key: bytes, *, threads: int | None = None) -> None:
        if len(key) != KEY_SIZE:
            raise ValueError(f"the shuffle engine needs a {8 * KEY_SIZE}-bit key; got {8 * len(key)} bits")
        self._key = bytes(key)
        self.threads = parallel.thread_count(threads)
        self._position = 0
        self._idle: queue.SimpleQueue[_Dealer] = queue.SimpleQueue()

    @property
    def position(self) -> int:
        """Index of the next deal :meth:`deals` returns."""
        return self._position

    def deals(self, count: int) -> DealArray:
        """The next `count` deals of the stream, shape (count, 52) uint8."""
        out = self.deals_at(self._position, count)
        self._position += count
        return out

    def skip(self, count: int) -> int:
        """Pass over the next `count` deals of the stream (to deal them by `deals_at`); the first's index."""
        start = self._position
        if count < 0 or start + count > MAX_INDEX:
            raise ValueError(f"cannot pass over {count} deals from {start}")
        self._position += count
        return start

    def deals_at(self, start: int, count: int, *, threads: int | None = None) -> DealArray:
        """Deals start .. start+count-1 of the stream, shape (count, 52) uint8, on `threads` threads (default:
        the engine's); `position` is unchanged."""
        if start < 0 or count < 0 or start + count > MAX_INDEX:
            raise ValueError(f"deal indices must lie in 0..2**63-1; got start={start}, count={count}")
        out = np.empty((count, DECK_SIZE), dtype=np.uint8)
        size = min(count, CHUNK) + WORDS_PER_BLOCK

        def deal(first: int, last: int) -> None:
            dealer = self._take_dealer(size)
            try:
                dealer.deal_chunk(start + first, start + last, out[first:last])
            finally:
                self._idle.put(dealer)

        parallel.map_spans(deal, count, CHUNK, self.threads if threads is None else threads, even=True)
        return out

    def keystream(self, start: int, count: int, attempt: int = 0) -> Words:
        """The words W(i, s, attempt) for deals i = start..start+count-1, shape (51, count) uint32."""
        if start < 0 or count < 0 or start + count > MAX_INDEX or not 0 <= attempt < 2**32:
            raise ValueError(f"no keystream for start={start}, count={count}, attempt={attempt}")
        dealer = _Dealer(self._encryptor(), 0, count + WORDS_PER_BLOCK)
        return dealer.words(start, start + count, attempt).copy()

    def _encryptor(self) -> Encryptor:
        """A fresh AES-256-ECB context under the key (a context serves one thread at a time)."""
        encryptor: Encryptor = Cipher(algorithms.AES(self._key), modes.ECB()).encryptor()
        return encryptor

    def _take_dealer(self, size: int) -> _Dealer:
        """An idle dealer with room for chunks of `size` deals, kept for later calls (first-touching
        fresh pages on every call would cost a third of the time at 10**5 deals)."""
        try:
            dealer = self._idle.get_nowait()
        except queue.Empty:
            return _Dealer(self._encryptor(), size)
        dealer.reserve(size)
        return dealer


class Encryptor(Protocol):
    """What the engine needs of an AES-ECB context."""

    def update_into(self, data: Any, buffer: bytearray) -> int:
        ...


class _Dealer:
    """Deals chunks in one thread: an AES context and scratch space, reused from chunk to chunk."""

    def __init__(self, encryptor: Encryptor, size: int, words_size: int | None = None) -> None:
        self._ecb = encryptor
        self._work = _Workspace(size, _words_size(size) if words_size is None else words_size)

    def reserve(self, size: int) -> None:
        """Room for chunks of `size` deals."""
        if self._work.size < size:
            self._work = _Workspace(size, _words_size(size))

    def words(self, first: int, last: int, attempt: int) -> Words:
        """W(i, s, attempt) for i = first..last-1 as a (51, last - first) view into the scratch space."""
        work = self._work
        g0 = first // WORDS_PER_BLOCK
        groups = -(-last // WORDS_PER_BLOCK) - g0
        blocks = work.counter_blocks(g0, groups, attempt)
        words = self._encrypt(blocks, work.cipher_buffer()).reshape(STEPS, WORDS_PER_BLOCK * groups)
        offset = first - WORDS_PER_BLOCK * g0
        return words[:, offset:offset + last - first]

    def deal_chunk(self, first: int, last: int, out: DealArray) -> None:
        """Deals first..last-1 into `out`, redealing rejected deals from their next attempts. The words
        and digits are made in pieces of PIECE deals (kept in cache), the dealing over the whole chunk."""
        n = last - first
        lanes = self._work.lanes(n)
        digits = lanes.digits
        redo: list[npt.NDArray[np.intp]] = []
        for a in range(0, n, PIECE):
            b = min(a + PIECE, n)
            _, rejected = lemire_digits(self.words(first + a, first + b, 0), digits[:, a:b], in_place=True)
            if rejected.any():
                redo.append(np.flatnonzero(rejected) + a)
        deal_lanes(digits, lanes, out)
        if redo:
            indices = np.concatenate(redo)
            out[indices] = self._redeal(indices + first)

    def _redeal(self, indices: npt.NDArray[np.intp]) -> DealArray:
        """Deals `indices` from attempt 1 on (their attempt 0 was rejected)."""
        out = np.empty((indices.size, DECK_SIZE), dtype=np.uint8)
        pending = np.arange(indices.size)
        attempt = 1
        while pending.size:
            idx = indices[pending].astype(np.uint64)
            blocks = counter_blocks(idx // WORDS_PER_BLOCK, attempt)
            cipher_words = self._encrypt(blocks).reshape(STEPS, idx.size, WORDS_PER_BLOCK)
            lanes = (idx % WORDS_PER_BLOCK).astype(np.intp)
            words = cipher_words[:, np.arange(idx.size), lanes]
            digits, rejected = lemire_digits(words, in_place=True)
            dealt = np.empty((idx.size, DECK_SIZE), dtype=np.uint8)
            deal_lanes(digits, _Workspace(idx.size, 0).lanes(idx.size), dealt)
            out[pending[~rejected]] = dealt[~rejected]
            pending = pending[rejected]
            attempt += 1
        return out

    def _encrypt(self, blocks: npt.NDArray[np.uint64], buffer: bytearray | None = None) -> Words:
        """AES-256-ECB of a contiguous array of counter blocks, as little-endian uint32 words (4 a block)."""
        data = blocks.reshape(-1).view(np.uint8)
        if buffer is None:
            buffer = bytearray(data.size + 15)  # update_into wants room for one more block
        self._ecb.update_into(data.data, buffer)
        return np.frombuffer(buffer, dtype="<u4", count=data.size // 4)


def counter_blocks(groups: npt.NDArray[np.uint64], attempt: int,
                   out: npt.NDArray[np.uint64] | None = None) -> npt.NDArray[np.uint64]:
    """Counter blocks B(attempt, s, g) for s = 0..50 and each g in `groups`: shape (51, len, 2) of
    big-endian uint64 (high half a * 2**32 + s, low half g), step-major, contiguous."""
    if out is None:
        out = np.empty((STEPS, groups.size, 2), dtype=">u8")
    out[:, :, 0] = (np.uint64(attempt << 32) + np.arange(STEPS, dtype=np.uint64))[:, None]
    out[:, :, 1] = groups[None, :]
    return out


def lemire_digits(words: Words, digits: Digits | None = None, *,
                  in_place: bool = False) -> tuple[Digits, Mask]:
    """Digits k[s, j] uniform in [0, 52 - s) from words (51, n), and which of the n deals had a rejection.

    The digits of a deal with a rejection are meaningless (it is dealt again from its next attempt).
    The digits are written into `digits` when given; with `in_place` the words are overwritten (one pass
    over memory fewer)."""
    n = words.shape[1]
    product = words if in_place else np.empty((STEPS, n), dtype=np.uint32)
    np.right_shift(words, np.uint32(32 - DIGIT_BITS), out=product)
    np.multiply(product, _MODULI[:, None], out=product)
    if digits is None:
        digits = np.empty((STEPS, n), dtype=np.uint8)
    np.right_shift(product, np.uint32(DIGIT_BITS), out=digits, casting="unsafe")
    np.bitwise_and(product, _LOW_MASK, out=product)
    if n and (np.minimum.reduce(product, axis=1) < _LIMITS).any():  # rare: find the deals rejected
        rejected: Mask = np.logical_or.reduce(product < _LIMITS[:, None], axis=0)
    else:
        rejected = np.zeros(n, dtype=np.bool_)
    return digits, rejected


def deal_lanes(digits: Digits, work: _Lanes, out: DealArray) -> None:
    """Sequential dealing of n deals at once from digits (51, n) into `out` (n, 52).

    Per card, two calls over all lanes: hits[j] = [k < T_j] (kept for GROUP cards), T_j -= hits[j]; each
    GROUP cards, their seats as their three hits summed; then the transpose."""
    thresholds = work.thresholds
    thresholds[...] = _START
    less, subtract, add = np.less, np.subtract, np.add
    hit_counts = work.hit_counts
    for rounds, seats in work.rounds(digits):
        for digit, hits, counts in rounds:
            less(digit, thresholds, hits)
            subtract(thresholds, counts, thresholds)
        add(hit_counts[:, 0], hit_counts[:, 1], seats)
        add(seats, hit_counts[:, 2], seats)
    work.transpose_into(out)


_START = np.array([[13], [26], [39]], dtype=np.uint8)


_HALVES, _BYTES = np.uint32(0x0000FFFF), np.uint32(0x00FF00FF)
_SWAP_BYTES = DECK_SIZE // 4 * 2 * 4  # scratch bytes of the transposes, for every 4 lanes


class _Lanes:
    """The dealing pass's arrays for chunks of n deals, made once and reused: the digits (51, n) and
    seats (52, n), thresholds (3, n), the hits of GROUP cards (GROUP, 3, n), and each card's views.

    `rows` (52, row length a multiple of 4 bytes) holds first the chunk's digits (rows 0..50), then its
    seats (rows 0..51, the first n columns): a group's seats are written after the group's digits are
    used."""

    def __init__(self, rows: npt.NDArray[np.uint8], n: int, thresholds: npt.NDArray[np.uint8],
                 scratch: npt.NDArray[np.uint8]) -> None:
        self.digits = rows[:STEPS, :n]
        self.seats, self.thresholds = rows[:, :n], thresholds
        self.hits = scratch[:GROUP * 3 * n].view(np.bool_).reshape(GROUP, 3, n)
        self.hit_counts = self.hits.view(np.uint8)
        # the seats as 4-byte words, 4 lanes a word: (13, 4 cards, n // 4) for the 4x4 byte transposes,
        # whose scratch words take the hits' place (the hits are summed by then)
        self._quads = rows.view(np.uint32).reshape(DECK_SIZE // 4, 4, -1)[:, :, :n // 4]
        self._swaps = scratch[:_SWAP_BYTES * (n // 4)].view(np.uint32).reshape(DECK_SIZE // 4, 2, n // 4)
        self._last_digit = np.zeros((1, n), dtype=np.uint8)  # the last card takes the last slot
        self._digits: Digits | None = None
        self._rounds: list[tuple[list[tuple[Digits, Mask, npt.NDArray[np.uint8]]], npt.NDArray[np.uint8]]] = []

    def rounds(self, digits: Digits) -> list[tuple[list[tuple[Digits, Mask, npt.NDArray[np.uint8]]],
                                                   npt.NDArray[np.uint8]]]:
        """Groups of GROUP cards: each card's (digit row (1, n), hits (3, n), the same hits as uint8),
        and the group's seat rows (`digits` are usually :attr:`digits`; the views are kept for them)."""
        if self._digits is not digits:
            rows = [digits[card:card + 1] for card in range(STEPS)] + [self._last_digit]
            self._rounds = [([(rows[card], self.hits[card % GROUP], self.hit_counts[card % GROUP])
                              for card in range(first, first + GROUP)], self.seats[first:first + GROUP])
                            for first in range(0, DECK_SIZE, GROUP)]
            self._digits = digits
        return self._rounds

    def transpose_into(self, out: DealArray) -> None:
        """out (n, 52) = seats (52, n) transposed: in blocks of 4 cards x 4 lanes, each a 4x4 byte
        transpose inside 4 words (two rounds of masked swaps), then one copy of whole 4-byte words
        (13 a deal instead of 52 single bytes); the last n % 4 lanes byte by byte. The seat rows are
        overwritten."""
        quads, t = self._quads, self._swaps
        whole = 4 * quads.shape[2]
        if whole:
            for low, high, shift, mask in ((quads[:, 0:2], quads[:, 2:4], np.uint32(16), _HALVES),
                                           (quads[:, 0::2], quads[:, 1::2], np.uint32(8), _BYTES)):
                np.right_shift(low, shift, out=t)  # swap the high part of `low` with the low part of `high`
                np.bitwise_xor(t, high, out=t)
                np.bitwise_and(t, mask, out=t)
                np.bitwise_xor(high, t, out=high)
                np.left_shift(t, shift, out=t)
                np.bitwise_xor(low, t, out=low)
            out[:whole].view(np.uint32).reshape(-1, 4, DECK_SIZE // 4)[...] = quads.transpose(2, 1, 0)
        if whole < out.shape[0]:
            out[whole:] = self.seats[:, whole:].T


class _Workspace:
    """Scratch arrays for chunks of up to `size` deals, whose words are made `words_size` deals at a time,
    reused from chunk to chunk."""

    def __init__(self, size: int, words_size: int) -> None:
        self.size = size
        groups = -(-words_size // WORDS_PER_BLOCK)
        self._blocks = np.empty(STEPS * groups * 2, dtype=">u8")
        self._high: tuple[int, int] | None = None  # (attempt, groups) the blocks' high halves hold
        self._cipher = bytearray(STEPS * groups * 16 + 15)  # update_into wants room for one more block
        self._rows = np.empty((DECK_SIZE, _odd_cache_lines(size)), dtype=np.uint8)  # digits, then seats
        self._thresholds = np.empty(3 * size, dtype=np.uint8)
        self._scratch = np.empty(max(GROUP * 3 * size, _SWAP_BYTES * (size // 4)), dtype=np.uint8)
        self._lanes: _Lanes | None = None

    def counter_blocks(self, g0: int, groups: int, attempt: int) -> npt.NDArray[np.uint64]:
        """:func:`counter_blocks` for groups g0 .. g0+groups-1, in place; the high halves (attempt, step)
        are written only when the attempt or the number of groups differs from the last call's."""
        blocks = self._blocks[:STEPS * groups * 2].reshape(STEPS, groups, 2)
        if self._high != (attempt, groups):
            blocks[:, :, 0] = (np.uint64(attempt << 32) + np.arange(STEPS, dtype=np.uint64))[:, None]
            self._high = (attempt, groups)
        blocks[:, :, 1] = np.arange(g0, g0 + groups, dtype=np.uint64)[None, :]
        return blocks

    def cipher_buffer(self) -> bytearray:
        return self._cipher

    def lanes(self, n: int) -> _Lanes:
        """The dealing arrays for n deals (kept while n stays the same)."""
        if self._lanes is None or self._lanes.seats.shape[1] != n:
            self._lanes = _Lanes(self._rows, n, self._thresholds[:3 * n].reshape(3, n), self._scratch)
        return self._lanes


def _words_size(size: int) -> int:
    """Room for the words of chunks of `size` deals, made in pieces (a piece may start mid-block)."""
    return min(size, PIECE + WORDS_PER_BLOCK)


def _odd_cache_lines(size: int) -> int:
    """A row length in bytes >= size that is an odd number of cache lines (no cache-set aliasing)."""
    lines = max(1, -(-size // _CACHE_LINE))
    return (lines | 1) * _CACHE_LINE
