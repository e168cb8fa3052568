"""How the journal hands what it recorded to its listeners: after the write, in commit order, on a thread of
each listener's own.

A `Delivery` is one listener's queue and thread. The writer puts a committed event in each queue (a quick
append, under the journal's lock, so the queues keep the order of the commits) and goes on: a slow listener
delays only itself, and a listener that raises is reported once (`failed`) and never reaches the writer.
Whatever else a listener must see in the same order as the events (the run's prompts, the job a machine
takes up) is posted to its queue too (`post`).
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections import deque
from collections.abc import Callable
from typing import Final

from dealer.language import _

STOP_WITHIN: Final = 30.0
"""Seconds a listener is given, when the listening stops, to take what is queued; then it is left behind."""
MAX_WAITING: Final = 200_000
"""Items one listener may have waiting; a listener that falls further behind is cut off, and told once."""

Failed = Callable[[BaseException], None]


def tell_on_stderr(exc: BaseException) -> None:
    """The default report of a listener that failed: one line on standard error."""
    sys.stderr.write(_("a view of the run failed and is left behind ({kind}: {error}); the run and its journal go "
                       "on").format(kind=type(exc).__name__, error=exc) + "\n")


class Delivery:
    """One listener's queue and the thread that empties it, item by item, in the order the items were put."""

    def __init__(self, failed: Failed | None = None, *, on_stop: Callable[[], None] | None = None,
                 name: str = "journal-listener") -> None:
        self._failed = failed or tell_on_stderr
        self._on_stop = on_stop
        self._items: deque[Callable[[], object]] = deque()
        self._ready = threading.Condition()
        self._busy = False
        self._stopping = False
        self.failures = 0
        """How many items raised (the first was reported)."""
        self.cut_off = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def post(self, item: Callable[[], object]) -> None:
        """Queue `item`, called on the delivery's thread after everything queued before it (any thread)."""
        with self._ready:
            if self._stopping or self.cut_off:
                return
            if len(self._items) >= MAX_WAITING:
                self.cut_off = True
                self._items.clear()
                self._report(RuntimeError(_("it fell {count} events behind the run").format(count=MAX_WAITING)))
                return
            self._items.append(item)
            self._ready.notify_all()

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until every item queued so far was handed over; False if `timeout` passed first."""
        with self._ready:
            return self._ready.wait_for(lambda: not self._items and not self._busy, timeout)

    def stop(self, timeout: float | None = STOP_WITHIN) -> None:
        """Hand over what is queued, then end the thread (nothing queued later is handed over); a listener still
        busy after `timeout` seconds is left behind (its thread ends when it is done)."""
        if self._on_stop is not None:
            self._on_stop()
        with self._ready:
            self._stopping = True
            self._ready.notify_all()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            with self._ready:
                self._ready.wait_for(lambda: self._items or self._stopping)
                if not self._items:
                    self._ready.notify_all()
                    return
                item = self._items.popleft()
                self._busy = True
            try:
                item()
            except Exception as exc:  # contained: the writer never sees it
                self.failures += 1
                if self.failures == 1:
                    self._report(exc)
            finally:
                with self._ready:
                    self._busy = False
                    self._ready.notify_all()

    def _report(self, exc: BaseException) -> None:
        with contextlib.suppress(Exception):  # a report that fails too is not the writer's business either
            self._failed(exc)
