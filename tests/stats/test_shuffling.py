"""The hand-shuffling model: a riffle is a Gilbert-Shannon-Reeds riffle, gathering and dealing follow the
stated rule, and the model's deals are deals."""

from __future__ import annotations

import numpy as np
import pytest

from dealer.core.cards import check_deals
from dealer.core.errors import UsageError
from dealer.stats import shuffling


def rising_sequences(pack: np.ndarray) -> int:
    """Rising sequences of a permutation (Bayer-Diaconis): 1 + how often card c+1 lies above card c."""
    position = np.argsort(pack)
    return 1 + int((position[1:] < position[:-1]).sum())


def test_a_riffle_interleaves_two_packets_cut_binomially() -> None:
    rng = np.random.default_rng(1)
    fresh = np.tile(np.arange(52, dtype=np.int16), (20_000, 1))
    shuffled = shuffling.riffle(fresh, rng)
    assert (np.sort(shuffled, axis=1) == fresh).all()                  # a permutation of the pack
    assert max(rising_sequences(p) for p in shuffled[:2000]) <= 2     # one riffle: two packets at most
    # the top packet is the cards 0..K-1 (the rising sequence from card 0); K is Binomial(52, 1/2)
    position = np.argsort(shuffled, axis=1)
    breaks = position[:, 1:] < position[:, :-1]
    assert breaks.any(axis=1).all()                                   # (the identity has chance 53 / 2^52)
    cut = breaks.argmax(axis=1) + 1
    assert abs(cut.mean() - 26) < 0.1 and abs(cut.var() - 13) < 0.6
    # every interleaving equally likely: each position holds a top-packet card half the time, independently
    from_top = shuffled < cut[:, None]
    assert np.abs(from_top.mean(axis=0) - 0.5).max() < 0.02
    assert abs(np.corrcoef(from_top[:, 10], from_top[:, 11])[0, 1]) < 0.03


def test_k_riffles_make_at_most_two_to_the_k_rising_sequences() -> None:
    rng = np.random.default_rng(2)
    packs = np.tile(np.arange(52, dtype=np.int16), (500, 1))
    for k in range(1, 5):
        packs = shuffling.riffle(packs, rng)
        assert max(rising_sequences(p) for p in packs) <= 2**k


def test_gathering_stacks_sorted_hands_north_first_and_dealing_goes_round() -> None:
    deal = np.repeat(np.arange(4, dtype=np.uint8), 13)       # North holds the spades, East the hearts, ...
    west_first = (3 - deal).astype(np.uint8)                  # West the spades, ..., North the clubs
    assert (shuffling.gather(deal[None]) == np.arange(52)).all()
    assert (shuffling.gather(west_first[None])[0] == np.r_[39:52, 26:39, 13:26, 0:13]).all()
    dealt = shuffling.deal_out(np.arange(52, dtype=np.int16)[None])[0]
    assert (dealt == np.arange(52) % 4).all()                # card at position i to seat i mod 4
    # no shuffle at all: each hand's sorted cards are dealt round the table, so every hand is 4-3-3-3
    flat = shuffling.next_deals(deal[None], 0, np.random.default_rng(0))
    lengths = np.array([[(flat[0, s * 13:(s + 1) * 13] == h).sum() for s in range(4)] for h in range(4)])
    assert sorted(lengths.ravel().tolist()) == [3] * 12 + [4] * 4


def test_model_deals_are_deals_in_chains() -> None:
    rng = np.random.default_rng(3)
    deals = shuffling.model_deals(2500, 3, rng, chains=1000)
    assert check_deals(deals).shape == (2500, 52)
    # reproducible from the generator's seed
    again = shuffling.model_deals(2500, 3, np.random.default_rng(3), chains=1000)
    assert (deals == again).all()


@pytest.mark.parametrize(("count", "shuffles"), [(10, 0), (10, 11), (0, 3)])
def test_the_model_refuses_what_it_cannot_do(count: int, shuffles: int) -> None:
    with pytest.raises(UsageError):
        shuffling.model_deals(count, shuffles, np.random.default_rng(0))
