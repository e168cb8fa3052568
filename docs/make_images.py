"""Make the pictures of the guides (docs/images/) again: ``python docs/make_images.py [FOLDER]
[--without-browser] [--lang ru]``.

With ``--lang ru`` every picture is made in Russian (the program's words and the browser's language) into
FOLDER (default docs/images/ru), with the live view at 80 columns too (``live-view-80.svg``, and drawn as
``live-view-80.png`` by the browser).

* ``live-view.svg``: the live view of a dealing run, as a terminal shows it. A small congress is dealt on
  three simulated machines with faults planned, through the same view `dealer deal` uses on a terminal
  (`dealer.cli.live.render_run`); one frame is taken past half-way, when a machine waits for the operator
  (or at 80 %), under the last fault lines printed, and exported with rich (``Console(record=True)``, ``save_svg``). The
  simulated machines run 20 times faster than real ones; the view's clock runs as theirs does, so boards
  per hour and the time left are those of machines at real speed.
* ``hand-records.png``, ``labels.png``: the first page of ``dealer records`` and ``dealer labels`` for a
  session generated from a fixed seed, rendered from the PDF with pypdfium2.
* ``serve-director.png``: the console's Director page (``dealer serve``, driven through its API, seen in
  the system's Chromium at 1280 x 800) showing board 1, dealt by two runs: the deal in it now, the older
  below.
* ``serve-room.png``: the console's Room mid-run (1200 x 900): a 16-board session on its two simulated
  machines with faults, once a fault is listed with its Law and four boards are verified. These two are
  left out, saying so, where no Chromium is installed, or with ``--without-browser``.

Needs the test extras (reportlab, pypdfium2, pillow, playwright).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from rich.console import Console

from dealer.cli import main
from dealer.cli.live import render_run, styled_line
from dealer.dealing import sim_ports
from dealer.dealing.progress import LineKind, ProgressEvent, RunProgress
from dealer.language import _, choose, spoken_language

HERE = Path(__file__).resolve().parent
BROWSER_LOCALE = {"en": "en-GB", "ru": "ru-RU"}
"""The browser's language for the pictures of the console, by the language spoken."""
SPEED = 20.0
SEED = "0123456789abcdef0123456789abcdef01234567"
FAULTS = {
    "M1": [{"kind": "jam", "board": 2, "card": 20}, {"kind": "wrong_board", "insertion": 5}],
    "M2": [{"kind": "misfeed", "board": 2, "card": 11}],
    "M3": [{"kind": "card_falls", "board": 3, "card": 33}],
}


