"""The Start page and the Room in a real browser (Playwright driving the system's Chromium) in each state a
director meets: idle, a check with problems, a run dealing with faults (simulated machines with the demo's
fault plans), stopped from the Room, resumed from the Room, finished. Two windows watch one console, a
laptop's 1280 x 800 and a phone's 390 x 844, and each state is judged in both from the rendered page: the
earlier faults still listed after the stop and the resume, the whole run's figures (every part's boards,
per machine as the journal counts them), the command line that resumes, no sideways scrolling, no
"named cards" in a blind run. Screenshots are kept in DEALER_TEST_ARTIFACTS/room (or the test's temporary
folder); every wait is on a state of the page, never on the clock."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from dealer.journal.store import JobState, Journal
from tests.support.artifacts import artifacts_folder
from tests.support.browser import buttons_fit_a_finger, launched_chromium
from tests.support.serve_room import Served, cards_in, hands_of, make_session, served

SIZES = {"laptop": (1280, 800), "phone": (390, 844)}
LONG = 180_000
"""Milliseconds a page condition may take (a slow, shared machine): generous, never a sleep."""


@pytest.fixture
def browser() -> Iterator[Browser]:
    with launched_chromium() as launched:
        yield launched


@pytest.fixture
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return artifacts_folder("room", tmp_path_factory)


class Windows:
    """One page a window size, on the same console; each state judged and photographed in both."""

    def __init__(self, browser: Browser, console: Served, folder: Path, hands: list[str], work: Path) -> None:
        self.console = console
        self.work = work
        self.folder = folder
        self.hands = hands
        self.pages: dict[str, Page] = {}
        for size, (width, height) in SIZES.items():
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(console.url(""))  # the printed address with its token: the browser gets its cookie
            page.wait_for_url(console.address, timeout=LONG)
            self.pages[size] = page

    def goto(self, path: str) -> None:
        for page in self.pages.values():
            page.goto(self.console.address + path)

    def each(self) -> Iterator[tuple[str, Page]]:
        yield from self.pages.items()

    def looked_at(self, state: str) -> None:
        """What holds in every state, in both windows; then the screenshots."""
        for size, page in self.each():
            text = page.inner_text("body")
            assert "named cards" not in text, (state, size)  # a blind run names no card
            assert cards_in(page.content(), self.hands) == [], (state, size)
            assert str(self.work) not in text, (state, size)  # the server's folders are not shown
            wide = page.evaluate("document.scrollingElement.scrollWidth")
            inner = page.evaluate("window.innerWidth")
            assert wide <= inner, f"{state}: the page is {wide} px wide in a {inner} px window ({size})"
            buttons_fit_a_finger(page)
            page.screenshot(path=str(self.folder / f"{state}-{size}.png"), full_page=True)


def fault_rows(page: Page) -> list[str]:
    """The faults list as the page shows it, a line a fault."""
    rows: list[str] = page.locator("#faults tbody tr").evaluate_all(
        "(rows) => rows.map(r => Array.from(r.cells).map(c => c.textContent).join(' | '))")
    return rows


def machines_verified(page: Page) -> dict[str, int]:
    """Each machine's boards verified, read from the machines table as shown."""
    found: dict[str, int] = {}
    for row in page.locator("#machines tbody tr").all():
        cells = row.locator("td").all_text_contents()
        found[cells[0]] = int(cells[4])
    return found


def count_shown(page: Page) -> tuple[int, int]:
    match = re.fullmatch(r"(\d+)/(\d+) boards verified", page.locator("#count").inner_text())
    assert match, page.locator("#count").inner_text()
    return int(match.group(1)), int(match.group(2))


