"""The leak check itself catches what it is meant to catch."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from hil.loopback import Loopback
from hil.pytest_plugin import no_leaks


def test_a_clean_block_passes() -> None:
    with no_leaks():
        Loopback().close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fds are listed from /proc")
def test_a_pty_left_open_is_caught() -> None:
    fds: tuple[int, int] = (-1, -1)
    with pytest.raises(AssertionError, match="file descriptors left open"), no_leaks():
        fds = os.openpty()
    for fd in fds:
        os.close(fd)


def test_a_thread_left_running_is_caught() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, name="left-behind")
    with pytest.raises(AssertionError, match="left-behind"), no_leaks(grace=0.05):
        thread.start()
    stop.set()
    thread.join()


def test_a_loopback_left_open_is_caught() -> None:
    loop = None
    with pytest.raises(AssertionError, match="loopback"), no_leaks():
        loop = Loopback()
    assert loop is not None
    loop.close()
