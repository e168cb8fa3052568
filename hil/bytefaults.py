"""Byte faults on the line, and the line itself: one direction of the cable, bytes kept in order.

`ByteFaults` applies a plan's byte-level faults frame by frame, `LineNoise` is a bad cable, `OneWayLine`
carries one direction after the chunks' delays. Time is passed in; nothing here reads a clock.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterable
from gettext import gettext as _

from hil.fault_plan import BYTE_KINDS, FaultKind, FaultSpec

Chunk = tuple[float, bytes]
"""Bytes to deliver, and how long after they were written."""
Manipulator = Callable[[bytes, str], list[Chunk]]
"""Takes the bytes written and the direction ("to_host" or "to_device"); returns the chunks to deliver."""

TO_HOST = "to_host"
TO_DEVICE = "to_device"


class ByteFaults:
    """The byte faults of a plan (drop, flip, duplicate, delay, split, garbage), applied per frame in each
    direction: frames are counted at their 0x00 delimiters, across writes cut anywhere, and a partial frame
    is held back until its delimiter comes (a receiver can do nothing with half a frame anyway). Any
    callable of the same shape can stand in for it: a `Manipulator` takes the bytes written and the
    direction and returns ``(delay, bytes)`` chunks."""

    def __init__(self, specs: Iterable[FaultSpec], seed: int = 0) -> None:
        self.specs = [s for s in specs if s.kind in BYTE_KINDS]
        self.rng = random.Random(f"bytes:{seed}")
        self.frames = {TO_HOST: 0, TO_DEVICE: 0}
        self.fired = [0] * len(self.specs)
        self.log: list[str] = []
        """What fired, in English (a record tests read); `said`: the same in the language spoken."""
        self.said: list[str] = []
        self._partial = {TO_HOST: b"", TO_DEVICE: b""}

    def __call__(self, data: bytes, direction: str) -> list[Chunk]:
        if not self.specs:
            return [(0.0, data)]
        buf = self._partial[direction] + data
        cut = buf.rfind(b"\x00") + 1
        self._partial[direction] = buf[cut:]
        out: list[Chunk] = []
        for piece in _pieces(buf[:cut]):
            if len(piece) > 1:
                self.frames[direction] += 1
                out += self._frame(piece, direction)
            else:
                out.append((0.0, piece))
        return out

    def _frame(self, frame: bytes, direction: str) -> list[Chunk]:
        chunks: list[Chunk] = [(0.0, frame)]
        n = self.frames[direction]
        for i, spec in enumerate(self.specs):
            if spec.direction != direction or not self._fires(i, spec, n):
                continue
            self.log.append(f"{spec.kind.value} {direction} frame {n}")
            self.said.append(_("{fault} {direction} frame {frame}").format(fault=spec.kind.value, direction=direction,
                                                                          frame=n))
            chunks = self._apply(spec, chunks)
        return chunks

    def _fires(self, i: int, spec: FaultSpec, n: int) -> bool:
        limit = spec.limit
        if limit is not None and self.fired[i] >= limit:
            return False
        hit = self.rng.random() < spec.rate if spec.rate is not None else spec.frame == n
        self.fired[i] += hit
        return hit

    def _apply(self, spec: FaultSpec, chunks: list[Chunk]) -> list[Chunk]:
        data = b"".join(c for _, c in chunks)
        delay = chunks[0][0] if chunks else 0.0
        kind = spec.kind
        if kind is FaultKind.DROP:
            return []
        if kind is FaultKind.DUPLICATE:
            return chunks + chunks
        if kind is FaultKind.FLIP and data:
            buf = bytearray(data)
            at = self.rng.randrange(max(1, len(buf) - 1))  # any byte but the final delimiter
            buf[at] ^= self.rng.randrange(1, 256)
            return [(delay, bytes(buf))]
        if kind is FaultKind.GARBAGE:
            noise = bytes(self.rng.randrange(1, 256) for _ in range(spec.size or 16))
            return [(delay, noise)] + chunks
        if kind is FaultKind.DELAY:
            extra = 0.2 if spec.seconds is None else spec.seconds
            return [(d + extra, c) for d, c in chunks]
        if kind is FaultKind.SPLIT:
            size, gap = spec.size or 1, 0.001 if spec.seconds is None else spec.seconds
            return [(delay + k * gap, data[i:i + size]) for k, i in enumerate(range(0, len(data), size))]
        return chunks


class LineNoise:
    """Each byte, in either direction, dropped with probability `rate` / 2 or replaced by another value
    with probability `rate` / 2 (order kept, as on a UART); counted per direction. A bad cable: the damage
    falls whatever frame a byte belongs to (what the link's CRC and retransmissions are for)."""

    def __init__(self, rate: float, seed: int = 0) -> None:
        if not 0.0 <= rate < 1.0:
            raise ValueError(f"noise must be at least 0 and below 1, got {rate}")
        self.rate = rate
        self.rng = random.Random(f"noise:{seed}")
        self.carried = {TO_HOST: 0, TO_DEVICE: 0}
        self.dropped = {TO_HOST: 0, TO_DEVICE: 0}
        self.replaced = {TO_HOST: 0, TO_DEVICE: 0}

    def to_json(self) -> dict[str, object]:
        """The rate and the bytes carried, dropped and replaced in each direction."""
        return {"rate": self.rate, "carried": dict(self.carried), "dropped": dict(self.dropped),
                "replaced": dict(self.replaced)}

    def __call__(self, data: bytes, direction: str) -> list[Chunk]:
        self.carried[direction] += len(data)
        if not self.rate:
            return [(0.0, data)]
        out = bytearray()
        rnd, half = self.rng.random, self.rate / 2
        for b in data:
            r = rnd()
            if r >= self.rate:
                out.append(b)
            elif r < half:
                self.dropped[direction] += 1
            else:
                self.replaced[direction] += 1
                out.append(b ^ self.rng.randrange(1, 256))
        return [(0.0, bytes(out))]


def _pieces(data: bytes) -> list[bytes]:
    """`data` cut after each 0x00 (every piece ends with one)."""
    out = []
    start = 0
    while start < len(data):
        end = data.index(b"\x00", start) + 1
        out.append(data[start:end])
        start = end
    return out


def pass_through(data: bytes, direction: str) -> list[Chunk]:
    """The manipulator of a perfect cable."""
    return [(0.0, data)]


def chain(*manipulators: Manipulator) -> Manipulator:
    """One manipulator applying each in turn (the delays add up)."""

    def apply(data: bytes, direction: str) -> list[Chunk]:
        chunks: list[Chunk] = [(0.0, data)]
        for m in manipulators:
            chunks = [(d + d2, c2) for d, c in chunks for d2, c2 in m(c, direction)]
        return chunks

    return apply


class OneWayLine:
    """One direction of the cable: bytes put in at `now` come out after their delays, in order (a serial
    line delays bytes but does not reorder them)."""

    def __init__(self, direction: str, manipulator: Manipulator = pass_through) -> None:
        self.direction = direction
        self.manipulator = manipulator
        self._queue: deque[tuple[float, bytes]] = deque()
        self._last = float("-inf")

    def put(self, data: bytes, now: float) -> None:
        """Bytes written to the line at `now`."""
        if not data:
            return
        for delay, chunk in self.manipulator(data, self.direction):
            if chunk:
                self._last = max(self._last, now + delay)
                self._queue.append((self._last, chunk))

    def next_time(self) -> float | None:
        """When the next bytes arrive, or None."""
        return self._queue[0][0] if self._queue else None

    def take(self, now: float) -> bytes:
        """Every byte that has arrived by `now`."""
        out = bytearray()
        while self._queue and self._queue[0][0] <= now:
            out += self._queue.popleft()[1]
        return bytes(out)

    def clear(self) -> None:
        """Forget everything in flight (the cable was pulled)."""
        self._queue.clear()
