"""Deal statistics: are these deals what a perfect shuffle gives? Pure; imports only ``dealer.core`` and numpy.

For any batch of deals (a session, an event, a year of sessions): hand patterns, high-card points, suit
lengths, the longest suit of a hand and of the deal, voids and singletons, the longest fit of each
partnership and the share of wild deals, each beside its exact probability and tested for fit, with
the verdict in one plain sentence. And a model of hand shuffling to set beside them.

* ``exact``: the exact probabilities (counted, not sampled) and the covariance of one deal's counts.
* ``analysis``: the counts of an (n, 52) batch, vectorised.
* ``special``: chi-square and binomial tails (standard library and numpy only).
* ``goodness``: the goodness-of-fit tests and the rule that picks them.
* ``summary``: one sample analysed and its verdict in words.
* ``shuffling``: deals made by k riffle shuffles of the gathered pack (Gilbert-Shannon-Reeds).
* ``report``: the report as JSON and as text (the HTML and PDF pictures are in ``dealer.printing``).
"""

from __future__ import annotations

from dealer.stats.summary import Figure, SampleStats, analyse

__all__ = ["Figure", "SampleStats", "analyse"]
