"""Independent expectations for the statistics tests: what a set of deals holds, counted straight from PBN
text or a deal array in plain Python, the exact shares of the per-hand figures by direct counting, and
the bars of a rendered chart read back from its pixels."""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

SEATS = "NESW"
POINTS = {"A": 4, "K": 3, "Q": 2, "J": 1}
DEAL_TAG = re.compile(r'^\[Deal "([NESW]):([^"]*)"\]', re.MULTILINE)

Hand = tuple[str, str, str, str]
"""A hand as the four PBN suit texts, spades first."""


def pbn_hands(text: str) -> list[list[Hand]]:
    """Every deal of a PBN text as its four hands N E S W, read with a regular expression."""
    deals = []
    for first, rest in DEAL_TAG.findall(text):
        hands = rest.split()
        start = SEATS.index(first)
        by_seat: dict[int, Hand] = {}
        for k, hand in enumerate(hands):
            suits = hand.split(".")
            by_seat[(start + k) % 4] = (suits[0], suits[1], suits[2], suits[3])
        deals.append([by_seat[s] for s in range(4)])
    return deals


def array_hands(deals: np.ndarray) -> list[list[Hand]]:
    """The same from an (n, 52) deal array (card = suit * 13 + rank, ranks A K Q J T 9 .. 2)."""
    ranks = "AKQJT98765432"
    out = []
    for deal in deals:
        out.append([tuple("".join(ranks[r] for r in range(13) if deal[s * 13 + r] == seat) for s in range(4))
                    for seat in range(4)])
    return out  # type: ignore[return-value]


def lengths(hand: Hand) -> tuple[int, ...]:
    return tuple(len(s) for s in hand)


def is_wild(hand: Hand) -> bool:
    shape = sorted(lengths(hand), reverse=True)
    return shape[0] >= 7 or shape[:2] == [6, 5] or shape[3] == 0


def plain_counts(deals: list[list[Hand]]) -> dict[str, Counter[str]]:
    """Per figure, how often each category label occurs, counted hand by hand in plain Python."""
    out: dict[str, Counter[str]] = {k: Counter() for k in ("patterns", "hcp", "suit_lengths", "longest_in_hand",
                                                            "shortest_in_hand", "longest_in_deal", "longest_fit",
                                                            "wild")}
    short = {0: "void", 1: "singleton", 2: "doubleton", 3: "three (4-3-3-3)"}
    for hands in deals:
        for hand in hands:
            shape = sorted(lengths(hand), reverse=True)
            out["patterns"]["-".join(map(str, shape))] += 1
            out["hcp"][str(sum(POINTS.get(c, 0) for c in "".join(hand)))] += 1
            for n in lengths(hand):
                out["suit_lengths"][str(n)] += 1
            out["longest_in_hand"][str(shape[0])] += 1
            out["shortest_in_hand"][short[shape[3]]] += 1
        out["longest_in_deal"][str(max(max(lengths(h)) for h in hands))] += 1
        for a, b in ((0, 2), (1, 3)):
            out["longest_fit"][str(max(x + y for x, y in zip(lengths(hands[a]), lengths(hands[b]), strict=True)))] += 1
        out["wild"]["wild" if any(is_wild(h) for h in hands) else "not wild"] += 1
    return out


def plain_shares() -> dict[str, dict[str, Fraction]]:
    """Exact shares of the figures that follow from one hand or one partnership, by direct counting."""
    hands = math.comb(52, 13)
    patterns: Counter[str] = Counter()
    longest: Counter[str] = Counter()
    shortest: Counter[str] = Counter()
    short = {0: "void", 1: "singleton", 2: "doubleton", 3: "three (4-3-3-3)"}
    for a in itertools.product(range(14), repeat=4):
        if sum(a) == 13:
            ways = math.prod(math.comb(13, x) for x in a)
            shape = sorted(a, reverse=True)
            patterns["-".join(map(str, shape))] += ways
            longest[str(shape[0])] += ways
            shortest[short[shape[3]]] += ways
    hcp: Counter[str] = Counter()
    for held in itertools.product(range(5), repeat=4):     # aces, kings, queens, jacks
        if sum(held) <= 13:
            points = 4 * held[0] + 3 * held[1] + 2 * held[2] + held[3]
            hcp[str(points)] += math.prod(math.comb(4, x) for x in held) * math.comb(36, 13 - sum(held))
    fits: Counter[str] = Counter()
    for f in itertools.product(range(14), repeat=4):
        if sum(f) == 26:
            fits[str(max(f))] += math.prod(math.comb(13, x) for x in f)
    suits = {str(k): Fraction(math.comb(13, k) * math.comb(39, 13 - k), hands) for k in range(14)}
    return {
        "patterns": {k: Fraction(v, hands) for k, v in patterns.items()},
        "hcp": {k: Fraction(v, hands) for k, v in hcp.items()},
        "suit_lengths": suits,
        "longest_in_hand": {k: Fraction(v, hands) for k, v in longest.items()},
        "shortest_in_hand": {k: Fraction(v, hands) for k, v in shortest.items()},
        "longest_fit": {k: Fraction(v, math.comb(52, 26)) for k, v in fits.items()},
    }


