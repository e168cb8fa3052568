"""The signal handler of every command (`dealer.cli.signals.stopping_on_signals`), in this process."""

from __future__ import annotations

import os
import signal
import time
import weakref

import pytest

from dealer.cli.signals import stopping_on_signals
from dealer.core.errors import Interrupted


class Held:
    """Something a weak reference watches."""


def test_a_signal_whose_exception_python_drops_in_a_callback_still_stops_the_command(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Python runs the handler at the main thread's next instruction; inside a weak reference's callback (an
    import releasing its lock is one) the exception raised there is printed and dropped. The signal must still
    stop the command: it is raised again once the callback has returned, and nothing is printed."""
    raised_in_callback: list[bool] = []

    def callback(_: weakref.ref[Held]) -> None:
        os.kill(os.getpid(), signal.SIGTERM)  # the handler runs here, inside the callback
        raised_in_callback.append(True)  # never reached: the handler's exception cut the callback short

    with pytest.raises(Interrupted) as stopped, stopping_on_signals():
        held = Held()
        watch = weakref.ref(held, callback)
        del held  # the callback runs, and Python drops what it raises
        assert watch() is None
        for _ in range(6000):  # the signal comes back at an instruction of the main thread
            time.sleep(0.01)
    assert stopped.value.signal_name == "SIGTERM" and raised_in_callback == []
    assert "Exception ignored" not in capsys.readouterr().err


def test_the_handlers_and_the_hook_before_are_put_back() -> None:
    import sys

    hook, handler = sys.unraisablehook, signal.getsignal(signal.SIGINT)
    with stopping_on_signals():
        assert sys.unraisablehook is not hook and signal.getsignal(signal.SIGINT) is not handler
    assert sys.unraisablehook is hook and signal.getsignal(signal.SIGINT) is handler


class SendsSignalWhenNamed:
    """A descriptor whose naming, as its class is made, is where a signal lands."""

    def __set_name__(self, owner: type, name: str) -> None:
        os.kill(os.getpid(), signal.SIGHUP)


def test_a_signal_python_wraps_in_an_error_of_its_own_still_ends_the_command_in_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A signal landing while a class is made (the command's modules loading) reaches the command as Python's
    RuntimeError "Error calling __set_name__", the signal its cause: the command still ends in the one line
    of a signal, exit 130, no traceback."""
    import dealer.cli as cli

    def loading(command: str | None) -> object:
        class Made:
            field = SendsSignalWhenNamed()

        raise AssertionError("the signal did not stop the class being made")

    monkeypatch.setattr(cli, "build_parser", loading)
    assert cli.main(["--lang", "en", "deal", "x.pbn"]) == 130
    err = capsys.readouterr().err
    assert err.splitlines() == ["dealer: interrupted (SIGHUP)"], err
