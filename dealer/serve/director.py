"""The director's unlock and the deal of a board found by its label: the one way a card reaches a browser.

The director's PIN is made when the server starts and printed once, in its terminal. A browser that
gives it gets a director's cookie (for `UNLOCK_SECONDS`). Wrong PINs are limited over a sliding minute:
`PER_CLIENT` from one client (its address), `OVERALL` from all together; a client over a limit waits
until its oldest wrong try is a minute old (its PIN is not even compared meanwhile), so a guesser gains
little and never closes the unlock for good, and a director on another client is not held by one
guesser. Each wrong PIN, and a client made to wait, is told to the console's terminal.

With the cookie, a board's label (scanned or typed: ``A:7:SN:X``, or ``A 7``) shows that board's deal,
from runs the journal holds as finished only (a session still dealing is never shown), read again from
the run's deal file and proven by the deal's hash in the journal (`dealer.journal.dealt`), to restore a
board (Laws 13 and 14) or judge a fouled board (Law 87).
"""

from __future__ import annotations

import hmac
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from dealer.core.dealset import DealSet
from dealer.journal.dealt import Lookup, dealt_deals
from dealer.journal.store import Journal, Run
from firmware_protocol.labels import BoardLabel

COOKIE: Final = "dealer_director"
UNLOCK_SECONDS: Final = 2 * 3600
WINDOW_SECONDS: Final = 60.0
PER_CLIENT: Final = 5
"""Wrong PINs one client may give in a minute."""
OVERALL: Final = 30
"""Wrong PINs all clients together may give in a minute."""
TYPED: Final = re.compile(r"^\s*([A-Za-z0-9]{1,8})[\s:/-]+(\d{1,3})\s*$")


def new_pin() -> str:
    """Eight digits from the OS's random source."""
    return f"{secrets.randbelow(10 ** 8):08d}"


@dataclass(frozen=True)
class Attempt:
    """What a PIN given got: a director's key (right PIN), or none, and the seconds to wait before the next
    try is looked at (0: it may try again now)."""

    key: str | None
    wait: float = 0.0


class DirectorLock:
    """The PIN, the wrong tries of the last minute by client, and the browsers unlocked with it; `tell`
    writes a line to the console's terminal."""

    def __init__(self, pin: str, clock: Callable[[], float] = time.monotonic,
                 tell: Callable[[str], None] = lambda line: None) -> None:
        self._pin = pin
        self._clock = clock
        self._tell = tell
        self._lock = threading.Lock()
        self._keys: dict[str, float] = {}
        self._wrong: dict[str, deque[float]] = {}
        self._all: deque[float] = deque()
        self.wrong = 0
        """Wrong PINs since the console started."""

    def unlock(self, pin: str, client: str = "") -> Attempt:
        """A director's key for a right PIN; none for a wrong one, or without a look at the PIN while
        `client` (or every client together) has given too many wrong ones in the last minute."""
        with self._lock:
            now = self._clock()
            wait = self._wait(client, now)
            if wait > 0:
                return Attempt(None, wait)
            if hmac.compare_digest(pin.strip().encode(), self._pin.encode()):
                key = secrets.token_urlsafe(32)
                self._keys[key] = now + UNLOCK_SECONDS
                return Attempt(key)
            self.wrong += 1
            tries = self._wrong.setdefault(client, deque())
            tries.append(now)
            self._all.append(now)
            self._tell(f"dealer serve: a wrong director's PIN from {client or 'a client'} ({len(tries)} in the "
                       f"last minute, {len(self._all)} from all clients)")
            wait = self._wait(client, now)
            if wait > 0:
                self._tell(f"dealer serve: the director's PIN is being guessed: {client or 'a client'} waits "
                           f"{wait:.0f} s before its next try")
            return Attempt(None, wait)

    def _wait(self, client: str, now: float) -> float:
        """Seconds `client` must wait before a try is looked at (the tries older than a minute forgotten)."""
        for tries in (*self._wrong.values(), self._all):
            while tries and tries[0] <= now - WINDOW_SECONDS:
                tries.popleft()
        for gone in [c for c, tries in self._wrong.items() if not tries]:
            del self._wrong[gone]
        waits = [0.0]
        mine = self._wrong.get(client)
        if mine is not None and len(mine) >= PER_CLIENT:
            waits.append(mine[-PER_CLIENT] + WINDOW_SECONDS - now)
        if len(self._all) >= OVERALL:
            waits.append(self._all[-OVERALL] + WINDOW_SECONDS - now)
        return max(waits)

    def waiting(self, client: str = "") -> float:
        """Seconds `client` must wait before its next try is looked at."""
        with self._lock:
            return self._wait(client, self._clock())

    def unlocked(self, key: str | None) -> bool:
        if not key:
            return False
        with self._lock:
            until = self._keys.get(key)
            return until is not None and until > self._clock()

    def lock(self, key: str | None) -> None:
        with self._lock:
            self._keys.pop(key or "", None)


def parse_label(text: str) -> tuple[str, int]:
    """The board set and number a scanned label or a typed 'A 7' names; `ValueError` naming what is wrong."""
    typed = TYPED.match(text)
    if typed:
        return typed.group(1).upper(), int(typed.group(2))
    label = BoardLabel.parse(text.strip().upper())
    return label.set_name, label.board


@dataclass(frozen=True)
class FoundBoard:
    """A board of a finished run: where it is from, and its deal (one board's `DealSet`)."""

    journal: Path
    run: Run
    set_name: str
    board: int
    deals: DealSet


def find_board(journals: Sequence[Path], set_name: str, board: int,
               lookup: Lookup | None = None) -> tuple[list[FoundBoard], list[str]]:
    """Every finished run that dealt `board` into `set_name`, with its deal; and why others were left out."""
    found: list[FoundBoard] = []
    notes: list[str] = []
    for path in journals:
        with Journal.open_read_only(path) as journal:
            runs = {r.id: r for r in journal.runs()}
            holding = {job.run_id for rid in runs for job in journal.jobs(rid)
                       if (job.set_name or "A") == set_name and job.board == board}
            if not holding:
                continue
            unfinished = [runs[r].name for r in holding if not runs[r].finished]
            notes += [f"{name}: still dealing or not finished; its deals stay locked" for name in unfinished]
            for rd in dealt_deals(journal, lookup):
                if rd.run.id not in holding or not rd.run.finished:
                    continue
                if rd.deals is None:
                    notes.append(f"{rd.run.name}: {rd.reason}")
                    continue
                found.append(FoundBoard(path, rd.run, set_name, board, rd.deals.select([board])))
    return found, notes
