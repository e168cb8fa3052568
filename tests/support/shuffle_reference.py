"""Two re-implementations of the shuffle engine written from its module docstring alone (not its code).

The scalar reference walks the remaining slots one seat at a time for one deal (no thresholds, no
numpy), draws each word from one AES block, and redeals from the next attempt on any rejected digit.
The array reference deals many deals at once, for batches too large for the scalar one: each step's
words as AES-256-CTR output (the docstring's second description of the keystream, not the engine's
ECB of counter blocks), Lemire's test on 64-bit products, the same seat walk over all deals with
``np.where``; a deal with a rejected digit at attempt 0 is handed to the scalar reference.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import numpy.typing as npt
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

BlockFunction = Callable[[bytes], bytes]

N, E, S, W = range(4)
SLOT_ORDER = (W, S, E, N)  # the empty slots are listed West's first, then South's, East's, North's


# ---- scalar: one deal at a time -------------------------------------------------------------------

def aes_block(key: bytes) -> BlockFunction:
    """E_K on one 16-byte block."""
    ecb = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    return ecb.update


def ref_word(block: BlockFunction, deal: int, step: int, attempt: int) -> int:
    counter = (attempt << 96) | (step << 64) | (deal // 4)
    out = block(counter.to_bytes(16, "big"))
    j = deal % 4
    return int.from_bytes(out[4 * j:4 * j + 4], "little")


def ref_digit(word: int, m: int) -> int | None:
    """Lemire on the top 26 bits; None when rejected."""
    product = (word >> 6) * m
    if product % 2**26 < 2**26 % m:
        return None
    return product >> 26


def ref_deal(block: BlockFunction, deal: int) -> tuple[list[int], int]:
    """Deal `deal` of the stream and the attempt that produced it."""
    for attempt in itertools.count():
        places = {0: 13, 1: 13, 2: 13, 3: 13}
        seats: list[int] = []
        for card in range(52):
            m = 52 - card
            k = 0 if m == 1 else ref_digit(ref_word(block, deal, card, attempt), m)
            if k is None:
                break
            for seat in SLOT_ORDER:
                if k < places[seat]:
                    break
                k -= places[seat]
            places[seat] -= 1
            seats.append(seat)
        else:
            return seats, attempt
    raise AssertionError("unreachable")


def ref_deals(block: BlockFunction, start: int, count: int) -> tuple[npt.NDArray[np.uint8], list[int]]:
    """Deals start..start+count-1 (count >= 1) and the attempt of each."""
    rows, attempts = zip(*(ref_deal(block, i) for i in range(start, start + count)), strict=True)
    return np.array(rows, dtype=np.uint8), list(attempts)


# ---- arrays: many deals at once -----------------------------------------------------------------

def ctr_words(key: bytes, start: int, count: int) -> npt.NDArray[np.uint64]:
    """W(i, s, 0) for i = start..start+count-1 and s = 0..50, shape (51, count), from AES-256-CTR per step."""
    g0, g1 = start // 4, -(-(start + count) // 4)
    rows = []
    for step in range(51):
        nonce = ((step << 64) | g0).to_bytes(16, "big")
        stream = Cipher(algorithms.AES(key), modes.CTR(nonce)).encryptor().update(bytes(16 * (g1 - g0)))
        words = np.frombuffer(stream, dtype="<u4").astype(np.uint64)
        rows.append(words[start - 4 * g0:start - 4 * g0 + count])
    return np.array(rows, dtype=np.uint64).reshape(51, count)


def array_deals(key: bytes, start: int, count: int) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.intp]]:
    """Deals start..start+count-1, shape (count, 52), and the deals (offsets from start) that needed a
    second attempt (dealt by the scalar reference)."""
    words = ctr_words(key, start, count)
    moduli = np.arange(52, 1, -1, dtype=np.uint64)[:, None]
    products = (words >> np.uint64(6)) * moduli
    digits = products >> np.uint64(26)
    rejected = ((products % np.uint64(2**26)) < (np.uint64(2**26) % moduli)).any(axis=0)
    places = np.full((4, count), 13, dtype=np.int64)
    lanes = np.arange(count)
    out = np.empty((count, 52), dtype=np.uint8)
    for card in range(52):
        k = digits[card].astype(np.int64) if card < 51 else np.zeros(count, dtype=np.int64)
        seat = np.full(count, -1, dtype=np.int64)
        for candidate in SLOT_ORDER:
            open_ = seat < 0
            here = open_ & (k < places[candidate])
            seat[here] = candidate
            k = np.where(open_ & ~here, k - places[candidate], k)
        assert (seat >= 0).all()
        places[seat, lanes] -= 1
        out[:, card] = seat
    redo = np.flatnonzero(rejected)
    block = aes_block(key)
    for offset in redo:
        out[offset], attempt = ref_deal(block, start + int(offset))
        assert attempt >= 1
    return out, redo
