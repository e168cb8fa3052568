"""The statistics report as data: JSON, a text summary, and the notes on method every form carries; never a
deal. The pictures (HTML, PDF) are `dealer.printing.stats_layout`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

from dealer.stats.exact import quantities
from dealer.stats.goodness import LARGE_SAMPLE, MIN_EXPECTED, MONTE_CARLO_SETS
from dealer.stats.summary import Figure, SampleStats

TEST_RULE: Final = (
    f"Each figure is tested with Pearson's X² over its categories pooled so that each is expected at least "
    f"{MIN_EXPECTED:g} times. From {LARGE_SAMPLE} deals the p-value comes from the chi-square law, corrected "
    f"(Rao-Scott) where a deal gives several hands, suits or partnerships, which are not independent; with "
    f"fewer deals from {MONTE_CARLO_SETS} sets of as many perfectly random deals (Monte Carlo). Wild deals take "
    f"the exact binomial test. The overall chance is, under {LARGE_SAMPLE} deals, that of the most uneven "
    f"figure among the Monte Carlo sets; from {LARGE_SAMPLE} deals the smallest p-value times the number of "
    f"figures (an upper bound).")
MODEL_RULE: Final = (
    "The hand-shuffling model: the four hands of the deal before, each sorted by suit (spades, hearts, diamonds, "
    "clubs; ace to two), are stacked North on top, then East, South, West; the pack gets k riffle shuffles "
    "(Gilbert-Shannon-Reeds: a binomial cut, every interleaving equally likely) and is dealt one card at a time "
    "from the top, to North, East, South and West in turn.")


def method_notes(samples: Sequence[SampleStats], model: bool = False) -> list[str]:
    """The paragraphs on method: how each probability is counted, the test rule, the model if used."""
    notes = [f"{q.title}: {q.computed}." for q in quantities()]
    notes.append(TEST_RULE)
    if model:
        notes.append(MODEL_RULE)
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
    return f"{p:.3g}" if p >= 1e-300 else "< 1e-300"


def figure_line(figure: Figure, *, law: bool = True) -> str:
    """One line per figure: what it counts and its test (with the law its p-value comes from, if `law`)."""
    q, test = figure.quantity, figure.test
    if not test.tested:
        return f"{q.title} ({figure.units} {q.unit}s): {test.law}"
    how = f"{test.method}; {test.law}" if law else test.method
    return f"{q.title} ({figure.units} {q.unit}s): p = {p_text(test.p_value)} ({how})"


def wild_line(sample: SampleStats) -> str:
    wild = sample.figure("wild").counts[0]
    return (f"wild deals: {wild} of {sample.deals} ({sample.wild_share * 100:.1f} %; a perfect shuffle gives "
            f"{sample.wild_expected * 100:.1f} %)")


def summary_text(samples: Sequence[SampleStats], notes: Sequence[str] = ()) -> str:
    """The report for the screen: per sample the verdict, the wild deals and one line per figure."""
    lines: list[str] = []
    for sample in samples:
        lines.append(f"{sample.name}: {sample.deals} deal{'' if sample.deals == 1 else 's'}")
        lines.append(f"  {sample.sentence}")
        lines.append(f"  {wild_line(sample)}")
        lines.extend(f"  {figure_line(f, law=False)}" for f in sample.figures)
    lines.extend(f"note: {note}" for note in notes)
    return "\n".join(lines) + "\n"