def test_start_and_room_in_every_state_at_a_laptop_and_a_phone(browser: Browser, tmp_path: Path,
                                                              artifacts: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    session = make_session(work)
    with served(work, "--sim-speed", "20") as console:
        windows = Windows(browser, console, artifacts, hands_of(session), work)

        # idle: no run yet
        for _, page in windows.each():
            expect(page.locator("#status")).to_have_text("idle", timeout=LONG)
            expect(page.locator("#stop")).to_be_disabled()
            expect(page.locator("#resume")).to_be_disabled()
        windows.looked_at("room-idle")
        windows.goto("start")
        windows.looked_at("start-idle")

        # a check with problems: the board set breaks the label rule, which Start and dealer deal apply too
        for _, page in windows.each():
            page.select_option("#source", "session.pbn")
            page.locator('input[name="machine"][value="sim-1"]').check()
            page.locator('input[name="machine"][value="sim-2"]').check()
            page.fill("#set", "A!!")
            page.click("#check")
            expect(page.locator("#invalid")).to_be_visible(timeout=LONG)
            expect(page.locator(".problems li").first).to_contain_text("board set name 'A!!'")
            expect(page.locator("#go")).to_be_disabled()
            assert page.locator("#replay").is_visible()  # the choice the Law 6D2 advice names
        windows.looked_at("start-check-problems")

        # running with faults: started by clicking, watched in both windows
        laptop, phone = windows.pages["laptop"], windows.pages["phone"]
        laptop.fill("#set", "A")
        laptop.click("#check")
        expect(laptop.locator("#valid")).to_be_visible(timeout=LONG)
        laptop.click("#go")
        laptop.wait_for_url(console.address, timeout=LONG)
        phone.goto(console.address)
        for _, page in windows.each():
            expect(page.locator("#faults tbody tr").first).to_be_visible(timeout=LONG)
            expect(page.locator("#status")).to_have_text(re.compile("dealing|stopping"), timeout=LONG)
        windows.looked_at("room-dealing-with-faults")

        # stopped from the phone's Room: what happened and how to go on
        phone.click("#stop")
        for _, page in windows.each():
            expect(page.locator("#status")).to_have_text("stopped", timeout=LONG)
            expect(page.locator("#next")).to_be_visible(timeout=LONG)
            expect(page.locator("#resume")).to_be_enabled()
            expect(page.locator("#command")).to_have_text(re.compile(r"^dealer deal session\.pbn --port .* --resume$"))
            assert "planned" not in page.locator("#head").inner_text()  # no list of the boards left
        verified_at_stop, total = count_shown(laptop)
        assert 0 < verified_at_stop < total == 16
        faults_at_stop = fault_rows(laptop)
        machines_at_stop = machines_verified(laptop)
        assert faults_at_stop and sum(machines_at_stop.values()) == verified_at_stop
        assert fault_rows(phone) == faults_at_stop
        windows.looked_at("room-stopped")
        windows.goto("start")
        for _, page in windows.each():
            assert "Ready to deal" not in page.inner_text("body")
        windows.goto("")
        for _, page in windows.each():
            expect(page.locator("#status")).to_have_text("stopped", timeout=LONG)

        # resumed from the laptop's Room: the earlier faults and the whole run's figures stay
        laptop.click("#resume")
        for _, page in windows.each():
            expect(page.locator("#status")).to_have_text(re.compile("dealing|finished"), timeout=LONG)
            expect(page.locator("#next")).to_be_hidden()
            assert fault_rows(page)[:len(faults_at_stop)] == faults_at_stop
            assert count_shown(page)[0] >= verified_at_stop  # the whole run's count, not the resumed part's
            shown = machines_verified(page)
            assert all(shown.get(m, 0) >= n for m, n in machines_at_stop.items()), (shown, machines_at_stop)
        windows.looked_at("room-resumed")

        # finished: every board of both parts, per machine as the journal counts them
        for _, page in windows.each():
            expect(page.locator("#status")).to_have_text("finished", timeout=LONG)
            expect(page.locator("#count")).to_have_text("16/16 boards verified", timeout=LONG)
            expect(page.locator("#rate")).to_contain_text("boards/hour", timeout=LONG)
        with Journal.open_read_only(str(session) + ".journal") as journal:
            verified = [r for r in journal.events(1) if r.state is JobState.VERIFIED]
        per_machine = {m: sum(1 for r in verified if r.machine == m) for m in {r.machine for r in verified}}
        for size, page in windows.each():
            expect(page.locator("#machines tbody tr")).to_have_count(len(per_machine), timeout=LONG)
            assert machines_verified(page) == per_machine, size
            assert fault_rows(page)[:len(faults_at_stop)] == faults_at_stop, size
            expect(page.locator("#next")).to_be_hidden()
        windows.looked_at("room-finished")

        # the Start page's Stop with no run dealing says so, in red, and never "Ready to deal."
        windows.goto("start")
        for _, page in windows.each():
            page.click("#stop")
            expect(page.locator("#said.problem")).to_have_text("no run is dealing", timeout=LONG)
            assert "Ready to deal" not in page.inner_text("body")
        windows.looked_at("start-stop-with-no-run")
        windows.goto("report")  # the report's charts and tables at a phone's width too
        for size, page in windows.each():
            expect(page.locator("#report svg").first).to_be_visible(timeout=LONG)
            expect(page.locator("#report table.bars tr").first).to_be_visible(timeout=LONG)
            # every word of the charts as a person reads it: at least 10 px high, at a phone's width too
            heights = page.locator("#report svg text, #report table.bars th").evaluate_all(
                "(els) => els.map(e => [e.textContent, e.getBoundingClientRect().height])")
            small = [(text, round(h, 1)) for text, h in heights if h < 10]
            assert heights and small == [], (size, small)
        windows.looked_at("report-finished")


def test_copies_read_as_copies_not_as_board_numbers(browser: Browser, tmp_path: Path, artifacts: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    session = make_session(work, boards=4)
    with served(work, "--sim-speed", "200") as console:
        started = json.loads(console.open("api/start", json.dumps(
            {"source": "session.pbn", "machines": ["sim-5"], "copies": 2}).encode()))
        assert started["ok"], started
        windows = Windows(browser, console, artifacts, hands_of(session), work)
        for size, page in windows.each():
            expect(page.locator("#status")).to_have_text("finished", timeout=LONG)
            expect(page.locator("#grid .cell")).to_have_count(8, timeout=LONG)
            headings = page.locator("#grid h3").all_inner_texts()
            assert headings == ["session · set A1", "session · set A2 · copy 2"], (size, headings)
            for group in page.locator("#grid .set").all():  # each cell a board number, each group a copy
                assert group.locator(".cell").all_inner_texts() == ["1", "2", "3", "4"], size
            titles = page.locator("#grid .cell").evaluate_all("(cells) => cells.map(c => c.title)")
            assert "board 3, copy 2: verified" in titles and "board 3: verified" in titles, titles
        windows.looked_at("room-two-copies")
