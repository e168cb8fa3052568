"""The console's door: connections bounded in all (`connection_bound`, below the open-files limit less
`FD_RESERVE` kept for the run) and per address; past a bound a new connection takes the place of the oldest
one still waiting for its request (`SPARED` aside), else it is refused (503). A request's headers must come
within `HEADERS_SECONDS`, its body within `BODY_SECONDS`; an idle connection goes after `KEEP_ALIVE_SECONDS`.
Each kind of refusal is told at most once every `TELL_SECONDS` (docs/decisions/2026-12-07-a-crowd-at-the-door.md).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import Any, Final

from dealer.language import N_, _, speaking

MAX_CONNECTIONS: Final = 1000
"""Connections held at once at most, whatever the open-files limit."""
MIN_CONNECTIONS: Final = 32
"""Connections held at once at least, however low the open-files limit (the run's reserve is then smaller)."""
FD_RESERVE: Final = 384
"""Open files kept for the run under the process's limit: journals, ports, the deal history, a burst of
connections accepted before they are counted (`ACCEPT_BATCH`)."""
PER_ADDRESS_PERCENT: Final = 50
"""Of the connections bound, the share one client address may hold."""
ACCEPT_BATCH: Final = 32
"""Connections accepted at one wake-up of the event loop."""
SPARED: Final = 64
"""A connection waiting for its request is spared until this many have come after it: time for its request
to be read (the event loop accepts `ACCEPT_BATCH` at a time), whatever a crowd does meanwhile."""
HEADERS_SECONDS: Final = 10.0
BODY_SECONDS: Final = 120.0
KEEP_ALIVE_SECONDS: Final = 5.0
TELL_SECONDS: Final = 60.0
"""Each kind of refusal is told on the console's terminal at most once in this time, with its count."""

REFUSED: Final = N_("dealer serve: connections refused in the last {seconds:.0f} s, {bound} held already, none "
                    "of them waiting long for a request: {count} (most from {address})")
REFUSED_ADDRESS: Final = N_("dealer serve: connections refused in the last {seconds:.0f} s, their address holding "
                            "{bound} already, none of them waiting long for a request: {count} (most from {address})")
MADE_ROOM: Final = N_("dealer serve: connections closed in the last {seconds:.0f} s while waiting for a request, to "
                      "make room for new ones past the bound of {bound}: {count} (most from {address})")
HEADERS_LATE: Final = N_("dealer serve: connections closed in the last {seconds:.0f} s, a request's headers not come "
                         "within {bound:.0f} s: {count} (most from {address})")
BODY_LATE: Final = N_("dealer serve: connections closed in the last {seconds:.0f} s, a request's body not come within "
                      "{bound:.0f} s: {count} (most from {address})")
BUSY: Final = N_("503: the console holds as many connections as it may; try again in a moment")


def connection_bound(open_files: int | None) -> int:
    """The connections the console holds at once under an open-files limit (None: unlimited)."""
    if open_files is None:
        return MAX_CONNECTIONS
    return max(MIN_CONNECTIONS, min(MAX_CONNECTIONS, open_files - FD_RESERVE))


class Tally:
    """Refusals counted by kind, each kind told at most once every `TELL_SECONDS` (the first at once)."""

    def __init__(self, tell: Callable[[str], None], clock: Callable[[], float] = time.monotonic) -> None:
        self._tell = tell
        self._clock = clock
        self._counts: dict[str, Counter[str]] = {}
        self._told: dict[str, float] = {}
        self._bound: dict[str, float] = {}
        self._due: set[str] = set()
        self.totals: Counter[str] = Counter()
        """Every refusal since the start, by kind."""

    def count(self, kind: str, address: str, bound: float) -> None:
        self.totals[kind] += 1
        addresses = self._counts.setdefault(kind, Counter())
        if address in addresses or len(addresses) < 256:  # (the most frequent are kept, not every one)
            addresses[address] += 1
        else:
            addresses[""] += 1
        self._bound[kind] = bound
        now = self._clock()
        told = self._told.get(kind)
        if told is None or now - told >= TELL_SECONDS:
            self.say(kind)
        elif kind not in self._due:
            self._due.add(kind)
            try:
                asyncio.get_running_loop().call_later(told + TELL_SECONDS - now, self.say, kind)
            except RuntimeError:  # no loop: told with the next one
                self._due.discard(kind)

    def say(self, kind: str) -> None:
        """Tell the count of `kind` since it was last told (nothing if none)."""
        self._due.discard(kind)
        addresses = self._counts.pop(kind, Counter())
        if not addresses:
            return
        now = self._clock()
        seconds = now - self._told.get(kind, now) if kind in self._told else 0.0
        self._told[kind] = now
        most = max((a for a in addresses if a), key=lambda a: addresses[a], default=_("many addresses"))
        with speaking(None):  # the console's terminal: its language
            self._tell(_(kind).format(seconds=max(seconds, 1.0), bound=self._bound[kind],
                                      count=sum(addresses.values()), address=most))


class Door:
    """The connections held, by address, and those waiting for a request (the first to go), in the event loop's
    thread alone."""

    def __init__(self, total: int, tally: Tally) -> None:
        self.total = total
        self.per_address = max(1, total * PER_ADDRESS_PERCENT // 100)
        self.tally = tally
        self.held = 0
        self.peak = 0
        self._by_address: Counter[str] = Counter()
        self._waiting: dict[Any, int] = {}  # by the number it came in, oldest first
        self._waiting_by: dict[str, dict[Any, int]] = {}
        self._came = 0

    def admit(self, conn: Any, address: str) -> bool:
        """Count a new connection in, closing the oldest one waiting for a request where a bound is reached;
        False (counted out) when every one it might replace is busy with a request."""
        if self._by_address[address] >= self.per_address:
            victim = self._oldest(self._waiting_by.get(address, {}))
            kind, bound = REFUSED_ADDRESS, self.per_address
        elif self.held >= self.total:
            victim = self._oldest(self._waiting)
            kind, bound = REFUSED, self.total
        else:
            victim, kind, bound = None, "", 0
        if kind:
            if victim is None:
                self.tally.count(kind, address, bound)
                return False
            victim.drop(MADE_ROOM, bound)
        self._came += 1
        self.held += 1
        self.peak = max(self.peak, self.held)
        self._by_address[address] += 1
        return True

    def _oldest(self, waiting: dict[Any, int]) -> Any:
        """The connection that has waited longest for its request, if `SPARED` have come after it."""
        for conn, came in waiting.items():
            return conn if self._came - came >= SPARED else None
        return None

    def waiting(self, conn: Any, address: str, yes: bool) -> None:
        """Mark `conn` waiting for a request (it may go first), or busy with one."""
        mine = self._waiting_by.setdefault(address, {})
        if yes:
            self._waiting[conn] = mine[conn] = self._came
        else:
            self._waiting.pop(conn, None)
            mine.pop(conn, None)
            if not mine:
                del self._waiting_by[address]

    def leave(self, conn: Any, address: str) -> None:
        self.waiting(conn, address, False)
        self.held -= 1
        self._by_address[address] -= 1
        if self._by_address[address] <= 0:
            del self._by_address[address]


def protocol_class(door: Door) -> type:
    """uvicorn's HTTP/1.1 protocol (h11), its connections counted through `door` and timed."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class Guarded(H11Protocol):
        _counted = False
        _phase = ""
        _timer: asyncio.TimerHandle | None = None
        _address = ""

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._address = self.client[0] if self.client else ""
            if not door.admit(self, self._address):
                with speaking(None):
                    body = (_(BUSY) + "\n").encode()
                transport.write(b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
                                b"Retry-After: 5\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s"
                                % (len(body), body))
                transport.close()
                return
            self._counted = True
            self._watch()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._watch()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._watch()

        def connection_lost(self, exc: Exception | None) -> None:
            self._out()
            super().connection_lost(exc)

        def _out(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._counted:
                self._counted = False
                door.leave(self, self._address)

        def drop(self, kind: str, bound: float) -> None:
            """Close this connection, counted as `kind`."""
            if not self._counted:
                return
            self._out()
            door.tally.count(kind, self._address, bound)
            self.transport.close()

        def _watch(self) -> None:
            """Time the request as it arrives: its headers, then its body; none once it has come."""
            if not self._counted or self.transport.is_closing():
                return
            state = self.conn.their_state
            phase = "headers" if state is h11.IDLE else "body" if state is h11.SEND_BODY else "served"
            if phase == self._phase:
                return
            self._phase = phase
            door.waiting(self, self._address, phase == "headers")
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if phase == "headers":
                self._timer = self.loop.call_later(HEADERS_SECONDS, self.drop, HEADERS_LATE, HEADERS_SECONDS)
            elif phase == "body":
                self._timer = self.loop.call_later(BODY_SECONDS, self.drop, BODY_LATE, BODY_SECONDS)

    return Guarded


class QuietLog(logging.Filter):
    """A logger's records, each kind (its message's template) let through at most once every `TELL_SECONDS`
    (the web server's own warnings, a loop's errors: a crowd of clients never floods the terminal)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self._clock = clock
        self._last: dict[str, float] = {}
        self._held: Counter[str] = Counter()

    def filter(self, record: logging.LogRecord) -> bool:
        key = str(record.msg)[:200]
        now = self._clock()
        last = self._last.get(key)
        if last is not None and now - last < TELL_SECONDS:
            self._held[key] += 1
            return False
        if len(self._last) > 1000:
            self._last.clear()
        self._last[key] = now
        held = self._held.pop(key, 0)
        if held:
            with speaking(None):
                record.msg = _("{message} (and {count} more like it in the last {seconds:.0f} s)").format(
                    message=record.msg, count=held, seconds=now - (last or now))
        return True
