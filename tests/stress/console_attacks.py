"""The console (`dealer serve`) attacked as a local user holding its token would: each attack refused (4xx) or
held within its bound (docs/bounds.md), the console's memory under 300 MB.

    python -m tests.stress.console_attacks [--quick]

Starts the real command (default settings but a free port of its own) in a temporary folder, with a deal history
of its own there (DEALER_HISTORY), never this computer's; talks to it over loopback only, every loop bounded in
count and time; stops every console it started and removes the folder whatever happens. Prints each attack's
figures and verdict, exit 1 if any attack is not refused or held. --quick: a smaller sample of each attack.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import re
import secrets
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

from tests.support.console_process import (
    MEMORY_BOUND_MB,
    RUNNING,
    Answer,
    Console,
    ConsoleError,
    generate,
    group_gone,
    mb,
    short,
    signals_end_the_run,
)
from tests.support.paths import ROOT

EXIT_MARGIN = 10.0
"""Seconds a console stopped by SIGTERM may take beyond the documented stop bound (its server's own shutdown)."""
AT_REST = ("finished", "stopped", "failed")


# --- the documented bounds -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Bounds:
    """The numbers of docs/bounds.md the attacks are judged against."""

    copies: int
    depth: int
    min_speed: str
    max_speed: str
    sim_copies: int
    upload_files: int
    pin_per_client: int
    pin_overall: int
    stop_within: float

    @staticmethod
    def read(path: Path = ROOT / "docs" / "bounds.md") -> Bounds:
        rows: dict[str, str] = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) >= 2 and line.lstrip().startswith("|"):
                rows[cells[0]] = cells[1]

        def bound(*words: str) -> str:
            found = [b for what, b in rows.items() if all(w in what for w in words)]
            if len(found) != 1:
                raise SystemExit(f"docs/bounds.md: no single row naming {' '.join(words)!r} ({len(found)} found)")
            return found[0]

        def first(*words: str) -> str:
            found = re.search(r"\d+(?:\.\d+)?", bound(*words))
            if found is None:
                raise SystemExit(f"docs/bounds.md: no number in the row naming {' '.join(words)!r}")
            return found.group(0)

        speeds = re.findall(r"\d+(?:\.\d+)?", bound("speed"))
        return Bounds(copies=int(first("copies of a session")), depth=int(first("nesting of JSON and TOML")),
                      min_speed=speeds[0], max_speed=speeds[1], sim_copies=int(first("machine's copies")),
                      upload_files=int(first("uploads kept at once")),
                      pin_per_client=int(first("wrong director's PINs from one")),
                      pin_overall=int(first("wrong director's PINs from all")),
                      stop_within=float(first("stopping run")))


# --- the console as a subprocess -----------------------------------------------------------------------------

class _Redirects(urllib.request.HTTPRedirectHandler):
    """Follows redirects as a browser does, noting their codes."""

    def __init__(self) -> None:
        self.codes: list[int] = []

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> urllib.request.Request | None:
        self.codes.append(code)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


class Browser:
    """A browser-like client: keeps the cookies it is given (the token's, the director's session, the director's),
    sends its own Origin with a form, follows redirects."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.jar = CookieJar()
        self.redirects = _Redirects()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), self.redirects)
        self.retry_after = ""
        self.open(f"?token={console.token}")  # the address printed: the token becomes a cookie

    def open(self, path: str, form: dict[str, str] | None = None) -> tuple[int, str]:
        """The first answer's status (a redirect's, when it was redirected) and the last answer's text."""
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        headers = {"Origin": self.console.address.rstrip("/")} if form is not None else {}
        request = urllib.request.Request(self.console.address + path.lstrip("/"), data=data, headers=headers)
        self.redirects.codes.clear()
        try:
            with self.opener.open(request, timeout=60) as answer:
                status, text = answer.status, answer.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as exc:
            status, text = exc.code, exc.read().decode("utf-8", "replace")
            self.retry_after = exc.headers.get("Retry-After", "")
        return (self.redirects.codes[0] if self.redirects.codes else status), text

    def unlocked(self) -> bool:
        return "Director: a board's deal" in self.open("director")[1]


# --- what an attack reports ----------------------------------------------------------------------------------

@dataclass
class Outcome:
    number: str
    title: str
    figures: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def expect(self, held: bool, problem: str) -> bool:
        if not held:
            self.problems.append(problem)
        return held

    def show(self) -> None:
        print(f"[{self.number}] {self.title}")
        for figure in self.figures:
            print(f"    {figure}")
        verdict = "held" if not self.problems else f"NOT HELD ({len(self.problems)} problem(s))"
        print(f"    verdict: {verdict}")
        for problem in self.problems:
            print(f"    - {problem}")
        sys.stdout.flush()


def refused(answer: Answer) -> bool:
    return 400 <= answer.status < 500


def plan_text(port: str, name: str = "Attack") -> str:
    return (f'[event]\nname = "{name}"\n\n[[machines]]\nname = "M1"\nport = "{port}"\n\n'
            '[[sessions]]\nname = "S1"\nboards = "1-4"\nsource = "bigdeal"\n\n[[sessions.sections]]\nname = "A"\n')


def upload(console: Console, name: str, content: bytes | str) -> Answer:
    body = content.encode() if isinstance(content, str) else content
    return console.call("POST", f"/api/upload?name={urllib.parse.quote(name)}", body,
                        {"Content-Type": "application/octet-stream"})


def stop_if_started(console: Console, answer: Answer) -> None:
    """A start that should have been refused and was not: stop that run (bounded) before going on."""
    if answer.status < 300:
        console.call("POST", "/api/stop")
        console.wait_at_rest(60)


# --- 1: a plan's machine past its bounds ---------------------------------------------------------------------

