"""RIPEMD-160 (Dobbertin, Bosselaers, Preneel 1996) for builds whose ``hashlib`` lacks it (OpenSSL 3's
legacy provider): `ripemd160` over Python ints, and batches of short messages side by side in numpy
(`digest_short_messages`, `digest_counter_messages` for the Big Deal engine's counter blocks).
"""

from __future__ import annotations

import struct
from typing import Any, Final

import numpy as np
import numpy.typing as npt

DIGEST_SIZE: Final = 20
BLOCK_SIZE: Final = 64
MAX_SHORT: Final = 55  # longest message that pads into one block
_MASK: Final = 0xFFFFFFFF
_INITIAL: Final = (0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0)

# message word used at each of the 80 steps, left and right lines
_R_LEFT: Final = (
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    7, 4, 13, 1, 10, 6, 15, 3, 12, 0, 9, 5, 2, 14, 11, 8,
    3, 10, 14, 4, 9, 15, 8, 1, 2, 7, 0, 6, 13, 11, 5, 12,
    1, 9, 11, 10, 0, 8, 12, 4, 13, 3, 7, 15, 14, 5, 6, 2,
    4, 0, 5, 9, 7, 12, 2, 10, 14, 1, 3, 8, 11, 6, 15, 13,
)
_R_RIGHT: Final = (
    5, 14, 7, 0, 9, 2, 11, 4, 13, 6, 15, 8, 1, 10, 3, 12,
    6, 11, 3, 7, 0, 13, 5, 10, 14, 15, 8, 12, 4, 9, 1, 2,
    15, 5, 1, 3, 7, 14, 6, 9, 11, 8, 12, 2, 10, 0, 4, 13,
    8, 6, 4, 1, 3, 11, 15, 0, 5, 12, 2, 13, 9, 7, 10, 14,
    12, 15, 10, 4, 1, 5, 8, 7, 6, 2, 13, 14, 0, 3, 9, 11,
)
# left-rotation amounts at each step
_S_LEFT: Final = (
    11, 14, 15, 12, 5, 8, 7, 9, 11, 13, 14, 15, 6, 7, 9, 8,
    7, 6, 8, 13, 11, 9, 7, 15, 7, 12, 15, 9, 11, 7, 13, 12,
    11, 13, 6, 7, 14, 9, 13, 15, 14, 8, 13, 6, 5, 12, 7, 5,
    11, 12, 14, 15, 14, 15, 9, 8, 9, 14, 5, 6, 8, 6, 5, 12,
    9, 15, 5, 11, 6, 8, 13, 12, 5, 12, 13, 14, 11, 8, 5, 6,
)
_S_RIGHT: Final = (
    8, 9, 9, 11, 13, 15, 15, 5, 7, 7, 8, 11, 14, 14, 12, 6,
    9, 13, 15, 7, 12, 8, 9, 11, 7, 7, 12, 7, 6, 15, 13, 11,
    9, 7, 15, 11, 8, 6, 6, 14, 12, 13, 5, 14, 13, 13, 7, 5,
    15, 5, 8, 11, 14, 14, 6, 14, 6, 9, 12, 9, 12, 5, 15, 8,
    8, 5, 12, 9, 12, 5, 14, 6, 8, 13, 6, 5, 15, 13, 11, 11,
)
# additive constant of each round of 16 steps
_K_LEFT: Final = (0x00000000, 0x5A827999, 0x6ED9EBA1, 0x8F1BBCDC, 0xA953FD4E)
_K_RIGHT: Final = (0x50A28BE6, 0x5C4DD124, 0x6D703EF3, 0x7A6D76E9, 0x00000000)


def _boolean(round_: int, x: Any, y: Any, z: Any) -> Any:
    """The round's nonlinear function f_1 .. f_5 (round 0..4), masked to 32 bits."""
    if round_ == 0:
        return x ^ y ^ z
    if round_ == 1:
        return (x & y) | (~x & z & _MASK)
    if round_ == 2:
        return ((x | (~y & _MASK)) ^ z) & _MASK
    if round_ == 3:
        return (x & z) | (y & ~z & _MASK)
    return (x ^ (y | (~z & _MASK))) & _MASK


