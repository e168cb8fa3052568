"""Deal statistics: are these deals what a perfect shuffle gives? Counts of a batch (`analysis`) beside
exact probabilities (`exact`), tested (`goodness`, `special`), with a verdict in words (`summary`,
`report`), and a model of hand shuffling (`shuffling`). Pure; never shows a deal.

May import: `dealer.core`, `dealer.language` (the words a director reads), numpy.
"""

from __future__ import annotations

from dealer.stats.summary import Figure, SampleStats, analyse

__all__ = ["Figure", "SampleStats", "analyse"]
