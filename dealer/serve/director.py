"""The director's unlock and the deal of a board found by its label: the one way a card reaches a browser.

The director's PIN is made when the server starts and printed once, in its terminal. A browser that
gives it gets a director's cookie (for `UNLOCK_SECONDS`); after `MAX_TRIES` wrong PINs the unlock is
closed until the server is started again. With the cookie, a board's label (scanned or typed:
``A:7:SN:X``, or ``A 7``) shows that board's deal, from runs the journal holds as finished only (a
session still dealing is never shown), read again from the run's deal file and proven by the deal's
hash in the journal (`dealer.journal.dealt`), to restore a board (Laws 13 and 14) or judge a fouled
board (Law 87).
"""

from __future__ import annotations

import hmac
import re
import secrets
import threading
import time
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
MAX_TRIES: Final = 10
TYPED: Final = re.compile(r"^\s*([A-Za-z0-9]{1,8})[\s:/-]+(\d{1,3})\s*$")


def new_pin() -> str:
    """Eight digits from the OS's random source."""
    return f"{secrets.randbelow(10 ** 8):08d}"


class DirectorLock:
    """The PIN and the browsers unlocked with it."""

    def __init__(self, pin: str, clock: Callable[[], float] = time.monotonic) -> None:
        self._pin = pin
        self._clock = clock
        self._lock = threading.Lock()
        self._keys: dict[str, float] = {}
        self.wrong = 0

    def unlock(self, pin: str) -> str | None:
        """A director's key for a right PIN; None for a wrong one (or once the tries are used up)."""
        with self._lock:
            if self.wrong >= MAX_TRIES:
                return None
            if not hmac.compare_digest(pin.strip().encode(), self._pin.encode()):
                self.wrong += 1
                return None
            key = secrets.token_urlsafe(32)
            self._keys[key] = self._clock() + UNLOCK_SECONDS
            return key

    def closed(self) -> bool:
        with self._lock:
            return self.wrong >= MAX_TRIES

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