def _rol(x: Any, s: int) -> Any:
    return ((x << s) | (x >> (32 - s))) & _MASK


def _line(state: tuple[Any, ...], words: list[Any], right: bool) -> tuple[Any, ...]:
    """One of the two parallel lines of 80 steps over the 16 message words."""
    a, b, c, d, e = state
    order, shifts, consts = (_R_RIGHT, _S_RIGHT, _K_RIGHT) if right else (_R_LEFT, _S_LEFT, _K_LEFT)
    for j in range(80):
        round_ = j // 16
        f = _boolean(4 - round_ if right else round_, b, c, d)
        t = _rol((a + f + words[order[j]] + consts[round_]) & _MASK, shifts[j])
        a, b, c, d, e = e, (t + e) & _MASK, b, _rol(c, 10), d
    return a, b, c, d, e


def _compress(h: tuple[Any, ...], words: list[Any]) -> tuple[Any, ...]:
    """The compression function: chaining value `h` (5 words) and one block (16 words)."""
    al, bl, cl, dl, el = _line(h, words, right=False)
    ar, br, cr, dr, er = _line(h, words, right=True)
    return (
        (h[1] + cl + dr) & _MASK,
        (h[2] + dl + er) & _MASK,
        (h[3] + el + ar) & _MASK,
        (h[4] + al + br) & _MASK,
        (h[0] + bl + cr) & _MASK,
    )


def _padded(data: bytes) -> bytes:
    tail = b"\x80" + b"\x00" * ((55 - len(data)) % 64)
    return data + tail + struct.pack("<Q", (8 * len(data)) & 0xFFFFFFFFFFFFFFFF)


def ripemd160(data: bytes) -> bytes:
    """The 20-byte RIPEMD-160 digest of `data`."""
    message = _padded(bytes(data))
    h: tuple[Any, ...] = _INITIAL
    for start in range(0, len(message), BLOCK_SIZE):
        words = list(struct.unpack_from("<16I", message, start))
        h = _compress(h, words)
    return struct.pack("<5I", *h)


# --- batches of one-block messages in numpy -------------------------------------------------------

Word = int | npt.NDArray[np.uint32]  # a message word the same for every message, or one per message


def _batch_line(words: list[Word], right: bool, n: int) -> tuple[npt.NDArray[np.uint32], ...]:
    """One line of 80 steps for n messages at once; returns the five state arrays."""
    order, shifts, consts = (_R_RIGHT, _S_RIGHT, _K_RIGHT) if right else (_R_LEFT, _S_LEFT, _K_LEFT)
    a, b, c, d, e = _INITIAL
    step = 0
    while step < 80 and isinstance(words[order[step]], int):  # the same for every message so far
        round_ = step // 16
        f = _boolean(4 - round_ if right else round_, b, c, d)
        t = _rol((a + f + int(words[order[step]]) + consts[round_]) & _MASK, shifts[step])
        a, b, c, d, e = e, (t + e) & _MASK, b, _rol(c, 10), d
        step += 1
    regs = [np.full(n, v, dtype=np.uint32) for v in (a, b, c, d, e)]
    t_arr, spare = np.empty(n, dtype=np.uint32), np.empty(n, dtype=np.uint32)
    for j in range(step, 80):
        round_ = j // 16
        a_arr, b_arr, c_arr, d_arr, e_arr = regs
        _batch_boolean(4 - round_ if right else round_, b_arr, c_arr, d_arr, t_arr)
        t_arr += a_arr
        word = words[order[j]]
        if isinstance(word, int):
            t_arr += (word + consts[round_]) & _MASK
        else:
            t_arr += word
            t_arr += consts[round_]
        _batch_rol(t_arr, shifts[j], spare)
        t_arr += e_arr
        _batch_rol(c_arr, 10, spare)
        # a, b, c, d, e = e, t, b, rol(c, 10), d; the old a's array is the next step's scratch
        regs, t_arr = [e_arr, t_arr, b_arr, c_arr, d_arr], a_arr
    return tuple(regs)


