"""Goodness of fit: is what was counted what a perfect shuffle gives? One test per quantity, right at any size.

Bins pooled to be expected ``MIN_EXPECTED`` times, Pearson's X², and its law: by Monte Carlo below
``LARGE_SAMPLE`` deals, else chi-square (Rao-Scott where a deal has several units); wild deals by the
exact binomial test. The rule and why: docs/decisions/2026-12-01-goodness-of-fit-tests.md.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from dealer.language import N_, _, said_from
from dealer.stats import special
from dealer.stats.analysis import Counts, count_sets
from dealer.stats.exact import FIGURE_KEYS, Quantity, quantity

MIN_EXPECTED: Final = 5.0
LARGE_SAMPLE: Final = 1000
MONTE_CARLO_SETS: Final = 999
ORDERED: Final = frozenset({"hcp", "suit_lengths", "longest_in_hand", "shortest_in_hand", "longest_in_deal",
                            "longest_fit"})
TOO_FEW: Final = N_("too few deals to test")
WILD_LAW: Final = N_("exact two-sided binomial test of {wild} wild deals in {deals}")
CHI_SQUARE_LAW: Final = N_("chi-square with {bins} degrees of freedom")
RAO_SCOTT_LAW: Final = N_("X²/{scale} against chi-square with {df} degrees of freedom (Rao-Scott, {per_deal} {unit}s "
                          "a deal)")
MONTE_CARLO_LAW: Final = N_("X² against {sets} sets of {deals} uniformly random deals")
LAWS: Final = (TOO_FEW, WILD_LAW, CHI_SQUARE_LAW, RAO_SCOTT_LAW, MONTE_CARLO_LAW)
"""The laws a p-value comes from, in English as the JSON keeps them; said with `dealer.language.said_from`."""
"""The law of a figure left untested (English in the JSON; said with `_` on the screen)."""

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class FitTest:
    """The goodness-of-fit test of one quantity: its bins, what was seen and expected in them, the result."""

    method: str
    """``chi-square``, ``chi-square (Rao-Scott)``, ``Monte Carlo``, ``exact binomial`` or ``none``."""
    p_value: float
    statistic: float | None
    bins: tuple[str, ...]
    observed: tuple[int, ...]
    expected: tuple[float, ...]
    law: str
    """The law the p-value comes from, in words."""

    @property
    def tested(self) -> bool:
        return self.method != "none"


def pooled_bins(shares: FloatArray, units: int) -> list[list[int]]:
    """Groups of consecutive categories, each expected at least MIN_EXPECTED times in `units` units."""
    bins: list[list[int]] = []
    run: list[int] = []
    expected = 0.0
    for category, share in enumerate(shares):
        run.append(category)
        expected += share * units
        if expected >= MIN_EXPECTED:
            bins.append(run)
            run, expected = [], 0.0
    if run:
        if bins:
            bins[-1].extend(run)
        else:
            bins.append(run)
    return bins


def bin_label(q: Quantity, group: Sequence[int]) -> str:
    """A bin's name: its category, a range of ordered ones, or how many rarer patterns it pools."""
    if len(group) == 1:
        return q.labels[group[0]]
    if q.key in ORDERED:
        return f"{q.labels[group[0]]}–{q.labels[group[-1]]}"
    if q.key == "patterns":
        return RARER_PATTERNS.format(count=len(group), unit=q.unit)
    return " / ".join(q.labels[i] for i in group)


RARER_PATTERNS: Final = N_("{count} rarer {unit} patterns")
"""A bin pooling the rarer hand patterns (English, as the JSON keeps it: said by `label_said`)."""


def label_said(label: str) -> str:
    """A category's or a bin's label (English, as the JSON keeps it: 'void', 'void–singleton', '37 rarer hand
    patterns', '4-3-3-3') in the language spoken."""
    pooled = said_from(label, (RARER_PATTERNS,))
    if pooled != label:
        return pooled
    for joint in ("–", " / "):
        if joint in label:
            return joint.join(label_said(part) for part in label.split(joint))
    return _(label) if label else label


