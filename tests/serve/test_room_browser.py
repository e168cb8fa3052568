"""The console in a real browser (Playwright driving the system's Chromium), as a director uses it: the
console started as a command, a 16-board session on two simulated machines with faults started from the
Start page by clicking, the room watched until every board is verified, a fault seen with its Law, a
reload mid-run that restores the room, no card on any page, and the report downloaded. The browser gets
in through the address printed with its token, as the operator opens it. The room mid-run is kept in
DEALER_TEST_ARTIFACTS/room-run (the README's picture of it is made by docs/make_images.py)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, expect, sync_playwright

from tests.support.artifacts import artifacts_folder
from tests.support.browser import CHROMIUM_ARGS, installed_chromium
from tests.support.serve_room import cards_in, hands_of, make_session, served

LONG = 180_000
"""Milliseconds a page condition may take (a slow, shared machine): generous, never a sleep."""


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[BrowserContext]:
    executable = installed_chromium()
    profile = tmp_path / "profile"
    profile.mkdir()
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile), executable_path=executable, headless=True, args=CHROMIUM_ARGS, accept_downloads=True,
            viewport={"width": 1200, "height": 900})
        try:
            yield context
        finally:
            context.close()


def test_a_session_is_started_watched_and_reported_in_the_browser_with_no_card_shown(
        browser: BrowserContext, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    (tmp_path / "work").mkdir()
    session = make_session(tmp_path / "work")  # the operator puts the session in the console's work folder
    hands = hands_of(session)
    with served(tmp_path / "work", "--sim-speed", "10") as console:
        page = browser.new_page()
        page.goto(console.url("start"))  # the address printed, with its token: the browser gets its cookie
        page.wait_for_url(console.address + "start", timeout=LONG)
        page.select_option("#source", "session.pbn")
        page.locator('input[name="machine"][value="sim-1"]').check()  # simulated machine 1, with faults
        page.locator('input[name="machine"][value="sim-2"]').check()  # simulated machine 2, with faults
        page.click("#check")
        expect(page.locator("#valid")).to_be_visible(timeout=LONG)
        assert cards_in(page.content(), hands) == []
        page.click("#go")
        page.wait_for_url(console.address, timeout=LONG)

        laws = page.locator("#faults td.law").filter(has_text="Law")
        expect(laws.first).to_be_visible(timeout=LONG)
        expect(page.locator('#grid .cell[data-state="verified"]').nth(3)).to_be_visible(timeout=LONG)
        expect(page.locator("#status")).to_have_text("dealing")
        page.screenshot(path=str(artifacts_folder("room-run", tmp_path_factory) / "mid-run.png"))
        faults_seen = page.locator("#faults tbody tr").count()
        assert cards_in(page.content(), hands) == []

        page.reload()  # mid-run: the room comes back whole from the console's snapshot
        expect(page.locator("#grid .cell")).to_have_count(16, timeout=LONG)
        expect(page.locator("#machines tbody tr")).to_have_count(2, timeout=LONG)
        assert page.locator("#faults tbody tr").count() >= faults_seen
        expect(page.locator("#status")).to_have_text("dealing")

        expect(page.locator('#grid .cell[data-state="verified"]')).to_have_count(16, timeout=LONG)
        expect(page.locator("#message")).to_have_text("every board verified", timeout=LONG)
        expect(page.locator("#status")).to_have_text("finished")
        assert page.locator("#faults td.law").filter(has_text="Law 13A1").count() >= 1  # machine 2's misfed card
        assert cards_in(page.content(), hands) == []

        for path in ("start", "director", "report"):
            page.goto(console.address + path)
            assert cards_in(page.content(), hands) == [], path
        expect(page.locator("#report svg").first).to_be_visible()  # the charts, drawn inline
        with page.expect_download() as download:
            page.click("#csv")
        saved = tmp_path / "report.csv"
        download.value.save_as(saved)
        rows = list(csv.DictReader(io.StringIO(saved.read_text(encoding="utf-8"))))
        verified = [r for r in rows if r["table"] == "machine" and r["item"] == "boards verified"]
        assert sum(int(r["value"]) for r in verified) == 16, rows[:20]