def _batch_boolean(round_: int, x: npt.NDArray[np.uint32], y: npt.NDArray[np.uint32],
                   z: npt.NDArray[np.uint32], out: npt.NDArray[np.uint32]) -> None:
    """`out` = the round's function f_1 .. f_5 (round 0..4) of x, y, z, in the fewest operations."""
    if round_ == 0:  # x ^ y ^ z
        np.bitwise_xor(x, y, out=out)
        out ^= z
    elif round_ == 1:  # (x & y) | (~x & z) == z ^ (x & (y ^ z))
        np.bitwise_xor(y, z, out=out)
        out &= x
        out ^= z
    elif round_ == 2:  # (x | ~y) ^ z
        np.invert(y, out=out)
        out |= x
        out ^= z
    elif round_ == 3:  # (x & z) | (y & ~z) == y ^ (z & (x ^ y))
        np.bitwise_xor(x, y, out=out)
        out &= z
        out ^= y
    else:  # x ^ (y | ~z)
        np.invert(z, out=out)
        out |= y
        out ^= x


def _batch_rol(x: npt.NDArray[np.uint32], s: int, spare: npt.NDArray[np.uint32]) -> None:
    """Rotate every word of `x` left by `s` bits, in place (`spare` is scratch of the same shape)."""
    np.left_shift(x, s, out=spare)
    x >>= 32 - s
    x |= spare


def _batch_compress(words: list[Word], n: int) -> npt.NDArray[np.uint8]:
    """Digests (n, 20) of n one-block messages given by their 16 words (ints or uint32 arrays)."""
    al, bl, cl, dl, el = _batch_line(words, False, n)
    ar, br, cr, dr, er = _batch_line(words, True, n)
    h = _INITIAL
    out = np.empty((n, 5), dtype=np.uint32)
    for i, (x, y, init) in enumerate(((cl, dr, h[1]), (dl, er, h[2]), (el, ar, h[3]), (al, br, h[4]),
                                      (bl, cr, h[0]))):
        np.add(x, y, out=out[:, i])
        out[:, i] += init
    return out.astype("<u4").view(np.uint8).reshape(n, DIGEST_SIZE)


def digest_counter_messages(counters: npt.ArrayLike, tail: bytes) -> npt.NDArray[np.uint8]:
    """Digests (n, 20) of the messages ``counter (4 bytes, little-endian) || tail``, one per counter
    (each taken modulo 2**32); `tail` is at most 51 bytes, so every message is one block."""
    if len(tail) > MAX_SHORT - 4:
        raise ValueError(f"the tail after the counter is at most {MAX_SHORT - 4} bytes; got {len(tail)}")
    numbers = np.asarray(counters).reshape(-1)
    words: list[Word] = list(struct.unpack("<16I", _padded(bytes(4) + bytes(tail))))
    words[0] = (numbers % (1 << 32)).astype(np.uint32)
    return _batch_compress(words, len(numbers))


def digest_short_messages(messages: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """Digests (n, 20) of n messages given as an (n, L) uint8 array, L <= 55 (one block each)."""
    msgs = np.asarray(messages, dtype=np.uint8)
    if msgs.ndim != 2 or msgs.shape[1] > MAX_SHORT:
        raise ValueError(f"need an (n, L) byte array with L <= {MAX_SHORT}; got shape {msgs.shape}")
    n, length = msgs.shape
    blocks = np.zeros((n, BLOCK_SIZE), dtype=np.uint8)
    blocks[:, :length] = msgs
    blocks[:, length] = 0x80
    blocks[:, 56:64] = np.frombuffer(struct.pack("<Q", 8 * length), dtype=np.uint8)
    words_le = blocks.view("<u4").astype(np.uint32)  # (n, 16), byte order fixed to little-endian
    words: list[Word] = [np.ascontiguousarray(words_le[:, i]) for i in range(16)]
    return _batch_compress(words, n)