def grouped(values: dict[str, Any], labels: list[str]) -> list[float]:
    """Values summed into a chart's bars, whose labels are categories, 'N+' (N and above) or 'other' (the
    categories no other bar names)."""
    named = set(labels)
    out = []
    for label in labels:
        if label == "other":
            out.append(float(sum(v for k, v in values.items() if k not in named)))
        elif label.endswith("+"):
            low = int(label[:-1])
            out.append(float(sum(v for k, v in values.items() if k.isdigit() and int(k) >= low)))
        else:
            out.append(float(values.get(label, 0)))
    return out


# --- bars read back from a rendered chart ----------------------------------------------------------------

BLUE = (0x1F, 0x5F, 0xBF)
GREY = (0x8C, 0x8C, 0x8C)


@dataclass(frozen=True)
class Bar:
    color: str
    left: int
    right: int
    top: int
    bottom: int

    @property
    def height(self) -> int:
        return self.bottom - self.top + 1

    @property
    def centre(self) -> float:
        return (self.left + self.right) / 2


def bars_in(image: Any, tolerance: int = 8, min_width: int = 5, min_height: int = 2) -> list[Bar]:
    """Solid blue and grey rectangles of an RGB image: columns of the colour with the same top and bottom
    side by side, at least `min_width` columns wide and `min_height` rows high (the anti-aliased edges of
    text, a row high or a few columns wide, are not bars)."""
    pixels = np.asarray(image.convert("RGB")).astype(int)
    found = []
    for name, rgb in (("blue", BLUE), ("grey", GREY)):
        mask = np.abs(pixels - np.array(rgb)).max(axis=2) <= tolerance
        open_runs: dict[tuple[int, int], int] = {}          # (top, bottom) -> first column
        for column in range(mask.shape[1] + 1):
            runs = set()
            if column < mask.shape[1]:
                rows = np.flatnonzero(mask[:, column])
                if rows.size:
                    cuts = np.flatnonzero(np.diff(rows) > 1)
                    runs = {(int(part[0]), int(part[-1])) for part in np.split(rows, cuts + 1)}
            for run in list(open_runs):
                if run not in runs:
                    left = open_runs.pop(run)
                    if column - left >= min_width and run[1] - run[0] + 1 >= min_height:
                        found.append(Bar(name, left, column - 1, run[0], run[1]))
            for run in runs:
                open_runs.setdefault(run, column)
    return sorted(found, key=lambda b: b.left)


def chart_bars(bars: list[Bar], baseline: int, tolerance: int = 3) -> list[Bar]:
    """The bars standing on one baseline (the legend's squares and other charts' bars left out)."""
    return sorted((b for b in bars if abs(b.bottom - baseline) <= tolerance), key=lambda b: b.left)


def baselines(bars: list[Bar], tolerance: int = 3) -> list[int]:
    """The baselines of the charts in an image: rows on which at least three bars end, top to bottom."""
    bottoms = Counter(b.bottom for b in bars)
    lines: list[int] = []
    for row, _ in sorted(bottoms.items()):
        if sum(n for r, n in bottoms.items() if abs(r - row) <= tolerance) >= 3 and \
                all(abs(row - line) > tolerance for line in lines):
            lines.append(row)
    return lines


def check_heights(bars: list[Bar], grey: list[float], blue: list[float], min_px: float = 3.0) -> None:
    """Assert the bars of one chart are the grey (exact) and blue (counted) shares of its categories, in
    order, on one linear scale from the baseline: the heights in pixels are the shares times one scale
    (fitted by least squares, with an offset of at most 2 px for the anti-aliased ends and the axis line
    drawn over the bars' feet), each to within 1.5 px; a bar's slot is found from the grey bars' spacing;
    every share tall enough to see has its bar, and a share of 0 has none."""
    greys = [b for b in bars if b.color == "grey"]
    assert len(greys) >= 2, "a chart with fewer than two grey bars"
    values = {"grey": grey, "blue": blue}
    # slot pitch: the first two grey bars belong to the first two categories (every category has a grey bar,
    # and the first two are tall enough to be seen in every chart of the report)
    pitch = greys[1].centre - greys[0].centre
    index = {id(b): round((b.centre - greys[0].centre - (pitch * 0.35 if b.color == "blue" else 0)) / pitch)
             for b in bars}
    shares = np.array([values[b.color][index[id(b)]] for b in bars])
    heights = np.array([b.height for b in bars], dtype=float)
    scale, offset = np.linalg.lstsq(np.stack([shares, np.ones_like(shares)], axis=1), heights, rcond=None)[0]
    assert abs(offset) <= 2.0, f"bars do not start from zero: offset {offset:.1f} px"
    seen = set()
    for b, share, height in zip(bars, shares, heights, strict=True):
        i = index[id(b)]
        expected = share * scale + offset
        assert abs(height - expected) <= 1.5, f"{b.color} bar {i}: {height:.0f} px, expected {expected:.1f}"
        seen.add((b.color, i))
    for color, values_ in values.items():
        for i, share in enumerate(values_):
            if share * scale >= min_px:
                assert (color, i) in seen, f"{color} bar {i} ({share:.4f}) is missing"
            if share == 0:
                assert (color, i) not in seen
