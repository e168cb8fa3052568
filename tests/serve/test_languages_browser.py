"""The console's pages in Russian as a Russian-speaking director's browser shows them (Chromium asking for
ru-RU), at a laptop's and a phone's width: Russian words, nothing wider than the window, every button a
finger's size, a run's board grid and counts in Russian; the renders kept in DEALER_TEST_ARTIFACTS/languages."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect, sync_playwright

from tests.support.artifacts import artifacts_folder
from tests.support.browser import CHROMIUM_ARGS, buttons_fit_a_finger, installed_chromium
from tests.support.serve_room import make_session, served

LONG = 180_000
SIZES = {"laptop": (1280, 800), "phone": (390, 844)}
CYRILLIC = re.compile(r"[А-Яа-яЁё]")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=installed_chromium(), headless=True, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_the_room_start_and_director_pages_in_russian(browser: Browser, tmp_path: Path, size: str,
                                                       tmp_path_factory: pytest.TempPathFactory) -> None:
    folder = artifacts_folder("languages", tmp_path_factory)
    (tmp_path / "work").mkdir()
    make_session(tmp_path / "work", boards=4)
    width, height = SIZES[size]
    with served(tmp_path / "work", "--sim-speed", "200") as console:
        context = browser.new_context(locale="ru-RU", viewport={"width": width, "height": height})
        try:
            page = context.new_page()
            page.goto(console.url("start"))
            expect(page.locator("h1")).to_have_text("Начать раздачу", timeout=LONG)
            assert page.locator("html").get_attribute("lang") == "ru"
            page.select_option("#source", "session.pbn")
            page.locator('input[name="machine"][value="sim-5"]').check()
            buttons_fit_a_finger(page)
            page.screenshot(path=str(folder / f"start-{size}.png"), full_page=True)
            page.click("#check")
            expect(page.locator("#valid")).to_have_text("Можно раздавать.", timeout=LONG)
            page.click("#go")
            page.wait_for_url(console.address, timeout=LONG)
            expect(page.locator("#status")).to_have_text("закончена", timeout=LONG)
            expect(page.locator("#count")).to_have_text("проверено сдач: 4/4", timeout=LONG)
            expect(page.locator("#grid .cell.verified")).to_have_count(4, timeout=LONG)
            legend = page.locator("#legend .cell").all_inner_texts()
            assert legend and all(CYRILLIC.search(word) for word in legend), legend
            heads = page.locator("#machines thead th").all_text_contents()
            assert all(CYRILLIC.search(head) for head in heads), heads
            wide = page.evaluate("document.scrollingElement.scrollWidth")
            assert wide <= width, f"the Room is {wide} px wide in a {width} px window"
            buttons_fit_a_finger(page)
            page.screenshot(path=str(folder / f"room-{size}.png"), full_page=True)
            page.goto(console.address + "director")
            expect(page.locator("h1")).to_have_text("Судья", timeout=LONG)
            buttons_fit_a_finger(page)
            page.screenshot(path=str(folder / f"director-{size}.png"), full_page=True)
            page.click("#languages a[lang=en]")  # the switch: English, remembered
            expect(page.locator("h1")).to_have_text("Director", timeout=LONG)
            page.goto(console.address)
            expect(page.locator("#machines thead th").first).to_have_text("machine", timeout=LONG)
            expect(page.locator("#status")).to_have_text("finished", timeout=LONG)
        finally:
            context.close()


LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
"""An English word: three Latin letters or more (a fault's code, F2, and a machine's name, m1, are shorter)."""
WATCHED = {"machines": "#machines tbody", "faults": "#faults tbody", "figures": "#head", "summary": "#summary"}
"""The Room's parts that tell a run as it deals: what must be in the browser's language."""


def words_of_another_language(page: object, other: re.Pattern[str], leave: tuple[str, ...]) -> dict[str, list[str]]:
    """The lines of the Room's live parts that hold a word of the other language (after leaving out the names
    the run was given: its files, its session, its machines)."""
    found: dict[str, list[str]] = {}
    for part, selector in WATCHED.items():
        text = re.sub(r"\S*\.(?:journal|pbn)\b", "", page.locator(selector).inner_text())  # type: ignore[attr-defined]
        text = re.sub(r"\bSIM-[0-9A-F]{8}\b", "", text)  # a simulated serial: its hex digits are no word
        for name in leave:
            text = text.replace(name, "")
        bad = [line for line in text.splitlines() if other.search(line)]
        if bad:
            found[part] = bad
    return found


@pytest.mark.parametrize(("console", "locale", "other"), [("en", "ru-RU", LATIN_WORD), ("ru", "en-GB", CYRILLIC)],
                         ids=["english-console-russian-browser", "russian-console-english-browser"])
def test_the_live_room_speaks_the_browsers_language_whatever_the_consoles(
        browser: Browser, tmp_path: Path, console: str, locale: str, other: re.Pattern[str],
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """A run with faults on the console's simulated machines, watched by a browser that asks for another
    language than the console's: the machines, the faults, the figures and the summary in the browser's language,
    while the run deals and when it has ended."""
    folder = artifacts_folder("languages", tmp_path_factory)
    (tmp_path / "work").mkdir()
    make_session(tmp_path / "work", boards=16)
    leave = ("session", "m1", "m2")  # the session (named after its file), the machines (their serials go too)
    with served(tmp_path / "work", "--lang", console, "--sim-speed", "50") as served_console:
        context = browser.new_context(locale=locale, viewport={"width": 1280, "height": 800})
        try:
            page = context.new_page()
            page.goto(served_console.url("start"))
            page.select_option("#source", "session.pbn")
            page.locator('input[name="machine"][value="sim-1"]').check()
            page.locator('input[name="machine"][value="sim-2"]').check()
            page.click("#check")
            page.locator("#go:enabled").wait_for(timeout=LONG)
            page.click("#go")
            page.wait_for_url(served_console.address, timeout=LONG)
            expect(page.locator("#faults tbody tr").first).to_be_visible(timeout=LONG)  # faults caught, live
            dealing = words_of_another_language(page, other, leave)
            page.screenshot(path=str(folder / f"live-{console}-console-{locale}.png"), full_page=True)
            finished = {"en": "finished", "ru": "закончена"}[locale[:2]]
            expect(page.locator("#status")).to_have_text(finished, timeout=LONG)
            expect(page.locator("#summary")).not_to_be_empty(timeout=LONG)
            ended = words_of_another_language(page, other, leave)
            page.screenshot(path=str(folder / f"ended-{console}-console-{locale}.png"), full_page=True)
            rows = page.locator("#faults tbody tr").count()
        finally:
            context.close()
    assert rows >= 3, "the run was to catch the simulated machines' faults"
    assert dealing == {}, f"while dealing, words not in the browser's language: {dealing}"
    assert ended == {}, f"at the end, words not in the browser's language: {ended}"