class FrameView:
    """A `ProgressView` that keeps the fault lines and takes one frame of the live view past half-way."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.lines: list[ProgressEvent] = []
        self.taken = False
        self.progress: RunProgress | None = None

    def open(self, progress: RunProgress) -> None:
        start = time.monotonic()
        progress.clock = lambda: start + (time.monotonic() - start) * SPEED  # machine time
        progress.started = progress.clock()
        progress.time_scale = SPEED  # the rates of real machines
        self.progress = progress

    def show(self, event: ProgressEvent) -> None:
        assert self.progress is not None
        if event.kind in (LineKind.FAULT, LineKind.NOTE, LineKind.STOPPED):
            self.lines.append(event)
        done = self.progress.verified / self.progress.total_jobs
        waiting = any(row.last is not None and row.last.kind is LineKind.PROMPT for row in self.progress.rows())
        if not self.taken and (done >= 0.55 and waiting or done >= 0.8):
            self.take()

    def take(self) -> None:
        assert self.progress is not None
        self.taken = True
        for event in self.lines[-6:]:
            self.console.print(styled_line(event))
        self.console.print(render_run(self.progress, self.console.width, self.console.height))

    def close(self) -> None:
        if not self.taken:
            self.take()


def live_view(folder: Path, out: Path, width: int = 118) -> None:
    from dealer.dealing.context import RunLimits
    from dealer.dealing.run import RunOptions
    from dealer.plan import Plan
    from dealer.plan.run import deal_plan

    machines: list[str] = []
    for name, faults in FAULTS.items():
        fault_plan = folder / f"faults-{name}.json"
        fault_plan.write_text(json.dumps({"faults": faults}))
        machines.append(f'[[machines]]\nname = "{name}"\nport = "sim://?speed={SPEED:g}&seed={len(machines) + 1}'
                        f'&faults={fault_plan}"\n')
    (folder / "spring.toml").write_text(
        '[event]\nname = "Spring Congress"\n\n' + "\n".join(machines) +
        '\n[[sessions]]\nname = "FRI1"\nboards = "1-12"\n\n[[sessions.sections]]\nname = "A"\ncopies = 2\n\n'
        '[[sessions.sections]]\nname = "B"\nsets = ["RED", "BLUE"]\n')
    console = Console(record=True, width=width, force_terminal=True, color_system="truecolor", file=io.StringIO())
    view = FrameView(console)
    plan = Plan.load(folder / "spring.toml")
    try:
        deal_plan(plan, RunOptions(ports=[], journal=folder / "spring.journal", view=view, title=plan.event.name,
                                   limits=RunLimits(board_timeout=120, deal_timeout=120), out=io.StringIO()))
    finally:
        sim_ports.stop_all()
    console.save_svg(str(out), title="dealer deal --plan spring.toml")


def first_page_png(pdf: Path, png: Path, scale: float = 1.4) -> None:
    import pypdfium2

    document = pypdfium2.PdfDocument(str(pdf))
    try:
        document[0].render(scale=scale).to_pil().convert("RGB").save(png, optimize=True)
    finally:
        document.close()


def printed(folder: Path, images: Path) -> None:
    session = folder / "tuesday.pbn"
    for args in (["generate", "--boards", "1-16", "--seed", SEED, "--event", "Riverside Tuesday Pairs", "-o",
                  str(session)],
                 ["records", str(session), "-o", str(folder / "records.pdf")],
                 ["labels", "--set", "A", "--boards", "1-16", "-o", str(folder / "labels.pdf")]):
        if main(args) != 0:
            raise SystemExit(f"dealer {' '.join(args)} failed")
    first_page_png(folder / "records.pdf", images / "hand-records.png")
    first_page_png(folder / "labels.pdf", images / "labels.png")


@contextlib.contextmanager
def served_console(work: Path, speed: str) -> Iterator[tuple[str, str, str]]:
    """`dealer serve` on `work` with simulated machines `speed` times faster than real, for the block: its
    address, access token and PIN. Stopped by SIGINT after the block."""
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    serve = subprocess.Popen([sys.executable, "-m", "dealer", "serve", "--port", "0", "--workdir", str(work),
                              "--sim-speed", speed], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert serve.stderr is not None
        lines = [serve.stderr.readline() for _ in range(3)]
        found = re.search(r"(http://\S+/)\?token=(\S+)", lines[0])  # (its words are the language spoken)
        pin = re.search(r"PIN\D*(\d{6,})", lines[1])
        if not (found and pin):
            raise SystemExit(f"dealer serve did not start: {lines}")
        yield found[1], found[2], pin[1]
    finally:
        os.killpg(serve.pid, signal.SIGINT)
        serve.wait(timeout=120)
        if serve.stderr is not None:
            serve.stderr.close()


def ask(address: str, token: str, path: str, body: dict[str, object] | None = None) -> None:
    """One request to the console's API (a POST with `body`), read to its end."""
    request = urllib.request.Request(address + path, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"Bearer {token}", "content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=300) as answer:
            answer.read()
    except urllib.error.HTTPError as refused:
        raise SystemExit(f"the console refused {path}: {refused.read().decode(errors='replace')}") from None


def chromium() -> str | None:
    """The system's Chromium; None (saying which picture is not made) where there is none."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def director_page(folder: Path, png: Path, browser: str) -> None:
    """The Director's page with board 1 of set A dealt by two runs."""
    from playwright.sync_api import sync_playwright

    work = folder / "console"
    work.mkdir()
    for name, boards, seed in (("monday", "1-4", SEED), ("tuesday", "1-2", SEED[::-1])):
        if main(["generate", "--boards", boards, "--seed", seed, "--event", f"{name.title()} Pairs",
                 "-o", str(work / f"{name}.pbn")]) != 0:
            raise SystemExit(f"dealer generate {name} failed")
    with served_console(work, "200") as (address, token, pin):
        for name in ("monday", "tuesday"):
            ask(address, token, "api/start", {"source": f"{name}.pbn", "machines": ["sim-3"], "set": "A"})
            ask(address, token, "events?until=end")
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=browser, headless=True,
                                                  args=["--headless", "--no-sandbox", "--disable-gpu"])
            page = chromium.new_page(viewport={"width": 1280, "height": 800}, locale=BROWSER_LOCALE[spoken_language()])
            page.goto(f"{address}director?token={token}")
            page.fill('input[name="pin"]', pin)
            page.click(f"text={_('Unlock')}")
            page.fill('input[name="label"]', "A 1")
            page.click(f"text={_('Show')}")
            page.wait_for_selector("#board .dealing.older")
            page.screenshot(path=str(png), full_page=True)
            chromium.close()


