"""One sample of deals analysed: every quantity counted, set beside its exact probability, tested, and the
verdict said in one plain sentence. Holds counts only: never a deal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np

from dealer.core.cards import DealArray, check_deals
from dealer.language import _, decimal, n_
from dealer.stats.analysis import count_deals
from dealer.stats.exact import FIGURE_KEYS, Quantity, quantity
from dealer.stats.goodness import MONTE_CARLO_SETS, FitTest, check_sample

UNEVEN: Final = 0.05
"""Below this chance a sample is called uneven."""
NOT_RANDOM: Final = 0.001
"""At or below this chance a sample is called not what a perfect shuffle gives (the least chance the Monte
Carlo test can give, 1 in 1000 sets, included)."""
DIRECTOR_ALARM: Final = NOT_RANDOM
"""The chance (every figure's test taken together) at or below which a run report speaks of its deals:
about one honest session in 1000 (docs/decisions/2026-12-01-statistics-false-alarms.md)."""


@dataclass(frozen=True)
class Figure:
    """One quantity over a sample: what was counted, what a perfect shuffle gives, and the test."""

    quantity: Quantity
    counts: tuple[int, ...]
    test: FitTest

    @property
    def units(self) -> int:
        return sum(self.counts)

    @property
    def observed_shares(self) -> tuple[float, ...]:
        return tuple(c / self.units if self.units else 0.0 for c in self.counts)

    @property
    def expected_counts(self) -> tuple[float, ...]:
        return tuple(float(p) * self.units for p in self.quantity.probabilities)


@dataclass(frozen=True)
class SampleStats:
    """The statistics of one sample of deals (a session, an event, a model's deals)."""

    name: str
    deals: int
    figures: tuple[Figure, ...]
    chance: float
    """The chance that deals from a perfect shuffle look at least this uneven somewhere."""
    chance_method: str
    bound: bool
    """True if `chance` is an upper bound (Bonferroni) rather than the chance itself (Monte Carlo)."""
    smallest: str | None
    sentence: str

    def figure(self, key: str) -> Figure:
        return next(f for f in self.figures if f.quantity.key == key)

    @property
    def wild_share(self) -> float:
        return self.figure("wild").observed_shares[0]

    @property
    def wild_expected(self) -> float:
        return float(quantity("wild").probabilities[0])


def analyse(deals: DealArray, name: str, *, sets: int = MONTE_CARLO_SETS) -> SampleStats:
    """Count, compare and test `deals` ((n, 52) seats); `name` says what they are (no deal is kept)."""
    batch = check_deals(np.asarray(deals).reshape(-1, 52))
    n = len(batch)
    counts = count_deals(batch)
    result = check_sample(counts, n, sets=sets)
    figures = tuple(Figure(quantity(key), tuple(int(c) for c in counts[key]), result.tests[key])
                    for key in FIGURE_KEYS)
    bound = result.overall_method.startswith("Bonferroni")
    wild = figures[FIGURE_KEYS.index("wild")]
    title = quantity(result.smallest).title if result.smallest else ""
    text = verdict(n, result.overall, bound=bound, most=title, wild_share=wild.observed_shares[0],
                   wild_expected=float(quantity("wild").probabilities[0]))
    return SampleStats(name, n, figures, result.overall, result.overall_method, bound, result.smallest, text)


def director_sentence(stats: SampleStats) -> str:
    """The run report's sentence on its deals, which speaks only at a level that should worry a director:
    the chance that a perfect shuffle looks at least this uneven in any of the figures (the family of tests
    taken together) at or below `DIRECTOR_ALARM`; then the figures Holm's step-down over that family names at
    that level (the most uneven, if none does alone). Otherwise it says the deals are a perfect shuffle's."""
    n = stats.deals
    if n == 0:
        return _("There are no deals to judge.")
    if stats.chance > DIRECTOR_ALARM:
        if n == 1:
            return _("This one deal is what a perfect shuffle would give: nothing in them calls for a second look.")
        return n_("These {count} deals are what a perfect shuffle would give: nothing in them calls for a second "
                  "look.",
                  "These {count} deals are what a perfect shuffle would give: nothing in them calls for a second "
                  "look.", n).format(count=n)  # English: one form (the one deal has its own sentence)
    named = holm(stats, DIRECTOR_ALARM) or ([quantity(stats.smallest).title] if stats.smallest else [])
    shown = ", ".join(_(title).lower() for title in named)
    chance = chance_text(stats.chance, bound=stats.bound)
    if n == 1:
        first = _("This one deal is not what a perfect shuffle gives ({named}): a result this uneven happens by "
                  "chance {chance} of the time.")
    else:
        first = n_("These {count} deals are not what a perfect shuffle gives ({named}): a result this uneven "
                   "happens by chance {chance} of the time.",
                   "These {count} deals are not what a perfect shuffle gives ({named}): a result this uneven "
                   "happens by chance {chance} of the time.", n)  # English: one form
    wild = stats.figure("wild")
    wild_text = _("{count} wild deals where a perfect shuffle gives {expected}").format(
        count=wild.counts[0], expected=decimal(stats.wild_expected * n, 1))
    return " ".join([first.format(count=n, named=shown, chance=chance),
                     _shape_sentence(n, stats.wild_share < stats.wild_expected, wild_text),
                     _("Ask who shuffled or dealt them, and how.")])


def _shape_sentence(deals: int, flatter: bool, wild: str) -> str:
    """'They are flatter than random: WILD.' (or 'It is', or 'wilder')."""
    shape = _("flatter") if flatter else _("wilder")
    said = _("It is {shape} than random: {wild}.") if deals == 1 else _("They are {shape} than random: {wild}.")
    return said.format(shape=shape, wild=wild)


def holm(stats: SampleStats, level: float) -> list[str]:
    """The titles of the figures whose tests Holm's step-down rejects at family-wise `level`: the p-values
    in increasing order, the k-th (from 0) compared with level / (m - k), stopping at the first kept."""
    tested = sorted((f.test.p_value, f.quantity.title) for f in stats.figures if f.test.tested)
    named = []
    for k, (p, title) in enumerate(tested):
        if p > level / (len(tested) - k):
            break
        named.append(title)
    return named


def chance_text(p: float, *, bound: bool = False) -> str:
    """A chance in words for the verdict: '41 %', '2.3 %', '0.15 %', '0.1 % or less'."""
    if p <= NOT_RANDOM:
        return _("0.1 % or less")
    if p >= 0.1:
        text = f"{p * 100:.0f} %"
    elif p >= 0.01:
        text = f"{p * 100:.1f} %"
    else:
        text = f"{p * 100:.2f} %"
    return _("at most {chance}").format(chance=text) if bound and p < 1 else text


def verdict(deals: int, chance: float, *, bound: bool, most: str, wild_share: float, wild_expected: float) -> str:
    """The plain sentence of a sample's verdict (`most`: the English title of the most uneven figure)."""
    if deals == 0:
        return _("There are no deals to judge.")
    one = deals == 1
    how_often = chance_text(chance, bound=bound)
    if bound and chance >= 1:  # a bound capped at 1 says nothing of how often: no "100 % of the time"
        if one:
            return _("This one deal is as random as a perfect shuffle would give: a result at least this uneven is "
                     "common by chance (the bound on its chance, taken over every figure, reaches 100 % and says no "
                     "more).")
        return n_("These {count} deals are as random as a perfect shuffle would give: a result at least this uneven "
                  "is common by chance (the bound on its chance, taken over every figure, reaches 100 % and says no "
                  "more).",
                  "These {count} deals are as random as a perfect shuffle would give: a result at least this uneven "
                  "is common by chance (the bound on its chance, taken over every figure, reaches 100 % and says no "
                  "more).", deals).format(count=deals)  # English: one form (the one deal has its own sentence)
    if chance >= UNEVEN:
        said = (_("This one deal is as random as a perfect shuffle would give: a result at least this uneven happens "
                  "by chance {chance} of the time.") if one
                else n_("These {count} deals are as random as a perfect shuffle would give: a result at least this "
                        "uneven happens by chance {chance} of the time.",
                        "These {count} deals are as random as a perfect shuffle would give: a result at least this "
                        "uneven happens by chance {chance} of the time.", deals))  # English: one form
        return said.format(count=deals, chance=how_often)
    wild = _("{share} % wild deals where a perfect shuffle gives {expected} %").format(
        share=decimal(wild_share * 100, 1), expected=decimal(wild_expected * 100, 1))
    most_in = _(most).lower() if most else ""  # (`_` of '' is the catalogue's header)
    if chance > NOT_RANDOM:
        said = (_("This one deal is a little uneven for a perfect shuffle, most in {most}: a result at least this "
                  "uneven happens by chance only {chance} of the time (about one set in {sets}), worth a second look "
                  "but no proof of a biased shuffle ({wild}).") if one
                else n_("These {count} deals are a little uneven for a perfect shuffle, most in {most}: a result at "
                        "least this uneven happens by chance only {chance} of the time (about one set in {sets}), "
                        "worth a second look but no proof of a biased shuffle ({wild}).",
                        "These {count} deals are a little uneven for a perfect shuffle, most in {most}: a result at "
                        "least this uneven happens by chance only {chance} of the time (about one set in {sets}), "
                        "worth a second look but no proof of a biased shuffle ({wild}).", deals))  # English: one form
        return said.format(count=deals, most=most_in, chance=how_often, sets=round(1 / chance), wild=wild)
    said = (_("This one deal is not what a perfect shuffle gives, most in {most}: a result this uneven happens by "
              "chance {chance} of the time.") if one
            else n_("These {count} deals are not what a perfect shuffle gives, most in {most}: a result this uneven "
                    "happens by chance {chance} of the time.",
                    "These {count} deals are not what a perfect shuffle gives, most in {most}: a result this uneven "
                    "happens by chance {chance} of the time.", deals))  # English: one form
    return " ".join([said.format(count=deals, most=most_in, chance=how_often),
                     _shape_sentence(deals, wild_share < wild_expected, wild)])
