"""Timed actions of the simulation, run in time order on a clock that the caller passes in.

Nothing here reads a clock. `Schedule.run_due(now)` runs every action due at or before `now`, each
with the time it was due (not `now`), so a simulation gives the same results however often, or late,
it is polled. Actions scheduled at the same time run in the order they were scheduled.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass, field

Action = Callable[[float], None]
"""Something that happens at a time; it is called with the time it was due."""


@dataclass(order=True)
class _Scheduled:
    when: float
    order: int
    tag: str = field(compare=False)
    action: Action = field(compare=False)
    cancelled: bool = field(default=False, compare=False)


class Schedule:
    """A queue of timed actions; each has a tag so a group can be cancelled (e.g. on a power loss)."""

    def __init__(self) -> None:
        self._heap: list[_Scheduled] = []
        self._order = 0

    def at(self, when: float, action: Action, tag: str = "") -> None:
        """Run `action(when)` once the clock reaches `when`."""
        self._order += 1
        heapq.heappush(self._heap, _Scheduled(when, self._order, tag, action))

    def cancel(self, tag: str) -> None:
        """Forget every pending action with this tag."""
        for entry in self._heap:
            if entry.tag == tag:
                entry.cancelled = True

    def pending(self, tag: str) -> bool:
        """True if an action with this tag is waiting."""
        return any(e.tag == tag and not e.cancelled for e in self._heap)

    def next_time(self) -> float | None:
        """When the next action is due, or None."""
        self._drop_cancelled()
        return self._heap[0].when if self._heap else None

    def run_due(self, now: float) -> int:
        """Run every action due at or before `now`, in time order; returns how many ran."""
        ran = 0
        while True:
            self._drop_cancelled()
            if not self._heap or self._heap[0].when > now:
                return ran
            entry = heapq.heappop(self._heap)
            entry.action(entry.when)
            ran += 1

    def _drop_cancelled(self) -> None:
        while self._heap and self._heap[0].cancelled:
            heapq.heappop(self._heap)
