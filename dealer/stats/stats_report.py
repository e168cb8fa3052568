"""The statistics report as data: JSON, a text summary, and the notes on method every form carries; never a
deal. The pictures (HTML, PDF) are `dealer.printing.stats_layout`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

from dealer.language import N_, _, decimal, decimal_sign, n_, said_from
from dealer.stats.exact import quantities
from dealer.stats.goodness import LARGE_SAMPLE, LAWS, MIN_EXPECTED, MONTE_CARLO_SETS
from dealer.stats.summary import Figure, SampleStats

TEST_RULE: Final = N_(
    "Each figure is tested with Pearson's X² over its categories pooled so that each is expected at least "
    "{min_expected:g} times. From {large} deals the p-value comes from the chi-square law, corrected "
    "(Rao-Scott) where a deal gives several hands, suits or partnerships, which are not independent; with "
    "fewer deals from {sets} sets of as many perfectly random deals (Monte Carlo). Wild deals take "
    "the exact binomial test. The overall chance is, under {large} deals, that of the most uneven "
    "figure among the Monte Carlo sets; from {large} deals the smallest p-value times the number of "
    "figures (an upper bound).")
"""How every figure is tested (said with `_`, then formatted by `said_test_rule`)."""
MODEL_RULE: Final = N_(
    "The hand-shuffling model: the four hands of the deal before, each sorted by suit (spades, hearts, diamonds, "
    "clubs; ace to two), are stacked North on top, then East, South, West; the pack gets k riffle shuffles "
    "(Gilbert-Shannon-Reeds: a binomial cut, every interleaving equally likely) and is dealt one card at a time "
    "from the top, to North, East, South and West in turn.")
"""The hand-shuffling model, in a paragraph (said with `_`)."""


def said_test_rule() -> str:
    """`TEST_RULE` in the language spoken, with its numbers."""
    return _(TEST_RULE).format(min_expected=MIN_EXPECTED, large=LARGE_SAMPLE, sets=MONTE_CARLO_SETS)


def method_notes(samples: Sequence[SampleStats], model: bool = False) -> list[str]:
    """The paragraphs on method: how each probability is counted, the test rule, the model if used."""
    notes = [_("{title}: {computed}.").format(title=_(q.title), computed=_(q.computed)) for q in quantities()]
    notes.append(said_test_rule())
    if model:
        notes.append(_(MODEL_RULE))
    return notes


def figure_dict(figure: Figure) -> dict[str, Any]:
    q, test = figure.quantity, figure.test
    return {
        "key": q.key, "title": q.title, "unit": q.unit, "units_per_deal": q.per_deal, "units": figure.units,
        "categories": [
            {"label": label, "observed": count, "observed_share": share, "probability": float(p),
             "probability_exact": f"{p.numerator}/{p.denominator}", "expected": expected}
            for label, count, share, p, expected in zip(q.labels, figure.counts, figure.observed_shares,
                                                       q.probabilities, figure.expected_counts, strict=True)],
        "test": {"method": test.method, "p_value": test.p_value, "statistic": test.statistic, "law": test.law,
                 "bins": [{"label": label, "observed": o, "expected": e}
                          for label, o, e in zip(test.bins, test.observed, test.expected, strict=True)]},
    }


def sample_dict(sample: SampleStats) -> dict[str, Any]:
    return {
        "name": sample.name, "deals": sample.deals, "verdict": sample.sentence, "chance": sample.chance,
        "chance_method": sample.chance_method, "chance_is_upper_bound": sample.bound,
        "most_uneven": sample.smallest, "wild_share": sample.wild_share, "wild_expected": sample.wild_expected,
        "figures": [figure_dict(f) for f in sample.figures],
    }


def to_dict(samples: Sequence[SampleStats], notes: Sequence[str] = (), *, model: bool = False) -> dict[str, Any]:
    return {"samples": [sample_dict(s) for s in samples], "notes": list(notes),
            "method": method_notes(samples, model)}


def to_json(samples: Sequence[SampleStats], notes: Sequence[str] = (), *, model: bool = False) -> str:
    return json.dumps(to_dict(samples, notes, model=model), indent=2, ensure_ascii=False) + "\n"


def p_text(p: float) -> str:
    """A p-value for a table: three significant figures, or '< 1e-300'."""
    return f"{p:.3g}".replace(".", decimal_sign()) if p >= 1e-300 else "< 1e-300"


def figure_line(figure: Figure, *, law: bool = True) -> str:
    """One line per figure: what it counts and its test (with the law its p-value comes from, if `law`)."""
    q, test = figure.quantity, figure.test
    counted = f"{_(q.title)} ({units_text(q.unit, figure.units)})"
    if not test.tested:
        return f"{counted}: {said_from(test.law, LAWS)}"
    how = f"{_(test.method)}; {said_from(test.law, LAWS)}" if law else _(test.method)  # (English: the JSON's)
    return f"{counted}: p = {p_text(test.p_value)} ({how})"


def units_text(unit: str, count: int) -> str:
    """How many units of a figure were counted: '96 hands', '1 deal'."""
    if unit == "hand":
        return n_("{count} hand", "{count} hands", count).format(count=count)
    if unit == "suit holding":
        return n_("{count} suit holding", "{count} suit holdings", count).format(count=count)
    if unit == "partnership":
        return n_("{count} partnership", "{count} partnerships", count).format(count=count)
    if unit == "deal":
        return n_("{count} deal", "{count} deals", count).format(count=count)
    return f"{count} {unit}s"


def wild_line(sample: SampleStats) -> str:
    wild = sample.figure("wild").counts[0]
    return _("wild deals: {wild} of {deals} ({share} %; a perfect shuffle gives {expected} %)").format(
        wild=wild, deals=sample.deals, share=decimal(sample.wild_share * 100, 1),
        expected=decimal(sample.wild_expected * 100, 1))


def summary_text(samples: Sequence[SampleStats], notes: Sequence[str] = ()) -> str:
    """The report for the screen: per sample the verdict, the wild deals and one line per figure."""
    lines: list[str] = []
    for sample in samples:
        lines.append(n_("{name}: {count} deal", "{name}: {count} deals", sample.deals).format(
            name=sample.name, count=sample.deals))
        lines.append(f"  {sample.sentence}")
        lines.append(f"  {wild_line(sample)}")
        lines.extend(f"  {figure_line(f, law=False)}" for f in sample.figures)
    lines.extend(_("note: {note}").format(note=note) for note in notes)
    return "\n".join(lines) + "\n"
