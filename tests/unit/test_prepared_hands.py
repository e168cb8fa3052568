"""The hand functions of prepared boards, over a batch in numpy, against a plain count of each hand card by
card (hypothesis draws the deals), and the shapes a pattern matches."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer.prepared import Compiled, parse_script

SEATS = ("north", "east", "south", "west")
SUITS = ("spades", "hearts", "diamonds", "clubs")
RANKS = "AKQJT98765432"


@st.composite
def deals(draw: st.DrawFn) -> np.ndarray:
    """A few deals, each a permutation of 13 cards a seat."""
    count = draw(st.integers(1, 6))
    rows = [np.repeat(np.arange(4, dtype=np.uint8), 13)[draw(st.permutations(range(52)))] for _ in range(count)]
    return np.array(rows, dtype=np.uint8)


def hand(deal: np.ndarray, seat: int) -> list[tuple[int, str]]:
    """(suit, rank letter) of each card a seat holds."""
    return [(card // 13, RANKS[card % 13]) for card in range(52) if deal[card] == seat]


def plain(name: str, deal: np.ndarray, seat: int, suit: int | None) -> int:
    """A function counted by hand, card by card, as the reference program's manual defines it."""
    cards = [c for c in hand(deal, seat) if suit is None or c[0] == suit]
    points = {"hcp": {"A": 4, "K": 3, "Q": 2, "J": 1}, "controls": {"A": 2, "K": 1},
              "top2": {"A": 1, "K": 1}, "top3": {"A": 1, "K": 1, "Q": 1}, "top4": {"A": 1, "K": 1, "Q": 1, "J": 1},
              "top5": {"A": 1, "K": 1, "Q": 1, "J": 1, "T": 1}, "c13": {"A": 6, "K": 4, "Q": 2, "J": 1},
              "aces": {"A": 1}, "kings": {"K": 1}, "queens": {"Q": 1}, "jacks": {"J": 1}, "tens": {"T": 1}}
    if name in points:
        return sum(points[name].get(rank, 0) for _, rank in cards)
    if name == "losers":
        total = 0
        for s in range(4) if suit is None else [suit]:
            ranks = {rank for su, rank in cards if su == s}
            n = len(ranks)
            if n == 0:
                continue
            if n == 1:
                total += 0 if "A" in ranks else 1
            elif n == 2:
                total += 2 - ("A" in ranks) - ("K" in ranks)
            else:
                total += 3 - ("A" in ranks) - ("K" in ranks) - ("Q" in ranks)
        return total
    raise AssertionError(name)


FUNCTIONS = ["hcp", "controls", "losers", "top2", "top3", "top4", "top5", "c13", "aces", "kings", "queens",
             "jacks", "tens"]


@settings(max_examples=60, deadline=None)
@given(deals(), st.sampled_from(FUNCTIONS), st.integers(0, 3), st.one_of(st.none(), st.integers(0, 3)))
def test_each_hand_function_counts_as_a_plain_count_of_the_hand(batch: np.ndarray, name: str, seat: int,
                                                                   suit: int | None) -> None:
    call = f"{name}({SEATS[seat]})" if suit is None else f"{name}({SEATS[seat]}, {SUITS[suit]})"
    script = parse_script(f"action average {call}")
    values = Compiled(script).values(script.actions[0].exprs[0], batch)
    assert list(values) == [plain(name, deal, seat, suit) for deal in batch]


@settings(max_examples=60, deadline=None)
@given(deals(), st.integers(0, 3), st.integers(0, 3), st.integers(0, 51))
def test_lengths_and_hascard_count_as_a_plain_count(batch: np.ndarray, seat: int, suit: int, card: int) -> None:
    name = f"{RANKS[card % 13]}{'SHDC'[card // 13]}"
    script = parse_script(f"action average {SUITS[suit]}({SEATS[seat]}), average hascard({SEATS[seat]}, {name})")
    compiled = Compiled(script)
    lengths = compiled.values(script.actions[0].exprs[0], batch)
    held = compiled.values(script.actions[1].exprs[0], batch)
    assert list(lengths) == [sum(1 for s, _ in hand(deal, seat) if s == suit) for deal in batch]
    assert list(held) == [int(deal[card] == seat) for deal in batch]


def matches(pattern: str, lengths: tuple[int, ...]) -> bool:
    """A shape pattern (`any` first for any order) against suit lengths, by trying each order of the pattern."""
    from itertools import permutations
    words = pattern.split()
    orders = permutations(words[-1]) if words[0] == "any" else [tuple(words[-1])]
    return any(all(p == "x" or int(p) == n for p, n in zip(order, lengths, strict=True)) for order in orders)


@settings(max_examples=60, deadline=None)
@given(deals(), st.integers(0, 3), st.lists(st.tuples(st.sampled_from(["+", "-"]), st.booleans(),
                                                         st.sampled_from(["4333", "5xxx", "x5xx", "4432", "55xx",
                                                                          "0xxx", "xx6x", "5431", "xxx7"])),
                                               min_size=1, max_size=4))
def test_shape_is_the_shapes_added_less_those_taken_away(batch: np.ndarray, seat: int,
                                                         items: list[tuple[str, bool, str]]) -> None:
    items[0] = ("+", *items[0][1:])
    text = " ".join(f"{sign} {'any ' if any_ else ''}{pattern}" for sign, any_, pattern in items)
    script = parse_script(f"action average shape({SEATS[seat]}, {text})")
    values = Compiled(script).values(script.actions[0].exprs[0], batch)
    for deal, value in zip(batch, values, strict=True):
        lengths = tuple(sum(1 for s, _ in hand(deal, seat) if s == suit) for suit in range(4))
        expected = False
        for sign, any_, pattern in items:
            if matches(("any " if any_ else "") + pattern, lengths):
                expected = sign == "+"
        assert value == int(expected), (text, lengths)