def attack_plan_bounds(console: Console, bounds: Bounds, deal_file: str) -> Outcome:
    out = Outcome("1", "a plan's simulated machine past its bounds, and a session's copies past its bound")
    rss_before, _ = console.memory()
    cases = [("sim://?copies=100000000", "copies-1e8.toml", [str(bounds.sim_copies)]),
             ("sim://?speed=1e-300", "speed-1e-300.toml", [bounds.min_speed, bounds.max_speed])]
    for port, name, named in cases:
        kept = upload(console, name, plan_text(port))
        if not out.expect(kept.status == 200, f"upload of {name}: {kept.status} {short(kept.text)}"):
            continue
        source = kept.json()["source"]
        checked = console.post("/api/check", {"source": source})
        began = time.monotonic()
        started = console.post("/api/start", {"source": source})
        took = time.monotonic() - began
        stop_if_started(console, started)
        said = started.problems()
        out.figures.append(f"{port}: check {checked.status} ok={checked.json().get('ok')}, start {started.status} in "
                           f"{took * 1000:.0f} ms: {short(said, 140)!r}")
        out.expect(checked.status < 500 and checked.json().get("ok") is False,
                   f"POST /api/check {{source: {source}}} (machine {port}): {checked.status} {short(checked.text)}")
        out.expect(refused(started) and all(n in said for n in named),
                   f"POST /api/start {{source: {source}}} (machine {port}): {started.status} {short(started.text)}; "
                   f"expected 4xx naming {' and '.join(named)}")
    request = {"source": deal_file, "machines": ["sim-5"], "copies": 100_000_000}
    checked = console.post("/api/check", request)
    started = console.post("/api/start", request)
    stop_if_started(console, started)
    out.figures.append(f"deal file with copies 100000000: check {checked.status} ok={checked.json().get('ok')}, "
                       f"start {started.status}: {short(started.problems(), 140)!r}")
    out.expect(checked.status < 500 and checked.json().get("ok") is False,
               f"POST /api/check {json.dumps(request)}: {checked.status} {short(checked.text)}")
    out.expect(refused(started) and str(bounds.copies) in started.problems(),
               f"POST /api/start {json.dumps(request)}: {started.status} {short(started.text)}; expected 4xx naming "
               f"{bounds.copies}")
    time.sleep(1)
    room = console.room()
    rss_after, _ = console.memory()
    out.figures.append(f"room afterwards: {room.get('status')}; console RSS {mb(rss_before)} before, {mb(rss_after)} "
                       f"after (bound {MEMORY_BOUND_MB} MB)")
    out.expect(room.get("status") not in RUNNING, f"a run is {room.get('status')} after the refused starts")
    out.expect(rss_after < MEMORY_BOUND_MB * 1024, f"RSS {mb(rss_after)} after the attack")
    return out


# --- 2: bodies and plans past the nesting bound, numbers that are not finite ---------------------------------

def attack_bodies(console: Console, bounds: Bounds, deal_file: str) -> Outcome:
    out = Outcome("2", f"request bodies and uploaded plans past the nesting bound ({bounds.depth}) or not finite")
    deep = 100_000
    start = f'{{"source": "{deal_file}", "machines": ["sim-5"], "copies": '
    bodies = {
        f"JSON list nested {deep:,} deep": "[" * deep + "]" * deep,
        f"JSON object nested {deep:,} deep": '{"a":' * deep + "1" + "}" * deep,
        f"copies nested {deep:,} deep": start + "[" * deep + "]" * deep + "}",
        "copies Infinity": start + "Infinity}",
        "copies -Infinity": start + "-Infinity}",
        "copies NaN": start + "NaN}",
        "copies 1e400": start + "1e400}",
        "copies 1e308": start + "1e308}",
        "copies of 5000 digits": start + "9" * 5000 + "}",
    }
    statuses: Counter[int] = Counter()
    peaks: dict[str, int] = {}
    for what, body in bodies.items():
        began = time.monotonic()
        for route in ("/api/check", "/api/start"):
            answer = console.call("POST", route, body)
            statuses[answer.status] += 1
            if route == "/api/check":  # a check refuses in a 400, or says its problems (200, ok false)
                checked = answer
                out.expect(refused(answer) or (answer.status == 200 and answer.json().get("ok") is False),
                           f"POST {route} with {what} ({len(body):,} bytes): {answer.status} {short(answer.text)}; "
                           "expected 4xx or a check that is not ok")
                continue
            stop_if_started(console, answer)
            out.expect(refused(answer), f"POST {route} with {what} ({len(body):,} bytes): {answer.status} "
                                        f"{short(answer.text)}; expected 4xx")
        peaks[what] = console.peak_since(began)
        out.figures.append(f"{what}: check {checked.status}, start {answer.status} {short(answer.problems(), 80)!r}; "
                           f"VmRSS {mb(peaks[what])}")
    n = 5000
    files = {
        "plan-arrays.toml": plan_text("sim://?speed=50") + "deep = " + "[" * n + "]" * n + "\n",
        "plan-tables.toml": plan_text("sim://?speed=50") + "deep = " + "{ a = " * n + "1" + " }" * n + "\n",
        "plan-dotted.toml": plan_text("sim://?speed=50") + "deep." + ".".join(["a"] * n) + " = 1\n",
        "deals-metadata.json": '{"format": "dealer-deals", "version": 1, "metadata": ' + '{"a": ' * n + '"x"'
                               + "}" * n + ', "boards": []}',
        "deals-board.json": '{"format": "dealer-deals", "version": 1, "boards": [{"board": 1, "deal": ' + "[" * n
                            + "]" * n + "}]}",
    }
    for name, text in files.items():
        began = time.monotonic()
        kept = upload(console, name, text)
        statuses[kept.status] += 1
        if not out.expect(kept.status < 500, f"upload {name}: {kept.status} {short(kept.text)}"):
            continue
        if refused(kept):
            out.figures.append(f"uploaded {name} ({n:,} deep): upload refused {kept.status} {short(kept.problems())!r}")
            continue
        source = kept.json()["source"]
        request = {"source": source, "machines": [] if name.endswith(".toml") else ["sim-5"]}
        checked = console.post("/api/check", request)
        started = console.post("/api/start", request)
        stop_if_started(console, started)
        statuses[checked.status] += 1
        statuses[started.status] += 1
        peaks[f"the uploaded {name} checked and started"] = peak = console.peak_since(began)
        out.figures.append(f"uploaded {name} ({n:,} deep): check {checked.status} ok={checked.json().get('ok')}, "
                           f"start {started.status} {short(started.problems(), 80)!r}; VmRSS {mb(peak)}")
        out.expect(checked.status < 500 and checked.json().get("ok") is False,
                   f"POST /api/check {json.dumps(request)}: {checked.status} {short(checked.text)}")
        out.expect(refused(started), f"POST /api/start {json.dumps(request)}: {started.status} {short(started.text)}; "
                                     "expected 4xx")
    out.figures.insert(0, "answers: " + ", ".join(f"{n} x {s}" for s, n in sorted(statuses.items()))
                       + f"; none 5xx: {not any(s >= 500 for s in statuses)}")
    for what, peak in peaks.items():
        out.expect(peak < MEMORY_BOUND_MB * 1024, f"the console's VmRSS reached {mb(peak)} with {what} (bound "
                                                  f"{MEMORY_BOUND_MB} MB)")
    return out


