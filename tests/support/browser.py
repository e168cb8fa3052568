"""The system's Chromium for the console's browser tests: where it is, how it is started, a browser launched
through Playwright, and what every page owes a person (buttons a finger can hit). These tests run with
``--system-tools`` (`tests.support.system_tools`): a Chromium not installed fails them, naming the package."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.support.system_tools import missing

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium() -> str | None:
    """The operating system's Chromium (Debian's package), if installed."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    return found or ("/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None)


def installed_chromium() -> str:
    """The system's Chromium, or the calling test failed naming the package to install."""
    executable = chromium()
    if executable is None:
        pytest.fail(missing("the system's Chromium", ("chromium",)))
    return executable


@contextlib.contextmanager
def launched_chromium() -> Iterator[Browser]:
    """A headless Chromium for the block, closed after it."""
    executable = installed_chromium()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


FINGER_PX = 40
"""The height a button needs to be hit by a finger on a phone (the usual guidance is 44 to 48 CSS px; the
page's own 2.5em of 16 px is 40)."""


def buttons_fit_a_finger(page: Page) -> None:
    """Every button shown is written at the page's size (not the browser's smaller default) and is a
    finger's height."""
    shown = page.locator("button:visible").evaluate_all(
        "(els) => els.map(e => [e.textContent.trim(), e.getBoundingClientRect().height,"
        " getComputedStyle(e).fontSize, getComputedStyle(document.body).fontSize])")
    for text, height, size, body in shown:
        assert size == body and height >= FINGER_PX, (text, height, size, body)
