"""The director's unlock and the deal of a board found by its label: the one way a card reaches a browser.

The director's PIN (`PIN_DIGITS` digits) is made when the server starts and printed once, in its terminal.
A browser that gives it gets a director's cookie (for `UNLOCK_SECONDS`). The PIN's length, not a lockout,
stops guessing: at the most the limits let through (`OVERALL` wrong PINs a minute) the expected time to
guess it is `guessing_years` (over nine years), so the limits sit high enough that a room's typing mistakes
and a few guessers never reach them. Wrong PINs are limited over a sliding minute: `PER_CLIENT` from one
client (the browser session the director's page gave it, or its address when it keeps no cookie), `OVERALL`
from all together; a client over a limit waits until its oldest wrong try is a minute old (its PIN is not
even compared meanwhile), and a director in another browser is not held by one guesser (a session the
console did not give counts as its address). Beyond every limit the console's terminal gives a one-time
link on request (Enter pressed there) that lets the director in whatever the guessers do, and the page says
so. Each wrong PIN, and a client made to wait, is told to the console's terminal.

With the cookie, a board's label (scanned or typed: ``A:7:SN:X``, or ``A 7``) shows the deal in that
board now and older ones below, from finished runs only, read again and proven by their hashes
(`dealer.journal.dealt`), to restore a board (Laws 13 and 14) or judge a fouled board (Law 87).
"""

from __future__ import annotations

import hmac
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from html import escape
from pathlib import Path
from typing import Final

from dealer import formats
from dealer.core.dealset import DealSet
from dealer.core.errors import DealerError
from dealer.journal.database_url import DatabaseURL
from dealer.journal.dealt import Lookup, dealt_deals
from dealer.journal.opening import read_journal
from dealer.journal.store import JobState, Journal, Run
from dealer.language import _, said_from, speaking
from dealer.plan import Plan
from dealer.plan.model import SOURCE_WORDS, SessionSource
from dealer.printing.handview import board_views
from dealer.printing.records_html import board_html
from dealer.serve import given
from firmware_protocol.labels import BoardLabel

COOKIE: Final = "dealer_director"
UNLOCK_SECONDS: Final = 2 * 3600
ONCE_SECONDS: Final = 10 * 60
"""How long a one-time director's link printed on the console's terminal stays good (`DirectorLock.one_time`)."""
WINDOW_SECONDS: Final = 60.0
PIN_DIGITS: Final = 10
PER_CLIENT: Final = 10
"""Wrong PINs one client (a browser session, or an address keeping no cookie) may give in a minute."""
OVERALL: Final = 1000
"""Wrong PINs all clients together may give in a minute."""
MINUTES_A_YEAR: Final = 365.25 * 24 * 60
INTO_THE_BOARD: Final = frozenset({JobState.DEALING, JobState.DEALT, JobState.VERIFIED, JobState.FAULTED})
"""The states of a board's copy from which its cards may be in the board."""
TYPED: Final = re.compile(r"^\s*([A-Za-z0-9]{1,8})[\s:/-]+(\d{1,3})\s*$")


SESSION_COOKIE: Final = "dealer_session"
"""The cookie the director's page gives a browser that has none, followed by the console's port: wrong PINs
are counted by it (`PER_CLIENT`), so another client, on the same address, does not hold the director."""
SESSIONS_KEPT: Final = 1000
"""Browser sessions the console remembers giving (the oldest forgotten first): a session it did not give, or
forgot, counts as its client's address."""


def new_pin() -> str:
    """`PIN_DIGITS` digits from the OS's random source."""
    return f"{secrets.randbelow(10 ** PIN_DIGITS):0{PIN_DIGITS}d}"


