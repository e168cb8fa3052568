"""The deals a journal's runs dealt, found again: for statistics over a session, an event or a year.

The journal holds no deal, only each run's source and every deal's hash: a run's deal file (or, for a
congress's sessions, a `lookup` the caller gives) is read again and each board proven by its hash.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dealer import formats
from dealer.core.dealset import DealSet
from dealer.core.errors import DealerError
from dealer.journal.store import Journal, Run
from dealer.language import _

Lookup = Callable[[Run], DealSet | None]


@dataclass(frozen=True)
class RunDeals:
    """A run of the journal and the deals it dealt (each board once), or why they cannot be had."""

    run: Run
    deals: DealSet | None
    reason: str = ""


def dealt_deals(journal: Journal, lookup: Lookup | None = None) -> list[RunDeals]:
    """Every run of the journal, oldest first, with its deals found again and proven by their hashes. A run
    of ``dealer deal FILE`` names its deal file (its full path); runs whose source is not a file (the
    sessions of a congress plan) are found by `lookup` (the plan's deal sets, proven the same way). A file
    changed since is never mistaken for what was dealt. Replay runs deal deals an earlier run dealt: they
    are left out, so no deal is counted twice. Every run left out says why."""
    return [_found(journal, run, lookup) for run in journal.runs()]


def _found(journal: Journal, run: Run, lookup: Lookup | None) -> RunDeals:
    if run.replay:
        return RunDeals(run, None, _("a replay: its deals are those of an earlier run"))
    hashes = journal.deal_hashes(run.id)
    source = Path(run.source)
    try:
        if source.is_file():
            held = formats.read_file(source)
        elif lookup is not None and (looked := lookup(run)) is not None:
            held = looked
        else:
            return RunDeals(run, None, _("its deals are not at hand (source: {source})").format(source=run.source))
        deals = held.select(sorted(hashes))
    except KeyError as exc:
        return RunDeals(run, None, _("its source no longer holds board {board}").format(board=exc.args[0]))
    except DealerError as exc:
        return RunDeals(run, None, _("its source cannot be read: {error}").format(error=exc))
    for board, digest in zip(deals.boards, deals.deal_hashes(), strict=True):
        if digest != hashes[int(board)]:
            return RunDeals(run, None, _("its source has changed since: board {board} is not the deal dealt").format(
                board=int(board)))
    return RunDeals(run, deals)