def room_page(folder: Path, png: Path, browser: str) -> None:
    """The Room mid-run: a 16-board session on two simulated machines with faults, taken once a fault is
    listed with its Law and four boards or more are verified, at an instant when the count, the grid and the
    machines' rows agree."""
    from playwright.sync_api import expect, sync_playwright

    work = folder / "room"
    work.mkdir()
    if main(["generate", "--boards", "1-16", "--seed", SEED[20:] + SEED[:20], "--event", "Club Pairs",
             "-o", str(work / "session.pbn")]) != 0:
        raise SystemExit("dealer generate failed")
    with served_console(work, "10") as (address, token, _pin), sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=browser, headless=True,
                                              args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = chromium.new_page(viewport={"width": 1200, "height": 900}, locale=BROWSER_LOCALE[spoken_language()])
        page.goto(f"{address}?token={token}")
        ask(address, token, "api/start", {"source": "session.pbn", "machines": ["sim-1", "sim-2"]})
        law = _("Law {number}").split("{")[0].strip()
        expect(page.locator("#faults td.law").filter(has_text=law).first).to_be_visible(timeout=300_000)
        # a settled instant: the count, the grid and the machines' rows agree (events arrive one by one)
        settled = r"""() => {
            const count = parseInt((document.querySelector('#count').textContent.match(/\d+/) || ["0"])[0], 10);
            const green = document.querySelectorAll('#grid .cell[data-state="verified"]').length;
            const rows = [...document.querySelectorAll('#machines tbody tr')]
                .map(row => parseInt(row.cells[4].textContent, 10) || 0).reduce((a, b) => a + b, 0);
            return count >= 4 && count === green && count === rows;
        }"""
        deadline = time.monotonic() + 300  # polled from here: a wait run in the page would need eval, which
        while not page.evaluate(settled):  # the console's Content-Security-Policy forbids
            if time.monotonic() > deadline:
                raise TimeoutError("the Room never settled with four boards verified")
            page.wait_for_timeout(100)
        page.screenshot(path=str(png))
        chromium.close()
        ask(address, token, "api/stop", {})


def svg_png(svg: Path, png: Path, browser: str) -> None:
    """An SVG drawn as a PNG by the browser (its fonts: the terminal's letters), to be looked at where SVG is
    not shown."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=browser, headless=True,
                                              args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = chromium.new_page(viewport={"width": 1100, "height": 700})
        page.goto(svg.absolute().as_uri())
        page.locator("svg").screenshot(path=str(png))
        chromium.close()


def make(images: Path, browser_pages: bool = True) -> list[Path]:
    """Make every picture into `images` (the console's pages only if `browser_pages`), in the language
    spoken; the files written."""
    images.mkdir(parents=True, exist_ok=True)
    names = ["live-view.svg", "hand-records.png", "labels.png"]
    with tempfile.TemporaryDirectory(prefix="dealer-images-") as work:
        live_view(Path(work), images / "live-view.svg")
        browser = chromium() if browser_pages else None
        if spoken_language() != "en":
            (Path(work) / "narrow").mkdir()
            live_view(Path(work) / "narrow", images / "live-view-80.svg", width=80)
            names.append("live-view-80.svg")
            if browser is not None:
                svg_png(images / "live-view-80.svg", images / "live-view-80.png", browser)
                names.append("live-view-80.png")
        printed(Path(work), images)
        if not browser_pages:
            print("without the browser: serve-director.png and serve-room.png are not made")
        elif browser is None:
            print("no browser: serve-director.png and serve-room.png are not made (apt-get install chromium)")
        else:
            director_page(Path(work), images / "serve-director.png", browser)
            room_page(Path(work), images / "serve-room.png", browser)
            names += ["serve-director.png", "serve-room.png"]
    return [images / name for name in names]


if __name__ == "__main__":
    arguments = [a for a in sys.argv[1:] if a != "--without-browser"]
    language = None
    if "--lang" in arguments:
        at = arguments.index("--lang")
        language = arguments[at + 1]
        del arguments[at:at + 2]
    choose(language)  # the program's words; the browser asks for the same language
    default = HERE / "images" / language if language and language != "en" else HERE / "images"
    for path in make(Path(arguments[0]) if arguments else default, "--without-browser" not in sys.argv):
        print(f"wrote {path}")