def _grouping(bins: list[list[int]], size: int) -> FloatArray:
    """The (categories x bins) 0/1 matrix that sums categories into bins."""
    matrix = np.zeros((size, len(bins)))
    for column, group in enumerate(bins):
        matrix[group, column] = 1.0
    return matrix


def pearson(observed: npt.NDArray[np.int64] | FloatArray, expected: FloatArray) -> FloatArray:
    """Pearson's X² of counts (..., bins) against expected counts (bins,)."""
    result: FloatArray = (((observed - expected) ** 2) / expected).sum(axis=-1)
    return result


def rao_scott_weights(q: Quantity, grouping: FloatArray) -> FloatArray:
    """The λ_j of X²'s large-sample law ``Σ λ_j χ²_1`` over the bins of `grouping`."""
    shares = grouping.T @ q.shares
    covariance = grouping.T @ q.covariance @ grouping
    scale = 1 / np.sqrt(q.per_deal * shares)
    weights: FloatArray = np.linalg.eigvalsh(scale[:, None] * covariance * scale[None, :]).astype(np.float64)
    return weights


@dataclass(frozen=True)
class _Bins:
    quantity: Quantity
    groups: list[list[int]]
    grouping: FloatArray
    expected: FloatArray

    def observed(self, counts: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        binned: npt.NDArray[np.int64] = (counts @ self.grouping).round().astype(np.int64)
        return binned


def _bins(q: Quantity, deals: int) -> _Bins:
    units = deals * q.per_deal
    groups = pooled_bins(q.shares, units)
    grouping = _grouping(groups, len(q.labels))
    return _Bins(q, groups, grouping, units * (grouping.T @ q.shares))


def _result(b: _Bins, counts: npt.NDArray[np.int64], method: str, p: float, statistic: float | None,
            law: str) -> FitTest:
    observed = b.observed(counts)
    return FitTest(method, min(1.0, max(0.0, p)), statistic, tuple(bin_label(b.quantity, g) for g in b.groups),
                   tuple(int(o) for o in observed), tuple(float(e) for e in b.expected), law)


def wild_test(counts: npt.NDArray[np.int64], deals: int) -> FitTest:
    """The exact binomial test of the number of wild deals."""
    q = quantity("wild")
    p = special.binomial_two_sided(int(counts[0]), deals, float(q.probabilities[0])) if deals else 1.0
    b = _Bins(q, [[0], [1]], _grouping([[0], [1]], 2), deals * q.shares)
    return _result(b, counts, N_("exact binomial"), p, None,
                   WILD_LAW.format(wild=int(counts[0]), deals=deals))


def large_sample_test(key: str, counts: npt.NDArray[np.int64], deals: int) -> FitTest:
    """The chi-square test of one quantity, with the Rao-Scott correction where a deal has several units."""
    if key == "wild":
        return wild_test(counts, deals)
    b = _bins(quantity(key), deals)
    if len(b.groups) < 2:
        return _result(b, counts, "none", 1.0, None, TOO_FEW)
    statistic = float(pearson(b.observed(counts), b.expected))
    if b.quantity.per_deal == 1:
        bins = len(b.groups) - 1
        return _result(b, counts, N_("chi-square"), special.chi_square_sf(statistic, bins), statistic,
                       CHI_SQUARE_LAW.format(bins=bins))
    p, scale, df = special.weighted_chi_square_sf(statistic, rao_scott_weights(b.quantity, b.grouping))
    return _result(b, counts, N_("chi-square (Rao-Scott)"), p, statistic,
                   RAO_SCOTT_LAW.format(scale=f"{scale:.3f}", df=f"{df:.1f}", per_deal=b.quantity.per_deal,
                                        unit=b.quantity.unit))


def uniform_deals(count: int, rng: np.random.Generator) -> npt.NDArray[np.uint8]:
    """`count` uniformly random deals from `rng` (a random permutation of 13 of each seat per deal)."""
    base = np.repeat(np.arange(4, dtype=np.uint8), 13)
    deals: npt.NDArray[np.uint8] = rng.permuted(np.tile(base, (count, 1)), axis=1)
    return deals


def monte_carlo_seed(counts: Counts, deals: int) -> int:
    """The seed of a sample's Monte Carlo sets: a hash of its counts, so the report is reproducible."""
    digest = hashlib.sha256(str(deals).encode())
    for key in FIGURE_KEYS:
        digest.update(key.encode() + counts[key].astype("<i8").tobytes())
    return int.from_bytes(digest.digest()[:8], "little")


@dataclass(frozen=True)
class SampleTests:
    """Every quantity's test on one sample, and the chance of a result at least this uneven anywhere."""

    tests: dict[str, FitTest]
    overall: float
    overall_method: str
    smallest: str | None
    """The quantity with the smallest p-value (None if nothing could be tested)."""


def check_sample(counts: Counts, deals: int, *, sets: int = MONTE_CARLO_SETS) -> SampleTests:
    """Test every quantity of a sample of `deals` deals: by the large-sample laws from LARGE_SAMPLE deals,
    else by Monte Carlo with `sets` sets of random deals (and then the combined verdict by Monte Carlo)."""
    if deals >= LARGE_SAMPLE:
        tests = {key: large_sample_test(key, counts[key], deals) for key in FIGURE_KEYS}
        return _bonferroni(tests)
    return _monte_carlo(counts, deals, sets)


def _bonferroni(tests: dict[str, FitTest]) -> SampleTests:
    tested = {k: t for k, t in tests.items() if t.tested}
    if not tested:
        return SampleTests(tests, 1.0, "none", None)
    smallest = min(tested, key=lambda k: tested[k].p_value)
    overall = min(1.0, len(tested) * tested[smallest].p_value)
    return SampleTests(tests, overall, f"Bonferroni over {len(tested)} tests (an upper bound)", smallest)


def _monte_carlo(counts: Counts, deals: int, sets: int) -> SampleTests:
    rng = np.random.default_rng(monte_carlo_seed(counts, deals))
    simulated = count_sets(uniform_deals(sets * deals, rng), sets) if deals else {}
    tests: dict[str, FitTest] = {}
    p_by_set: list[FloatArray] = []   # per tested quantity: p-value of the observed set and of each random set
    for key in FIGURE_KEYS:
        if key == "wild":
            tests[key] = wild_test(counts[key], deals)
            if deals:
                table = special.binomial_two_sided_all(deals, float(quantity("wild").probabilities[0]))
                p_by_set.append(table[np.concatenate([[counts[key][0]], simulated[key][:, 0]])])
            continue
        b = _bins(quantity(key), deals)
        if len(b.groups) < 2:
            tests[key] = _result(b, counts[key], "none", 1.0, None, TOO_FEW)
            continue
        statistics = pearson(b.observed(np.vstack([counts[key], simulated[key]])), b.expected)
        # p-value of every set by its rank among all sets (ties at the observed value count as extreme)
        order = np.sort(statistics)
        at_least = len(statistics) - np.searchsorted(order, statistics * (1 - 1e-12), side="left")
        p_values = at_least / len(statistics)
        p_by_set.append(p_values)
        tests[key] = _result(b, counts[key], N_("Monte Carlo"), float(p_values[0]), float(statistics[0]),
                             MONTE_CARLO_LAW.format(sets=sets, deals=deals))
    tested = {k: t for k, t in tests.items() if t.tested}
    if not p_by_set:
        return SampleTests(tests, 1.0, "none", None)
    smallest_by_set = np.min(np.vstack(p_by_set), axis=0)
    overall = float((smallest_by_set <= smallest_by_set[0] * (1 + 1e-12)).mean())
    smallest = min(tested, key=lambda k: tested[k].p_value)
    return SampleTests(tests, overall, f"Monte Carlo over the smallest p-value of {len(tested)} tests in "
                                       f"{sets} random sets", smallest)