def guessing_years() -> float:
    """The expected time to guess the PIN, in years, at the most wrong PINs the limits let through: half the
    PINs, `OVERALL` a minute (sessions without number, each under `PER_CLIENT`, reach no more)."""
    return 10 ** PIN_DIGITS / 2 / OVERALL / MINUTES_A_YEAR


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
        self._once: dict[str, float] = {}
        self._sessions: dict[str, None] = {}  # given, oldest first
        self.wrong = 0
        """Wrong PINs since the console started."""

    def new_session(self) -> str:
        """A browser session given to a browser by the director's page (the newest of `SESSIONS_KEPT`)."""
        with self._lock:
            session = secrets.token_hex(6)
            self._sessions[session] = None
            while len(self._sessions) > SESSIONS_KEPT:
                del self._sessions[next(iter(self._sessions))]
            return session

    def session(self, cookie: str | None) -> str | None:
        """The browser session a cookie names if this console gave it; None otherwise (a client that makes
        sessions up is counted by its address)."""
        with self._lock:
            return cookie if cookie is not None and cookie in self._sessions else None

    def unlock(self, pin: str, client: str = "") -> Attempt:
        """A director's key for a right PIN; none for a wrong one, or without a look at the PIN while
        `client` (or every client together) has given too many wrong ones in the last minute."""
        with self._lock:
            now = self._clock()
            wait = self._wait(client, now)
            if wait > 0:
                return Attempt(None, wait)
            if hmac.compare_digest("".join(pin.split()).encode(), self._pin.encode()):  # (typed in groups too)
                key = secrets.token_urlsafe(32)
                self._keys[key] = now + UNLOCK_SECONDS
                return Attempt(key)
            self.wrong += 1
            tries = self._wrong.setdefault(client, deque())
            tries.append(now)
            self._all.append(now)
            with speaking(None):  # the console's terminal: its language, not the request's
                self._tell(_("dealer serve: a wrong director's PIN from {client} ({mine} in the last minute, {all} "
                             "from all clients)").format(client=client or _("a client"), mine=len(tries),
                                                         all=len(self._all)))
            wait = self._wait(client, now)
            if wait > 0:
                with speaking(None):
                    if len(self._all) >= OVERALL:
                        self._tell(_("dealer serve: the director's PIN is being guessed: every client waits "
                                     "{seconds:.0f} s before its next try; press Enter here for a one-time link that "
                                     "lets the director in").format(seconds=wait))
                    else:
                        self._tell(_("dealer serve: the director's PIN is being guessed: {client} waits "
                                     "{seconds:.0f} s before its next try").format(client=client or _("a client"),
                                                                                   seconds=wait))
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

    def one_time(self) -> str:
        """A key for a link the console's terminal prints on request: it unlocks one browser once, within
        `ONCE_SECONDS`, whatever wrong PINs anyone has sent (the director is never locked out by a client)."""
        with self._lock:
            key = secrets.token_urlsafe(32)
            self._once[key] = self._clock() + ONCE_SECONDS
            return key

    def use_once(self, key: str) -> Attempt:
        """A director's key for a one-time key not used nor expired (it is used now); none otherwise."""
        with self._lock:
            until = self._once.pop(key, None)
            now = self._clock()
            if until is None or until <= now:
                return Attempt(None)
            unlocked = secrets.token_urlsafe(32)
            self._keys[unlocked] = now + UNLOCK_SECONDS
            return Attempt(unlocked)


def parse_label(text: str) -> tuple[str, int]:
    """The board set and number a scanned label or a typed 'A 7' names; `ValueError` naming what is wrong."""
    typed = TYPED.match(text)
    if typed:
        return typed.group(1).upper(), int(typed.group(2))
    label = BoardLabel.parse(text.strip().upper())
    return label.set_name, label.board


@dataclass(frozen=True)
class BoardDealing:
    """One run's dealing into a board: the run, when it last dealt into the board (the journal's UTC time),
    and the deal (one board's `DealSet`), or why it is not shown (`deals` None)."""

    journal: Path | DatabaseURL
    run: Run
    set_name: str
    board: int
    at: str
    deal_hash: str
    deals: DealSet | None
    why: str = ""

    @property
    def when(self) -> str:
        """`at` as a director reads it, in the console's local time: '2026-12-01 17:04 CET'."""
        try:
            local = datetime.fromisoformat(self.at).astimezone()
        except ValueError:
            return self.at
        return f"{local:%Y-%m-%d %H:%M} {local.tzname() or ''}".strip()


def find_board(journals: Sequence[Path | DatabaseURL], set_name: str, board: int,
               workdir: Path | None = None) -> list[BoardDealing]:
    """Every run that dealt into `board` of `set_name`, newest first (the first is the deal in the board
    now). A finished run's deal is read again and proven (a plan's session's from the deal file its plan
    in `workdir` names); a run still dealing, or whose deals are not at hand, comes without one and says
    why (for a plan's session: where its deals are)."""
    lookup = plan_lookup(workdir) if workdir is not None else None
    found: list[BoardDealing] = []
    for path in journals:
        with read_journal(path) as journal:
            held = _dealt_into(journal, set_name, board)
            if not held:
                continue
            deals = {rd.run.id: rd for rd in dealt_deals(journal, lookup) if rd.run.id in held}
            for run_id, (run, at, digest) in held.items():
                if not run.finished:
                    found.append(BoardDealing(path, run, set_name, board, at, digest, None,
                                              _("the run has not finished: its deals stay locked until it has")))
                    continue
                rd = deals[run_id]
                if rd.deals is not None:
                    found.append(BoardDealing(path, run, set_name, board, at, digest, rd.deals.select([board])))
                else:
                    where = plan_deal_file(workdir, run) if workdir is not None else None
                    found.append(BoardDealing(path, run, set_name, board, at, digest, None,
                                              _why(run, rd.reason, where)))
    _replays_shown(found)
    return sorted(found, key=lambda d: d.at, reverse=True)