def dotted_plan(depth: int) -> str:
    """A plan whose one extra key is dotted `depth` levels deep (``deep.a.a.a... = 1``): 2 bytes a level."""
    return plan_text("sim://?speed=50") + "deep." + ".".join(["a"] * depth) + " = 1\n"


def attack_dotted_keys(folder: Path, bounds: Bounds) -> Outcome:
    """On a console of its own (its memory peak is its own): TOML's dotted keys nested deep, checked at once by a
    few clients, and one deeper."""
    out = Outcome("2b", f"plans with a dotted key nested deep (bound {bounds.depth} levels), on a console of its own: "
                        f"the console's memory (bound {MEMORY_BOUND_MB} MB)")
    console = Console(folder / "dotted")
    try:
        cases = [(5000, 4), (10000, 1)]
        for depth, clients in cases:
            text = dotted_plan(depth)
            kept = upload(console, f"dotted-{depth}.toml", text)
            if not out.expect(kept.status == 200, f"upload of a dotted plan: {kept.status} {short(kept.text)}"):
                continue
            source = kept.json()["source"]
            answers: list[Answer] = []
            began = time.monotonic()
            threads = [threading.Thread(target=lambda got=answers, named=source: got.append(
                console.post("/api/check", {"source": named})), daemon=True) for _ in range(clients)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(120)
            took = time.monotonic() - began
            peak = console.peak_since(began)
            _, hwm = console.memory()
            statuses = sorted(a.status for a in answers)
            said = answers[0].problems() if answers else ""
            out.figures.append(f"a {len(text.encode()):,}-byte plan, key {depth:,} levels deep, checked by {clients} "
                               f"client(s) at once: {statuses} in {took:.2f} s, {short(said, 80)!r}; VmRSS {mb(peak)} "
                               f"at most, VmHWM {mb(hwm)}")
            out.expect(len(answers) == clients and all(a.status < 500 and a.json().get("ok") is False for a in answers),
                       f"POST /api/check {{source: {source}}} x {clients}: {statuses}")
            out.expect(hwm < MEMORY_BOUND_MB * 1024,
                       f"POST /api/upload?name=dotted-{depth}.toml (body 'deep.a.a...a = 1', {depth:,} levels, "
                       f"{len(text.encode()):,} bytes), then POST /api/check {{source: {source}}} from {clients} "
                       f"client(s) at once: the console's VmHWM reached {mb(hwm)} (bound {MEMORY_BOUND_MB} MB)")
    finally:
        console.end()
    return out


# --- 3: a flood of uploads -----------------------------------------------------------------------------------

def attack_uploads(console: Console, bounds: Bounds, count: int) -> Outcome:
    out = Outcome("3", f"{count} small uploads in a row (documented: {bounds.upload_files} uploads kept at once)")
    kept_before = sum(name.startswith("uploads/") for name in console.call("GET", "/api/sources").json()["files"])
    accepted: list[tuple[int, float, float]] = []  # (index, seconds since the first, seconds it took)
    refusals: Counter[int] = Counter()
    first_refusal = ""
    began = time.monotonic()
    for k in range(count):
        sent = time.monotonic()
        answer = upload(console, f"flood-{k:04d}.pbn", f"% upload {k} of a flood\n")
        took = time.monotonic() - sent
        if answer.status == 200:
            accepted.append((k, sent - began, took))
        else:
            refusals[answer.status] += 1
            first_refusal = first_refusal or f"#{k}: {answer.status} {short(answer.problems(), 120)!r}"
    total = time.monotonic() - began
    kept_after = sum(name.startswith("uploads/") for name in console.call("GET", "/api/sources").json()["files"])
    room_for = max(bounds.upload_files - kept_before, 0)
    out.figures.append(f"{kept_before} uploads kept before; {len(accepted)} accepted, "
                       + ", ".join(f"{n} refused {s}" for s, n in sorted(refusals.items()))
                       + f"; {kept_after} kept after; {total:.1f} s in all")
    if accepted:
        (k0, t0, d0), (k1, t1, d1) = accepted[0], accepted[-1]
        out.figures.append(f"first accepted: #{k0} at {t0:.2f} s, answered in {d0 * 1000:.1f} ms; last accepted: "
                           f"#{k1} at {t1:.2f} s, answered in {d1 * 1000:.1f} ms")
    out.figures.append(f"first refusal: {first_refusal or 'none'}")
    out.expect(len(accepted) == room_for and [k for k, _, _ in accepted] == list(range(room_for)),
               f"{len(accepted)} uploads accepted (expected the first {room_for}, to {bounds.upload_files} kept)")
    out.expect(kept_after == bounds.upload_files or count < room_for,
               f"{kept_after} uploads kept (bound {bounds.upload_files})")
    out.expect(all(400 <= s < 500 for s in refusals), f"refusals answered {dict(refusals)}; expected 4xx only")
    out.expect(str(bounds.upload_files) in first_refusal or not refusals,
               f"the refusal does not name the bound {bounds.upload_files}: {first_refusal}")
    return out


# --- 4: the director's PIN guessed -----------------------------------------------------------------------------

class Guesser:
    """Wrong PINs sent continuously from one client keeping no cookie (or, `own_sessions`, inventing a new browser
    session for each guess), until stopped or `seconds` have passed."""

    def __init__(self, console: Console, seconds: float, session_cookie: str | None = None) -> None:
        self.console = console
        self.seconds = seconds
        self.session_cookie = session_cookie
        self.statuses: Counter[int] = Counter()
        self.stopping = threading.Event()
        self.held = threading.Event()
        self.errors = 0
        self.thread = threading.Thread(target=self._guess, daemon=True)

    def _guess(self) -> None:
        deadline = time.monotonic() + self.seconds
        for _ in range(200_000):
            if self.stopping.is_set() or time.monotonic() > deadline:
                return
            pin = f"{secrets.randbelow(10 ** 8):08d}"
            if pin == self.console.pin:
                continue
            headers = {"Content-Type": "application/x-www-form-urlencoded"}
            if self.session_cookie:
                headers["Cookie"] = f"{self.session_cookie}={secrets.token_hex(6)}"
            try:
                answer = self.console.call("POST", "/director/unlock", f"pin={pin}", headers, timeout=30)
            except OSError:
                self.errors += 1
                time.sleep(0.05)
                continue
            self.statuses[answer.status] += 1
            if answer.status == 429:
                self.held.set()

    def __enter__(self) -> Guesser:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.thread.join(self.seconds + 30)  # it guesses its whole time, whatever was tried meanwhile
        self.stopping.set()
        self.thread.join(30)

    def figures(self) -> str:
        sent = sum(self.statuses.values())
        return (f"{sent} wrong PINs sent: " + ", ".join(f"{n} answered {s}" for s, n in sorted(self.statuses.items()))
                + (f", {self.errors} connection errors" if self.errors else ""))


def one_time_link(console: Console) -> str:
    """Enter pressed on the console's terminal: the one-time director's link it prints."""
    after = len(console.output())
    assert console.process.stdin is not None
    console.process.stdin.write("\n")
    console.process.stdin.flush()
    return console.wait_for(r"one-time link: (http://\S+)", 30, after).group(1)


def attack_pin(console: Console, bounds: Bounds, seconds: float) -> Outcome:
    out = Outcome("4", f"wrong director's PINs sent continuously for {seconds:g} s from one client keeping no cookie, "
                       f"while the director unlocks in a browser (documented: {bounds.pin_per_client} a minute from "
                       f"one client, {bounds.pin_overall} from all)")
    told_from = len(console.output())
    director = Browser(console)
    director.open("director")  # the director's page: its browser session
    with Guesser(console, seconds) as guesser:
        guesser.held.wait(min(seconds / 2, 10))
        began = time.monotonic()
        status, _ = director.open("director/unlock", {"pin": console.pin})
        took = time.monotonic() - began
        right_pin = director.unlocked()
        link = one_time_link(console)
        other = Browser(console)
        by_link_status, _ = other.open(link.removeprefix(console.address))
        by_link = other.unlocked()
        again = Browser(console)
        reused, _ = again.open(link.removeprefix(console.address))
    told = console.output(told_from)
    compared = sum("wrong director's PIN from 127.0.0.1 " in line for line in told)
    out.figures.append(f"the guesser: {guesser.figures()}; {compared} of them compared (the console's terminal names "
                       "each wrong PIN it compares)")
    out.figures.append(f"the right PIN from the director's browser while guessed: {status} after {took * 1000:.0f} ms, "
                       f"got in: {right_pin}")
    out.figures.append(f"the one-time link (Enter on the console's stdin) while guessed: {by_link_status}, got in: "
                       f"{by_link}; the same link again: {reused}")
    out.expect(right_pin, f"the director's right PIN (POST /director/unlock pin=PIN, with its session cookie) did not "
                          f"get in while a cookieless client guessed: {status}")
    out.expect(by_link, "the one-time link did not let the director in while guesses went on")
    out.expect(reused == 403, f"the one-time link used twice answered {reused} the second time (expected 403)")
    out.expect(compared <= bounds.pin_per_client,
               f"{compared} wrong PINs of one cookieless client were compared within a minute "
               f"(bound {bounds.pin_per_client})")
    out.expect(not any(s >= 500 for s in guesser.statuses), f"guesses answered {dict(guesser.statuses)}")
    return out


def attack_pin_sessions(console: Console, bounds: Bounds, seconds: float) -> Outcome:
    """Beyond the brief's guesser: one that sends a browser-session cookie of its own making with each guess."""
    out = Outcome("4b", f"wrong director's PINs for {seconds:g} s from one client sending a browser-session cookie "
                        "of its own making with each guess (documented: 'a director in another browser is not held "
                        "by one guesser')")
    told_from = len(console.output())
    probe = Browser(console)
    probe.open("director")
    session_cookie = next((c.name for c in probe.jar if c.name.startswith("dealer_session")), None)
    if session_cookie is None:
        out.figures.append("the director's page gives no browser-session cookie: nothing to invent, skipped")
        return out
    director = Browser(console)
    director.open("director")
    with Guesser(console, seconds, session_cookie) as guesser:
        guesser.held.wait(min(seconds, 20))
        status, _ = director.open("director/unlock", {"pin": console.pin})
        wait = director.retry_after
        right_pin = director.unlocked()
        link = one_time_link(console)
        rescued = Browser(console)
        rescued.open(link.removeprefix(console.address))
        by_link = rescued.unlocked()
    compared = sum("wrong director's PIN from browser session" in line for line in console.output(told_from))
    out.figures.append(f"the guesser: {guesser.figures()}; {compared} of them compared, each from a session "
                       f"'{session_cookie}=<12 hex digits>' it made up")
    out.figures.append(f"the right PIN from the director's browser (its own session, given by the page) while "
                       f"guessed: {status}{f' Retry-After {wait}' if wait else ''}, got in: {right_pin}; the "
                       f"one-time link: got in: {by_link}")
    out.expect(right_pin, f"POST /director/unlock pin=<right PIN> from the director's browser (session cookie given by "
                          f"GET /director) answered {status}{f' (Retry-After {wait})' if wait else ''} while one "
                          f"client sent wrong PINs each with a made-up '{session_cookie}' cookie: {compared} of its "
                          f"guesses were compared (bound {bounds.pin_per_client} a client) until all clients' "
                          f"{bounds.pin_overall} were used, then the director was held")
    out.expect(by_link, "the one-time link did not let the director in while sessions were made up")
    out.expect(compared <= bounds.pin_overall, f"{compared} wrong PINs compared within a minute "
                                               f"(bound {bounds.pin_overall} from all clients)")
    out.expect(not any(s >= 500 for s in guesser.statuses), f"guesses answered {dict(guesser.statuses)}")
    return out


# --- 5: event streams, half of them never read ----------------------------------------------------------------

class Reader:
    """One server-sent-event stream read continuously until it hears the run `key` end (`key` told later): its
    ``ended`` event, or a catch-up snapshot (one sent alone to a reader that fell behind, without a ``seq``)
    showing it at rest."""

    def __init__(self, console: Console, run: dict[str, str], deadline: float) -> None:
        self.console = console
        self.run = run
        self.deadline = deadline
        self.subscribed = threading.Event()
        self.ended_runs: set[str] = set()
        self.rest_runs: set[str] = set()
        self.messages = 0
        self.error = ""
        self.connection = http.client.HTTPConnection("127.0.0.1", self.console.port, timeout=30)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def saw_end(self) -> bool:
        key = self.run.get("key", "")
        return bool(key) and (key in self.ended_runs or key in self.rest_runs)

    def close(self) -> None:
        """End the stream from this side (a reader still waiting is woken)."""
        self.deadline = 0
        with contextlib.suppress(OSError, AttributeError):
            self.connection.sock.shutdown(socket.SHUT_RDWR)

    def _read(self) -> None:
        connection = self.connection
        try:
            connection.request("GET", "/events", headers={"Authorization": f"Bearer {self.console.token}"})
            answer = connection.getresponse()
            if answer.status != 200:
                self.error = f"answered {answer.status}"
                return
            for _ in range(1_000_000):
                if time.monotonic() > self.deadline:
                    self.error = "deadline"
                    return
                line = answer.readline()
                if not line:
                    self.error = "stream ended before the run"
                    return
                if not line.startswith(b"data: "):
                    continue
                self.subscribed.set()
                self.messages += line.count(b'"seq":') or 1
                if b'"type":"ended"' in line or b'"type":"snapshot"' in line:
                    for message in json.loads(line[6:]):
                        if message.get("type") == "ended":
                            self.ended_runs.add(message.get("run", ""))
                        elif (message.get("type") == "snapshot" and "seq" not in message
                              and message.get("status") in AT_REST):
                            self.rest_runs.add(message.get("run", ""))
                if self.saw_end():
                    return
        except (OSError, http.client.HTTPException, ValueError) as exc:
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            connection.close()


def silent_stream(console: Console) -> socket.socket:
    """An event stream asked for and never read (a small receive buffer, so that it fills soon)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(30)
    sock.connect(("127.0.0.1", console.port))
    sock.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{console.port}\r\nAuthorization: Bearer {console.token}"
                 "\r\n\r\n".encode())
    return sock


def attack_streams(console: Console, bounds: Bounds, deal_file: str, machines: list[str], streams: int) -> Outcome:
    readers_n, silent_n = streams // 2, streams - streams // 2
    out = Outcome("5", f"{streams} event streams open through a run on {len(machines)} simulated machines: "
                       f"{readers_n} reading, {silent_n} never reading")
    deadline = time.monotonic() + 300
    run: dict[str, str] = {}
    silent: list[socket.socket] = []
    readers: list[Reader] = []
    rss_before, _ = console.memory()
    opened = time.monotonic()
    try:
        readers = [Reader(console, run, deadline) for _ in range(readers_n)]
        within = time.monotonic() + 60
        subscribed = sum(r.subscribed.wait(max(0.0, within - time.monotonic())) for r in readers)
        for _ in range(silent_n):
            silent.append(silent_stream(console))
        answered = 0
        for sock in silent:  # each was answered (peeked at, not read: its bytes stay in the buffer)
            with contextlib.suppress(OSError):
                answered += bool(sock.recv(1, socket.MSG_PEEK))
        out.figures.append(f"{subscribed} reading streams had the room's snapshot, {answered} silent streams were "
                           "answered, before the run")
        began = time.monotonic()
        started = console.post("/api/start", {"source": deal_file, "machines": machines})
        if not out.expect(started.status == 200, f"POST /api/start {deal_file}: {started.status} "
                                                 f"{short(started.text)}"):
            return out
        run["key"] = started.json()["run"]
        latencies = []
        while any(r.thread.is_alive() for r in readers) and time.monotonic() < deadline:
            sent = time.monotonic()
            room = console.room()
            latencies.append(time.monotonic() - sent)
            if room.get("status") not in RUNNING and time.monotonic() - began > 60:
                break  # the run ended a minute ago: a reader still waiting will not see it
            time.sleep(0.25)
        ran = time.monotonic() - began
        for reader in readers:
            reader.thread.join(max(0.0, min(30.0, deadline - time.monotonic())))
        saw = [r for r in readers if r.saw_end()]
        by_snapshot = sum(1 for r in saw if run["key"] not in r.ended_runs)
        messages = sorted(r.messages for r in readers)
        room = console.room()
        out.figures.append(f"the run: {room.get('status')}, {room.get('verified')}/{room.get('total')} boards, "
                           f"{ran:.1f} s from its start until every reader was done")
        out.figures.append(f"reading streams that saw the run's end: {len(saw)} of {readers_n} ({by_snapshot} by a "
                           f"catch-up snapshot); messages per reader {messages[0] if messages else 0} to "
                           f"{messages[-1] if messages else 0}")
        if latencies:
            out.figures.append(f"/api/room answered in {max(latencies) * 1000:.0f} ms at most while the streams were "
                               f"open ({len(latencies)} asks)")
        errors = Counter(r.error for r in readers if r.error and not r.saw_end())
        if errors:
            out.figures.append("readers that did not see it: " + ", ".join(f"{n} x {e}" for e, n in errors.items()))
        out.expect(len(saw) == readers_n, f"{readers_n - len(saw)} of {readers_n} reading streams did not see the "
                                          "run's end (an 'ended' event or a snapshot at rest)")
    finally:
        for sock in silent:
            with contextlib.suppress(OSError):
                sock.close()
        for reader in readers:
            reader.close()
    rss_after, _ = console.memory()
    peak = console.peak_since(opened)
    out.figures.append(f"console RSS {mb(rss_before)} before, {mb(peak)} at most while the streams were open, "
                       f"{mb(rss_after)} after (bound {MEMORY_BOUND_MB} MB)")
    after = console.call("GET", "/api/room")
    out.expect(after.status == 200, f"the console answers {after.status} after the streams")
    out.expect(peak < MEMORY_BOUND_MB * 1024, f"RSS {mb(peak)} while the streams were open")
    return out


# --- 6: stop ---------------------------------------------------------------------------------------------------

def attack_stop(console: Console, bounds: Bounds, deal_files: list[str], machines: list[str],
                moments: list[float]) -> Outcome:
    out = Outcome("6", f"a run stopped at {len(moments)} moments: seconds until the room says it no longer runs "
                       f"(bound {bounds.stop_within:g} s)")
    took_all = []
    for moment, deal_file in zip(moments, deal_files, strict=True):
        started = console.post("/api/start", {"source": deal_file, "machines": machines})
        if not out.expect(started.status == 200, f"POST /api/start {deal_file}: {started.status} "
                                                 f"{short(started.text)}"):
            continue
        time.sleep(moment)
        asked = time.monotonic()
        stopped = console.call("POST", "/api/stop")
        _, room = console.wait_at_rest(bounds.stop_within * 2)
        took = time.monotonic() - asked
        took_all.append(took)
        out.figures.append(f"stop {moment:.2f} s after the start: {stopped.status}, {took:.2f} s until "
                           f"{room.get('status')!r} ({room.get('verified')}/{room.get('total')} verified): "
                           f"{short(str(room.get('message')), 90)!r}")
        out.expect(stopped.status == 200 or (refused(stopped) and room.get("status") == "finished"),
                   f"POST /api/stop {moment:.2f} s after the start: {stopped.status} {short(stopped.text)}")
        out.expect(took <= bounds.stop_within, f"the stop {moment:.2f} s after the start took {took:.1f} s "
                                               f"(bound {bounds.stop_within:g} s); room {room.get('status')}")
        if room.get("status") in RUNNING:
            console.wait_at_rest(60)
    if took_all:
        out.figures.insert(0, f"max {max(took_all):.2f} s from the stop request until the run no longer runs")
    return out


# --- 7: SIGTERM while a run stops ------------------------------------------------------------------------------

def attack_sigterm(folder: Path, bounds: Bounds, stock: list[Path], machines: list[str]) -> Outcome:
    instants = len(stock)
    bound = bounds.stop_within + EXIT_MARGIN
    out = Outcome("7", f"SIGTERM at {instants} instants of a stopping run, a browser watching (exit bound {bound:g} s)")
    clean = 0
    exits: list[float] = []
    stopping_at_signal = 0
    peak_kb = 0
    for k in range(instants):
        place = folder / f"sigterm-{k}"
        (place / "dealer-serve").mkdir(parents=True, mode=0o700)
        deals = Path(shutil.copy(stock[k], place / "dealer-serve" / "stopping.pbn"))  # fresh deals for each
        console: Console | None = None
        watcher: Reader | None = None
        problems: list[str] = []
        delay = 0.25 * k / max(instants - 1, 1)  # a stopping run's machines finish their boards within ~0.4 s
        try:
            console = Console(place)
            started = console.post("/api/start", {"source": deals.name, "machines": machines})
            if started.status != 200:
                problems.append(f"start {started.status} {short(started.text)}")
            watcher = Reader(console, {"key": "never"}, time.monotonic() + bound + 30)
            watcher.subscribed.wait(10)
            time.sleep(0.2 + 0.15 * (k % 4))
            stopped = console.call("POST", "/api/stop")
            time.sleep(delay)
            took = console.end(signal.SIGTERM, timeout=bound + 20)
            peak_kb = max(peak_kb, console.hwm_kb)
            watcher.thread.join(10)
            said = console.output(console.started_lines)
            stopping_at_signal += any("stopping the run" in line for line in said)
            rest = [line for line in said if "stopping the run" not in line]
            if stopped.status != 200:
                problems.append(f"stop {stopped.status} {short(stopped.text)}")
            if took is None:
                problems.append(f"still running {bound + 20:g} s after SIGTERM: killed")
            else:
                exits.append(took)
                if took > bound:
                    problems.append(f"exited {took:.1f} s after SIGTERM (bound {bound:g} s)")
            if console.process.returncode != 130:
                problems.append(f"exit code {console.process.returncode} (expected 130)")
            if any("Traceback" in line for line in said):
                problems.append("a Traceback on its stderr")
            if rest != ["dealer: interrupted (SIGTERM)"]:
                problems.append(f"its shutdown said {rest!r} (expected the one line 'dealer: interrupted (SIGTERM)')")
            if watcher.thread.is_alive():
                problems.append("the watching browser's event stream was still open after the console exited")
            if not console.port_closed():
                problems.append(f"port {console.port} still open after the exit")
        except (ConsoleError, OSError, http.client.HTTPException) as exc:
            problems.append(f"{type(exc).__name__}: {short(str(exc), 300)}")
        finally:
            if console is not None:
                console.kill()
            if watcher is not None:
                watcher.close()
            shutil.rmtree(place, ignore_errors=True)
        if problems:
            out.problems.append(f"instant {k} (SIGTERM {delay:.2f} s after the stop): " + "; ".join(problems))
        else:
            clean += 1
    out.figures.append(f"{clean} of {instants} clean (exit 130 within the bound; after its note 'stopping the run' "
                       "when a run still stopped, the one line 'dealer: interrupted (SIGTERM)'; no Traceback; the "
                       f"watching stream closed; the port closed); {stopping_at_signal} landed while the run was "
                       "still stopping")
    if exits:
        out.figures.append(f"exit {min(exits):.2f} s to {max(exits):.2f} s after SIGTERM; peak memory of these "
                           f"consoles {mb(peak_kb)}")
    out.expect(peak_kb < MEMORY_BOUND_MB * 1024, f"a console's VmHWM {mb(peak_kb)}")
    return out


# --- 8: the console's own files --------------------------------------------------------------------------------

def attack_own_files(console: Console) -> Outcome:
    out = Outcome("8", "the Start page and /api/sources offer no file of the console's own")
    offered = console.call("GET", "/api/sources").json().get("files", [])
    page = console.call("GET", "/start").text
    options = [v for v in re.findall(r'<option value="([^"]*)"', page) if v]
    work = console.workdir
    own = sorted(str(p.relative_to(work)) for p in work.rglob("*")
                 if p.is_file() and (p.parts[len(work.parts)] == ".console" or p.name == "journals.txt"
                                     or ".journal" in p.name or ".sqlite" in p.name or p.name.startswith(".")))
    shown = set(offered) | set(options)
    leaked = sorted(name for name in shown if name in own or "sim-faults" in name or ".console" in name
                    or ".journal" in name or "sqlite" in name)
    out.figures.append(f"{len(offered)} files offered by /api/sources, {len(options)} by the Start page; "
                       f"{len(own)} files of the console's own in its work folder "
                       f"({', '.join(own[:6])}{', ...' if len(own) > 6 else ''})")
    out.expect(not leaked, f"offered: {leaked}")
    out.expect(set(options) == set(offered), "the Start page and /api/sources offer different files: "
                                             f"{sorted(set(options) ^ set(offered))[:5]}")
    chosen = [name for name in own if name.endswith(".json")][:2] + ["../dealer-serve/.console/sim-faults-1.json",
                                                                      "uploads/../.console/sim-faults-1.json"]
    answers = []
    for name in chosen:
        answer = console.post("/api/check", {"source": name, "machines": ["sim-5"]})
        answers.append(answer.status)
        out.expect(refused(answer), f"POST /api/check {{source: {name!r}}}: {answer.status} {short(answer.text)}")
    out.figures.append(f"the console's own files named as a source: {answers}")
    out.expect(bool(own), "no file of the console's own found in its work folder (the attack saw nothing to offer)")
    return out


# --- the run ---------------------------------------------------------------------------------------------------

def run_attack(outcomes: list[Outcome], number: str, title: str, attack: Callable[[], Outcome],
               console: Callable[[], Console | None] = lambda: None) -> None:
    began = time.monotonic()
    try:
        outcome = attack()
    except Exception as exc:  # an attack that breaks off is reported as not held, and the others go on
        broke = f"the attack broke off: {type(exc).__name__}: {short(str(exc), 400)}"
        outcome = Outcome(number, title, problems=[broke])
    watched = console()
    if watched is not None and watched.alive():
        rss, hwm = watched.memory()
        peak = watched.peak_since(began)
        outcome.figures.append(f"{time.monotonic() - began:.1f} s; the console's VmRSS {mb(peak)} at most during the "
                               f"attack, {mb(rss)} after it; VmHWM {mb(hwm)} since it started")
    outcome.show()
    outcomes.append(outcome)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.stress.console_attacks", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="a smaller sample of each attack (fewer uploads and streams, 3 SIGTERM instants)")
    args = p.parse_args(argv)
    bounds = Bounds.read()
    uploads, streams, pin_seconds = (260, 40, 5.0) if args.quick else (800, 200, 15.0)
    moments = [0.0, 0.3, 1.0] if args.quick else [0.0, 0.05, 0.2, 0.5, 1.0, 2.0]
    instants = 3 if args.quick else 20
    machines = ["sim-1", "sim-2", "sim-3", "sim-4"]
    outcomes: list[Outcome] = []
    failures: list[str] = []
    began = time.monotonic()
    main_console: Console | None = None
    with signals_end_the_run(), tempfile.TemporaryDirectory(prefix="console-attacks-") as temp:
        folder = Path(temp)
        try:
            os.environ["DEALER_HISTORY"] = str(folder / "history.sqlite")  # the consoles' own, never this computer's
            from dealer.journal.history import DealHistory

            DealHistory.open(os.environ["DEALER_HISTORY"], create=True).close()
            work = folder / "console" / "dealer-serve"
            work.mkdir(parents=True, mode=0o700)
            deal_files = [generate(work, "attack.pbn", 8), generate(work, "streams.pbn", 64)]
            deal_files += [generate(work, f"stop-{k}.pbn", 64) for k in range(len(moments))]
            stock = folder / "stock"  # the deals of each SIGTERM instant (the deal history knows those dealt)
            stock.mkdir()
            stopping = [generate(stock, f"stopping-{k}.pbn", 64) for k in range(instants)]
            main_console = Console(folder / "console")
            print(f"console: pid {main_console.process.pid}, {main_console.address} (its token and PIN parsed from "
                  f"its terminal), work folder in {folder}; bounds read from docs/bounds.md: {bounds}", flush=True)

            def on(attack: Callable[[Console], Outcome]) -> Callable[[], Outcome]:
                def run() -> Outcome:
                    nonlocal main_console
                    if main_console is None or not main_console.alive():
                        failures.append("the console had ended before an attack: a new one was started")
                        main_console = Console(folder / "console")
                    return attack(main_console)
                return run

            run_attack(outcomes, "1", "plans past a bound", on(lambda c: attack_plan_bounds(c, bounds, "attack.pbn")),
                       lambda: main_console)
            run_attack(outcomes, "2", "bodies past a bound", on(lambda c: attack_bodies(c, bounds, "attack.pbn")),
                       lambda: main_console)
            run_attack(outcomes, "2b", "dotted keys", lambda: attack_dotted_keys(folder, bounds))
            run_attack(outcomes, "3", "uploads", on(lambda c: attack_uploads(c, bounds, uploads)),
                       lambda: main_console)
            run_attack(outcomes, "4", "PIN guessed", on(lambda c: attack_pin(c, bounds, pin_seconds)),
                       lambda: main_console)
            run_attack(outcomes, "4b", "PIN guessed with made-up sessions",
                       on(lambda c: attack_pin_sessions(c, bounds, pin_seconds)), lambda: main_console)
            run_attack(outcomes, "5", "event streams",
                       on(lambda c: attack_streams(c, bounds, "streams.pbn", [f"sim-{k}" for k in range(1, 9)],
                                                   streams)), lambda: main_console)
            run_attack(outcomes, "6", "stop", on(lambda c: attack_stop(c, bounds, [p.name for p in deal_files[2:]],
                                                                       machines, moments)),
                       lambda: main_console)
            run_attack(outcomes, "8", "own files", on(attack_own_files), lambda: main_console)
            console = main_console
            if console is not None:
                console.memory()
                said = console.output()
                tracebacks = sum("Traceback" in line for line in said)
                errors = [line for line in said if re.match(r"(ERROR|Exception|Traceback)", line)]
                print(f"console output: {len(said)} lines, {tracebacks} Traceback(s)"
                      + (f"; first error line: {short(errors[0], 200)!r}" if errors else ""))
                if tracebacks or errors:
                    failures.append(f"the console's terminal shows {tracebacks} Traceback(s) and {len(errors)} error "
                                    "line(s)")
                peak = console.hwm_kb
                took = console.end(signal.SIGINT, timeout=bounds.stop_within + EXIT_MARGIN)
                print(f"memory: the console's VmRSS peaked at {mb(console.rss_peak_kb)} (sampled every 50 ms), "
                      f"VmHWM {mb(peak)} (bound {MEMORY_BOUND_MB} MB); Ctrl-C ended it in "
                      f"{'more than the bound' if took is None else f'{took:.1f} s'}", flush=True)
                if peak >= MEMORY_BOUND_MB * 1024:
                    failures.append(f"the console's peak memory {mb(peak)} passed {MEMORY_BOUND_MB} MB")
                if took is None:
                    failures.append("the console did not end on Ctrl-C within the bound")
            run_attack(outcomes, "7", "SIGTERM",
                       lambda: attack_sigterm(folder, bounds, stopping, machines))
        except KeyboardInterrupt as exc:
            failures.append(f"interrupted ({exc.args[0] if exc.args else 'SIGINT'}): the run is incomplete")
        except ConsoleError as exc:
            failures.append(f"the attacks could not go on: {exc}")
        finally:
            for console in Console.started:
                console.kill()
            left = [c.process.pid for c in Console.started if not group_gone(c.process.pid)]
            open_ports = [c.port for c in Console.started if hasattr(c, "port") and not c.port_closed()]
            print(f"cleanup: {len(Console.started)} consoles started, all ended: {not left}; ports still open: "
                  f"{open_ports or 'none'}; the temporary folder removed next", flush=True)
            if left or open_ports:
                failures.append(f"left behind: process groups {left}, ports {open_ports}")
    if Path(temp).exists():
        failures.append(f"the temporary folder {temp} is still there")
    bad = [o for o in outcomes if o.problems]
    for failure in failures:
        print(f"problem: {failure}")
    print(f"console attacks: {len(outcomes) - len(bad)} of {len(outcomes)} held"
          + (f" (not held: {', '.join(o.number for o in bad)})" if bad else "")
          + f"; {len(failures)} other problem(s); in {time.monotonic() - began:.0f} s")
    return 1 if bad or failures else 0


if __name__ == "__main__":
    sys.exit(main())
