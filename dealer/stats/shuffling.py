"""A model of hand shuffling to set beside the computer's deals: k riffle shuffles of the gathered pack.

Each deal is made from the one before: its hands gathered (`gather`), the pack riffled k times (`riffle`),
dealt one card at a time (`model_deals`). What `dealer stats` makes of them:
docs/decisions/2026-12-01-hand-shuffling-detected.md.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from dealer.core.cards import DECK_SIZE, DealArray
from dealer.core.errors import UsageError
from dealer.language import _

MAX_SHUFFLES: Final = 10
DEFAULT_CHAINS: Final = 1000
Packs = npt.NDArray[np.int16]
"""Packs of cards (n, 52): the card index at each position, top of the pack first."""

_SEATS_ROUND_ROBIN: Final = np.arange(DECK_SIZE, dtype=np.uint8) % 4


def gather(deals: DealArray) -> Packs:
    """The packs gathered from deals: each hand sorted as players hold it (♠ ♥ ♦ ♣, ace to two), the hands
    stacked North on top, then East, South and West."""
    keys = np.asarray(deals, dtype=np.int16) * DECK_SIZE + np.arange(DECK_SIZE, dtype=np.int16)
    packs: Packs = np.argsort(keys, axis=1).astype(np.int16)
    return packs


def riffle(packs: Packs, rng: np.random.Generator) -> Packs:
    """One Gilbert-Shannon-Reeds riffle shuffle of each pack (Bayer and Diaconis, 1992): cut into a top packet
    of K ~ Binomial(52, 1/2) cards and the rest, riffled together with every one of the C(52, K)
    interleavings equally likely. Done as: each position of the new pack draws a fair bit; the positions
    with 0 take the top packet's cards in order, the others the rest in order. About seven such shuffles
    make a pack close to random in total variation; clubs rarely give more than three or four."""
    from_rest = rng.integers(0, 2, size=packs.shape, dtype=np.uint8).astype(bool)
    from_top = ~from_rest
    top_size = from_top.sum(axis=1, keepdims=True)
    source = np.where(from_rest, top_size + np.cumsum(from_rest, axis=1) - 1, np.cumsum(from_top, axis=1) - 1)
    shuffled: Packs = np.take_along_axis(packs, source, axis=1)
    return shuffled


def deal_out(packs: Packs) -> DealArray:
    """Deal each pack one card at a time from the top: N, E, S, W in turn."""
    deals = np.empty(packs.shape, dtype=np.uint8)
    np.put_along_axis(deals, packs.astype(np.intp), np.broadcast_to(_SEATS_ROUND_ROBIN, packs.shape), axis=1)
    return deals


def next_deals(deals: DealArray, shuffles: int, rng: np.random.Generator) -> DealArray:
    """The deals made from `deals` by gathering, `shuffles` riffle shuffles and dealing round robin."""
    packs = gather(deals)
    for _shuffle in range(shuffles):
        packs = riffle(packs, rng)
    return deal_out(packs)


def model_deals(count: int, shuffles: int, rng: np.random.Generator, *, chains: int = DEFAULT_CHAINS) -> DealArray:
    """`count` deals of the hand-shuffling model with `shuffles` riffle shuffles (1 to 10) between deals,
    dealt one card at a time from the top, to North, East, South and West in turn. Each deal is the next in
    a chain, made from the deal before it: `chains` chains run side by side (vectorised over them), each
    starting from a uniformly random deal that is not itself returned; the deals come chain after chain."""
    if not 1 <= shuffles <= MAX_SHUFFLES:
        raise UsageError(_("the shuffle model takes 1 to {most} riffle shuffles; got {shuffles}").format(
            most=MAX_SHUFFLES, shuffles=shuffles))
    if count < 1:
        raise UsageError(_("the shuffle model needs at least one deal; got {count}").format(count=count))
    chains = max(1, min(chains, count))
    length = -(-count // chains)
    base = np.repeat(np.arange(4, dtype=np.uint8), 13)
    current: DealArray = rng.permuted(np.tile(base, (chains, 1)), axis=1)
    steps = np.empty((length, chains, DECK_SIZE), dtype=np.uint8)
    for step in range(length):
        current = next_deals(current, shuffles, rng)
        steps[step] = current
    out: DealArray = steps.transpose(1, 0, 2).reshape(-1, DECK_SIZE)[:count]
    return out
