"""The Director's page in a real browser (Playwright driving the system's Chromium), as a director uses it,
at a laptop's 1280 x 800 and a phone's 390 x 844: locked, unlocked, a board dealt once shown, and a board
dealt by two runs (the deal in it now first, the older one below marked older). Judged from the rendered
page: the hands' boxes stand around the compass, each HCP at its seat, hearts and diamonds red, nothing
scrolls sideways. The screenshots are kept in DEALER_TEST_ARTIFACTS/director (or the test's pytest temporary
folder when that is unset)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from firmware_protocol.labels import BoardLabel
from tests.support.artifacts import artifacts_folder
from tests.support.browser import buttons_fit_a_finger, launched_chromium
from tests.support.processes import ENV
from tests.support.serve_room import Served, served

SIZES = {"laptop": (1280, 800), "phone": (390, 844)}
LONG = 120_000
RED = "rgb(204, 0, 0)"
LONG_SUITS = """[Event "Long suits"]
[Board "1"]
[Dealer "N"]
[Vulnerable "None"]
[Deal "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"]
"""
"""Every hand one 13-card suit: the longest lines a board can have."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with launched_chromium() as launched:
        yield launched


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A console whose work folder saw two runs into set A: 'first' (boards 1-4), then 'second' (boards 1-2,
    so boards 1 and 2 were dealt twice and the boards hold the second run's deals); and a board of four
    13-card suits into set B."""
    work = tmp_path_factory.mktemp("director") / "work"
    work.mkdir()
    for name, boards in (("first", "1-4"), ("second", "1-2")):
        subprocess.run([sys.executable, "-m", "dealer", "generate", "--boards", boards, "--event", name,
                        "-o", str(work / f"{name}.pbn")], env=ENV, check=True, capture_output=True, timeout=60)
    (work / "long.pbn").write_text(LONG_SUITS, encoding="utf-8")
    with served(work, "--sim-speed", "200") as running:
        for name, set_name in (("first", "A"), ("second", "A"), ("long", "B")):
            started = json.loads(running.open("api/start", json.dumps(
                {"source": f"{name}.pbn", "machines": ["sim-3"], "set": set_name}).encode()))
            assert started["ok"], started
            running.open("events?until=end")  # the event stream ends when the run does
        yield running


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return artifacts_folder("director", tmp_path_factory)


def open_page(browser: Browser, console: Served, size: str) -> Page:
    width, height = SIZES[size]
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(console.url("director"))  # the printed address with its token: the browser gets its cookie
    page.wait_for_url(console.address + "director", timeout=LONG)
    return page


def as_shown(page: Page) -> None:
    """Wait until the page a form's submission opened is shown as a person sees it: its stylesheets loaded
    (the text is in the page before /records.css is, and a layout measured then is no one's)."""
    page.wait_for_load_state("load")


def no_sideways_scroll(page: Page) -> None:
    as_shown(page)
    width = page.evaluate("document.documentElement.scrollWidth")
    inner = page.evaluate("window.innerWidth")
    assert width <= inner, f"the page is {width} px wide in a {inner} px window"


def box(page: Page, selector: str) -> dict[str, float]:
    found = page.locator(selector).bounding_box()
    assert found is not None, selector
    return found


def around_the_compass(page: Page, section: str) -> None:
    """The four hands stand around the compass as at the table, each HCP at its own seat in it."""
    as_shown(page)
    hand = {seat: box(page, f"{section} .hand[data-seat={seat}]") for seat in "NESW"}
    compass = box(page, f"{section} .compass")
    assert hand["N"]["y"] + hand["N"]["height"] <= compass["y"] + 1
    assert hand["S"]["y"] >= compass["y"] + compass["height"] - 1
    assert hand["W"]["x"] + hand["W"]["width"] <= compass["x"] + 1
    assert hand["E"]["x"] >= compass["x"] + compass["width"] - 1
    assert hand["N"]["y"] < hand["S"]["y"] and hand["W"]["x"] < hand["E"]["x"]
    hcp = {seat: box(page, f"{section} .compass .hcp[data-seat={seat}]") for seat in "NESW"}
    for seat, where in hcp.items():
        assert compass["x"] <= where["x"] and where["x"] + where["width"] <= compass["x"] + compass["width"] + 1, seat
    assert hcp["N"]["y"] < hcp["W"]["y"] < hcp["S"]["y"] and hcp["N"]["y"] < hcp["E"]["y"] < hcp["S"]["y"]
    centre = {seat: where["x"] + where["width"] / 2 for seat, where in hcp.items()}
    text_of = {seat: page.locator(f"{section} .compass .hcp[data-seat={seat}]").inner_text() for seat in "NESW"}
    assert centre["W"] < centre["N"] < centre["E"] and centre["W"] < centre["S"] < centre["E"], (centre, text_of)
    assert all(text.startswith(seat + " ") for seat, text in text_of.items()), text_of
    caption = box(page, f"{section} .compass .caption")  # the numbers are said to be high-card points
    assert page.locator(f"{section} .compass .caption").inner_text() == "HCP"
    assert hcp["W"]["x"] + hcp["W"]["width"] <= caption["x"] + caption["width"] / 2 - 1  # between W and E,
    assert caption["x"] + caption["width"] / 2 + 1 <= hcp["E"]["x"]                         # over neither
    assert hcp["N"]["y"] + hcp["N"]["height"] <= caption["y"] and caption["y"] + caption["height"] <= hcp["S"]["y"]
    symbols = page.locator(f"{section} .hand .sym")
    colours = symbols.evaluate_all("(els) => els.map(e => [e.textContent, getComputedStyle(e).color])")
    assert len(colours) == 16
    for symbol, colour in colours:
        assert (colour == RED) == (symbol in "♥♦"), (symbol, colour)
    for seat in "NESW":  # no hand runs out of its place into its neighbour or off the screen
        right = hand[seat]["x"] + hand[seat]["width"]
        assert right <= page.evaluate("window.innerWidth"), seat
    overflowing = page.locator(f"{section} .hand").evaluate_all(
        "(els) => els.filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.dataset.seat)")
    assert overflowing == [], overflowing


@pytest.mark.parametrize("size", list(SIZES))
def test_the_director_page_locked_unlocked_and_showing_boards(
        browser: Browser, console: Served, artifacts: Path, size: str) -> None:
    running = console
    page = open_page(browser, running, size)
    try:
        expect(page.locator('input[name="pin"]')).to_be_visible()
        assert page.locator(".board").count() == 0
        no_sideways_scroll(page)
        buttons_fit_a_finger(page)
        page.screenshot(path=str(artifacts / f"locked-{size}.png"), full_page=True)

        page.fill('input[name="pin"]', running.pin)
        page.click("text=Unlock")
        expect(page.locator('input[name="label"]')).to_be_visible(timeout=LONG)
        no_sideways_scroll(page)
        buttons_fit_a_finger(page)
        page.screenshot(path=str(artifacts / f"unlocked-{size}.png"), full_page=True)

        page.fill('input[name="label"]', "A 3")  # dealt by the first run only
        page.click("text=Show")
        expect(page.locator("#board .dealing")).to_have_count(1, timeout=LONG)
        now = page.locator("#board .dealing").first
        expect(now).to_contain_text("In the board now")
        expect(now).to_contain_text("first.pbn")
        expect(now.locator(".info h2")).to_have_text("Board 3")
        expect(now.locator(".info .dealer")).to_have_text("Dealer: South")  # Law 2: board 3, dealer South
        expect(now.locator(".info .vul")).to_have_text("Vul: E-W")
        around_the_compass(page, "#board .dealing.now")
        no_sideways_scroll(page)
        page.screenshot(path=str(artifacts / f"board-{size}.png"), full_page=True)

        page.fill('input[name="label"]', BoardLabel.for_board("A", 1).payload())  # scanned: dealt by both runs
        page.click("text=Show")
        expect(page.locator("#board .dealing")).to_have_count(2, timeout=LONG)
        sections = page.locator("#board .dealing")
        expect(sections.nth(0)).to_have_class("dealing now")
        expect(sections.nth(0)).to_contain_text("In the board now")
        expect(sections.nth(0)).to_contain_text("second.pbn")
        expect(sections.nth(1)).to_have_class("dealing older")
        expect(sections.nth(1)).to_contain_text("Older")
        expect(sections.nth(1)).to_contain_text("first.pbn")
        assert box(page, "#board .dealing.now")["y"] < box(page, "#board .dealing.older")["y"]
        times = sections.evaluate_all("(els) => els.map(e => e.dataset.when)")
        assert times == sorted(times, reverse=True)
        around_the_compass(page, "#board .dealing.now")
        around_the_compass(page, "#board .dealing.older")
        no_sideways_scroll(page)
        page.screenshot(path=str(artifacts / f"dealt-twice-{size}.png"), full_page=True)

        page.fill('input[name="label"]', "B 1")  # four 13-card suits
        page.click("text=Show")
        expect(page.locator("#board .dealing.now .hand[data-seat=E]")).to_contain_text("A K Q J 10 9 8 7 6 5 4 3 2")
        around_the_compass(page, "#board .dealing.now")
        no_sideways_scroll(page)
        page.screenshot(path=str(artifacts / f"long-suits-{size}.png"), full_page=True)
    finally:
        page.close()