def _dealt_into(journal: Journal, set_name: str, board: int) -> dict[int, tuple[Run, str, str]]:
    """The runs of `journal` that dealt into the board (a machine told to deal it, at least): run id -> (run,
    when it last did, deal hash)."""
    held: dict[int, tuple[Run, str, str]] = {}
    for run in journal.runs():
        for job in journal.jobs(run.id):
            if (job.set_name or "A") != set_name or job.board != board:
                continue
            times = [e.at for e in journal.events(run.id, job.id) if e.state in INTO_THE_BOARD]
            if times and (run.id not in held or max(times) > held[run.id][1]):
                held[run.id] = (run, max(times), job.deal_hash)
    return held


def plan_lookup(workdir: Path) -> Lookup:
    """The deals of a plan's session dealt by the console: the session's deal file, as the plan in the work
    folder names it (a plan naming anything outside the folder is not read)."""
    def lookup(run: Run) -> DealSet | None:
        found = plan_deal_file(workdir, run)
        return formats.read_file(found) if found is not None and found.is_file() else None
    return lookup


def plan_deal_file(workdir: Path, run: Run) -> Path | None:
    """The deal file of a plan session's run, as the plan of the work folder names it; None if the run is
    not a plan's, the plan is gone or reaches outside the folder, or the session has no file of its own."""
    if not run.source.startswith("plan "):
        return None
    plan_path = workdir / run.source.removeprefix("plan ").partition(": ")[0]
    if not plan_path.is_file() or given.plan_reach(plan_path, workdir, lambda port: None)[0]:
        return None
    try:
        plan = Plan.load(plan_path)
        session = plan.session(run.name)
        while isinstance(session.source, SessionSource):
            session = plan.session(session.source.session)
        return plan.deal_file(session)
    except DealerError:
        return None


def _why(run: Run, reason: str, where: Path | None) -> str:
    """Why a finished run's deal is not shown; for a plan's session, where its deals are."""
    if not run.source.startswith("plan "):
        return reason
    plan, _colon, source = run.source.removeprefix("plan ").partition(": ")
    if where is None:
        return _("session {session} of plan {plan}: its deals ({source}) are kept beside the plan, which is not in "
                 "the console's work folder now: put the plan back to show this board").format(
            session=run.name, plan=plan, source=said_from(source, SOURCE_WORDS))
    if not where.is_file():
        return _("session {session} of plan {plan}: its deals are kept in {where}, which is not there now: put that "
                 "file back to show this board").format(session=run.name, plan=plan, where=where)
    return _("session {session} of plan {plan}, dealt from {where}: {reason}").format(
        session=run.name, plan=plan, where=where, reason=reason)


def _replays_shown(found: list[BoardDealing]) -> None:
    """A replay's deal is an earlier run's: shown from the run found with the same deal."""
    for k, dealing in enumerate(found):
        if dealing.deals is not None or not dealing.run.replay or not dealing.run.finished:
            continue
        same = next((d for d in found if d.deals is not None and d.deals.deal_hashes()[0] == dealing.deal_hash), None)
        if same is not None:
            found[k] = replace(dealing, deals=same.deals, why=_("a replay of {session}").format(session=same.run.name))


def dealings_html(dealings: Sequence[BoardDealing]) -> str:
    """The board's dealings, newest first: the first marked as the deal in the board now, the others as
    older; each drawn as the hand records draw it (`dealer.printing.records_html.board_html`), or saying
    why it is not shown."""
    parts = []
    for k, dealing in enumerate(dealings):
        state = "now" if k == 0 else "older"
        tag = _("now") if k == 0 else _("older")
        heading = (_("In the board now: {name} (run {run} of {journal}), dealt {when}") if k == 0
                   else _("Older, no longer in the board: {name} (run {run} of {journal}), dealt {when}")).format(
            name=escape(dealing.run.name), run=dealing.run.id, journal=escape(dealing.journal.name), when=dealing.when)
        if dealing.deals is not None:
            shown = board_html(board_views(dealing.deals)[0])
            more = f'<p class="note">{escape(dealing.why)}</p>' if dealing.why else ""
        else:
            shown, more = "", '<p class="note">' + escape(_("Not shown: {why}").format(why=dealing.why)) + "</p>"
        parts.append(f'<section class="dealing {state}" data-run="{dealing.run.id}" data-when="{dealing.at}">'
                     f'<h2><span class="tag">{tag}</span> {heading}</h2>'
                     f"{more}{shown}</section>")
    return "".join(parts)
