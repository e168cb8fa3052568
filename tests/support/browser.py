"""The system's Chromium for the console's browser tests: where it is, how it is started, and a browser
launched through Playwright. These tests run with ``--system-tools`` (`tests.support.system_tools`): a
Chromium not installed fails them, naming the package."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, sync_playwright

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
