"""Deal engines: seeded streams that fill (n, 52) deal arrays, exactly uniform and cryptographically
unpredictable: ``bigdeal`` (the default, Big Deal bit for bit) and ``shuffle`` (AES-256). Without a seed
a fresh one comes from `secrets`, never the clock. Pure: no I/O.

May import: `dealer.core`, numpy, cryptography.
"""

from __future__ import annotations

import importlib
import secrets
from typing import Final, Protocol, runtime_checkable

from dealer.core.cards import DealArray
from dealer.core.errors import UsageError

DEFAULT_ENGINE: Final = "bigdeal"
# engine name -> (module, class name, seed length in bytes)
_ENGINES: Final = {
    "bigdeal": ("dealer.engines.bigdeal", "BigDealEngine", 20),
    "shuffle": ("dealer.engines.shuffle", "ShuffleEngine", 32),
}


class Engine(Protocol):
    """A reproducible stream of deals."""

    name: str

    def deals(self, count: int) -> DealArray:
        """The next `count` deals of the stream, shape (count, 52) uint8."""
        ...


@runtime_checkable
class SpanEngine(Engine, Protocol):
    """An engine that deals any span of its stream by itself, so spans can be dealt on several threads."""

    def skip(self, count: int) -> int:
        """Pass over the next `count` deals; the index of the first."""
        ...

    def deals_at(self, start: int, count: int, *, threads: int | None = None) -> DealArray:
        """Deals start .. start+count-1 of the stream on `threads` threads (default: the engine's); the position
        is unchanged."""
        ...


def engine_names() -> list[str]:
    """Names accepted by :func:`make_engine`."""
    return list(_ENGINES)


def seed_length(name: str) -> int:
    """Seed size in bytes of an engine."""
    return _spec(name)[2]


def parse_seed(name: str, text: str) -> bytes:
    """The seed bytes from hex text; `UsageError` unless exactly the engine's length in hex digits."""
    size = seed_length(name)
    clean = text.strip()
    if len(clean) != 2 * size or any(c not in "0123456789abcdefABCDEF" for c in clean):
        raise UsageError(f"--seed for engine {name} must be {2 * size} hex digits")
    return bytes.fromhex(clean)


def fresh_seed(name: str) -> bytes:
    """A new seed for an engine from the OS CSPRNG."""
    return secrets.token_bytes(seed_length(name))


def seed_record(name: str, seed: bytes, owner: bytes) -> bytes:
    """The bytes of a seed file (kept only on request, mode 0600): enough to reproduce the stream. The
    owner is written as its bytes and again in hex (``--owner-hex``), which any byte survives."""
    return (f"engine {name}\nseed {seed.hex()}\n".encode("ascii") + b"owner " + owner + b"\n"
            + f"owner-hex {owner.hex()}\n".encode("ascii"))


def make_engine(name: str, seed: bytes, owner: str | bytes = b"", *, threads: int | None = None) -> Engine:
    """An engine by name with its seed (`owner` is used by bigdeal only), dealing on `threads` threads
    (default: one a CPU, see :mod:`dealer.core.parallel`); the deals do not depend on `threads`."""
    module_name, class_name, size = _spec(name)
    if len(seed) != size:
        raise UsageError(f"engine {name} needs a {8 * size}-bit seed; got {8 * len(seed)} bits")
    if threads is not None and threads < 1:
        raise UsageError(f"an engine needs at least one thread; got {threads}")
    cls = getattr(importlib.import_module(module_name), class_name)
    engine: Engine = cls(seed, owner, threads=threads) if name == "bigdeal" else cls(seed, threads=threads)
    return engine


def _spec(name: str) -> tuple[str, str, int]:
    try:
        return _ENGINES[name]
    except KeyError:
        raise UsageError(f"unknown engine {name!r}; choose from {', '.join(_ENGINES)}") from None
