"""What the duplication-room console costs the server, and how late the browser shows an event.

Run from the project root: ``python benchmarks/serve.py [--machines 8] [--boards-each 12] [--speed 50]
[--quick]``. The simulated machines run in a process of their own (``benchmarks/_support.py serve``), so
this process's CPU time (every thread) is the host's alone: the dealing run and, for ours, the console.
The same session (same deals, same machines) is dealt twice, in this order:

* baseline ``plain terminal view``: `dealer.dealing.run.deal_session` with the plain view (one line an
  event, into memory), as ``dealer deal --plain`` shows a run;
* ours: the console (`dealer.serve`, uvicorn in a thread of this process) started by its API, with one
  server-sent-event reader in this process and, where a browser can be started, the Room open in
  Chromium (the system's, driven by Playwright; its CPU is the browser's own process, not counted).

Figures: **server CPU per event** (this process's CPU time over the run / the run's progress events),
ours beside the baseline's; the dealing run itself costs about 2 ms an event (journal, checks, recounts),
so the goal of 1 ms is held against the console's own share (ours less the baseline, per event);
**event to screen** in the browser: for each message, the time the page's next
animation frame after applying it ran, less the time stamped in the message when it was published
(one clock: the same computer), median and 95th percentile against the goal of 250 ms.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from _support import Simulators, header, median, random_deals  # the project root on sys.path too

from dealer import formats
from dealer.core.dealset import DealSet
from dealer.dealing.context import RunLimits
from dealer.dealing.progress import PlainView
from dealer.dealing.run import RunOptions, deal_session
from dealer.journal.history import DealHistory

CPU_GOAL = 0.001
LATENCY_GOAL = 0.250
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


class CountingPlain(PlainView):
    """The plain view, counting its events."""

    def __init__(self) -> None:
        super().__init__(io.StringIO())
        self.events = 0

    def show(self, event: Any) -> None:
        self.events += 1
        super().show(event)


def plain_run(ports: list[str], deals: DealSet, folder: Path) -> tuple[float, float, int]:
    """(wall s, CPU s, events) of the session under the plain view."""
    view = CountingPlain()
    DealHistory.open(folder / "plain-history.sqlite", create=True).close()
    options = RunOptions(ports=ports, journal=folder / "plain.journal", view=view, out=io.StringIO(),
                         history=folder / "plain-history.sqlite",
                         limits=RunLimits(board_timeout=120, deal_timeout=120))
    t0, c0 = time.monotonic(), time.process_time()
    result = deal_session(deals, str(folder / "plain.pbn"), options)
    wall, cpu = time.monotonic() - t0, time.process_time() - c0
    assert result.complete, result.summary
    return wall, cpu, view.events


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


TOKEN = "benchmark-token"


def start_console(folder: Path, ports: list[str]) -> tuple[Any, Any, str, threading.Thread]:
    """The console in a thread of this process, offering the machines at `ports` (ids m1, m2, ...): (its
    uvicorn server, its app, address, thread)."""
    import uvicorn

    from dealer.serve.app import build_app
    from dealer.serve.auth import Access

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    app = build_app(folder / "work", Access(TOKEN, frozenset({"127.0.0.1", "localhost"})), "00000000",
                    extra_machines={f"m{k}": url for k, url in enumerate(ports, start=1)})
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                                           timeout_graceful_shutdown=2))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    return server, app, f"http://127.0.0.1:{sock.getsockname()[1]}/", thread


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json", "Authorization": f"Bearer {TOKEN}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            result: dict[str, Any] = json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        result = json.loads(exc.read())
    return result


READER = """
import json, sys, urllib.request
count = 0
request = urllib.request.Request(sys.argv[1] + "events?until=end", headers={"Authorization": "Bearer " + sys.argv[2]})
with urllib.request.urlopen(request, timeout=600) as stream:
    for line in stream:
        if line.startswith(b"data: "):
            count += len(json.loads(line[6:]))
print(count)
"""
"""A second watcher, in a process of its own (a client's CPU is not the server's): reads the event stream
to the end of the run and prints how many messages it got."""


def console_run(ports: list[str], deals: DealSet, folder: Path, browser: bool) -> dict[str, Any]:
    """Our figures: wall, CPU, progress events, messages published, and the browser's latencies."""
    source = folder / "work" / "console.pbn"
    source.parent.mkdir(parents=True, exist_ok=True)
    formats.write_file(source, deals, force=True)
    server, app, address, thread = start_console(folder, ports)
    shown: list[list[float]] = []
    try:
        with _browser(browser) as page:
            if page is not None:
                page.goto(f"{address}?token={TOKEN}")
                page.wait_for_selector("#status")
            t0, c0 = time.monotonic(), time.process_time()
            started = post(address + "api/start", {"source": source.name,
                                                   "machines": [f"m{k}" for k in range(1, len(ports) + 1)]})
            assert started.get("ok"), started
            reader = subprocess.Popen([sys.executable, "-c", READER, address, TOKEN], stdout=subprocess.PIPE, text=True)
            app.state.console.runs.wait()
            wall, cpu = time.monotonic() - t0, time.process_time() - c0
            read, _ = reader.communicate(timeout=120)
            assert int(read) > 0
            live = app.state.console.runs.current
            assert live.status == "finished", (live.status, live.message)
            if page is not None:
                from playwright.sync_api import expect  # a locator's wait runs under the page's CSP (no eval)

                expect(page.locator("#status")).to_have_text("finished", timeout=120_000)
                shown = page.evaluate("window.dealerShown")
        return {"wall": wall, "cpu": cpu, "events": live.view.events, "published": app.state.console.hub.seq,
                "shown": shown}
    finally:
        app.state.console.hub.close_all()
        server.should_exit = True
        thread.join(30)


