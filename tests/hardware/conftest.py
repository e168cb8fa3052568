"""Bench tests: every one is checked for leaked threads, fds, ptys and loopbacks (the simulator's pty
included, when it stands in for the machine)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _no_leaks(hil_leak_check: None) -> Iterator[None]:
    yield