class _browser:
    """The Room's page in the system's Chromium, or None where there is none (or it is not wanted)."""

    def __init__(self, wanted: bool) -> None:
        self.wanted = wanted
        self._pw: Any = None
        self._context: Any = None
        self._profile: str | None = None

    def __enter__(self) -> Any:
        executable = chromium()
        if not self.wanted or executable is None:
            return None
        from playwright.sync_api import sync_playwright

        self._profile = tempfile.mkdtemp(prefix="serve-bench-profile-")
        self._pw = sync_playwright().start()
        self._context = self._pw.chromium.launch_persistent_context(
            self._profile, executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        return self._context.new_page()

    def __exit__(self, *exc: object) -> None:
        if self._context is not None:
            self._context.close()
            self._pw.stop()
        if self._profile is not None:
            shutil.rmtree(self._profile, ignore_errors=True)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--machines", type=int, default=8)
    parser.add_argument("--boards-each", type=int, default=12)
    parser.add_argument("--speed", type=float, default=50.0)
    parser.add_argument("--repeats", type=int, default=3, help="runs of each, in turn (medians)")
    parser.add_argument("--no-browser", action="store_true", help="measure the server alone")
    parser.add_argument("--quick", action="store_true", help="2 machines, 3 boards each, one run (a smoke run)")
    args = parser.parse_args()
    if args.quick:
        args.machines, args.boards_each, args.repeats = 2, 3, 1
    boards = args.machines * args.boards_each
    browser = not args.no_browser and chromium() is not None
    seen = f"Chromium ({chromium()})" if browser else "none (no browser: latency not measured)"
    header("dealer serve: server CPU per event and event-to-screen latency",
           {"plain terminal view": "the same session dealt by deal_session with the plain view (dealer deal "
                                   "--plain), no console"},
           f"{args.machines} simulated machines at speed {args.speed:g}, {boards} boards, the simulators in their "
           f"own process, {args.repeats} run(s) of each in turn (medians); browser: {seen}")
    deals = DealSet.from_deals(random_deals(7, boards), list(range(1, boards + 1)))
    plain: list[tuple[float, float, int]] = []
    ours: list[dict[str, Any]] = []
    for k in range(args.repeats):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            os.environ["DEALER_HISTORY"] = str(folder / "history.sqlite")  # benchmark deals: not this computer's
            DealHistory.open(folder / "history.sqlite", create=True).close()
            sims = Simulators(args.machines, args.speed, folder / "sims-plain")
            try:
                plain.append(plain_run(sims.ports, deals, folder))
            finally:
                sims.stop()
            sims = Simulators(args.machines, args.speed, folder / "sims-console")
            try:
                ours.append(console_run(sims.ports, deals, folder, browser))
            finally:
                sims.stop()
        p_wall, p_cpu, p_events = plain[-1]
        print(f"  run {k + 1}: plain view CPU {p_cpu:.2f} s for {p_events} events; console CPU {ours[-1]['cpu']:.2f} s "
              f"for {ours[-1]['events']} events", flush=True)
    p_per = median([cpu / events for _, cpu, events in plain])
    o_per = median([o["cpu"] / o["events"] for o in ours])
    share = o_per - p_per
    print()
    print(f"plain terminal view   {median([c for _, c, _ in plain]):.2f} s CPU, {plain[0][2]} events: "
          f"{p_per * 1e3:.3f} ms CPU per event (the dealing run alone)")
    print(f"console (ours)        {median([o['cpu'] for o in ours]):.2f} s CPU, {ours[0]['events']} events "
          f"({ours[0]['published']} messages published): {o_per * 1e3:.3f} ms CPU per event (the run and the console)")
    print(f"console's own share   {share * 1e3:.3f} ms CPU per event (ours less the baseline; goal <= "
          f"{CPU_GOAL * 1e3:.0f} ms: {'met' if share <= CPU_GOAL else 'MISSED'})")
    late = [s - t for o in ours for _, t, s in o["shown"]]
    if late:
        p50, p95 = percentile(late, 0.5), percentile(late, 0.95)
        print(f"event to screen       {len(late)} messages: median {p50 * 1e3:.0f} ms, 95th percentile "
              f"{p95 * 1e3:.0f} ms, max {max(late) * 1e3:.0f} ms (goal <= {LATENCY_GOAL * 1e3:.0f} ms at the 95th "
              f"percentile: {'met' if p95 <= LATENCY_GOAL else 'MISSED'})")
    else:
        print("event to screen       not measured (no browser)")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
