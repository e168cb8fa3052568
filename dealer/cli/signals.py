"""How a signal stops a command: SIGINT (Ctrl-C), SIGTERM and SIGHUP alike raise `Interrupted` in the main
thread, once; what is in hand then ends as after any error (`stopping_on_signals`).
"""

from __future__ import annotations

import _thread
import shlex
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import Any, Final

from dealer.core.errors import Interrupted
from dealer.language import _, n_

SIGNALS: Final = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
"""The signals that stop a command cleanly (SIGHUP does not exist on Windows)."""


@contextmanager
def stopping_on_signals() -> Iterator[None]:
    """While in the block, the first of `SIGNALS` raises `Interrupted`; the handlers before are put back
    after it. Outside the main thread nothing is changed.

    What is in hand then ends as after any error: an output file half written is removed
    (`dealer.core.outfile` writes through a temporary file), a journal transaction is rolled back, a dealing
    run abandons its machines and says how many boards are left and the command that resumes it. A second
    signal while the command stops is ignored, so that stopping cleanly is not itself cut short (SIGKILL
    still ends it at once, which the journal survives too). SIGXFSZ (a file grown past ``ulimit -f``) is
    ignored meanwhile: the write fails instead (EFBIG), and the command stops on it as on a full disk,
    instead of being killed.

    Python runs a handler at the next instruction of the main thread, which may be inside a callback whose
    exceptions it only prints and drops (a weak reference's, as an import releases its lock): an `Interrupted`
    dropped there (`sys.unraisablehook`) is delivered again, as the same signal, by a thread of its own a
    moment later, once the main thread has left the hook (where it would be dropped for good).
    """
    fired: list[int] = []

    def stop(signum: int, frame: FrameType | None) -> None:
        if fired:
            return
        fired.append(signum)
        raise Interrupted(signal.Signals(signum).name)

    hook = sys.unraisablehook

    def dropped(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, Interrupted) and fired:
            threading.Thread(target=_again, args=(signal.Signals(fired.pop()),), name="signal again",
                             daemon=True).start()
            return
        hook(unraisable)

    try:
        before: dict[int, Any] = {sig: signal.signal(sig, stop) for sig in SIGNALS}
        if hasattr(signal, "SIGXFSZ"):
            before[signal.SIGXFSZ] = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    except ValueError:  # not the main thread: signals are not ours to handle
        before = {}
    if before:
        sys.unraisablehook = dropped
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
        if before:
            sys.unraisablehook = hook


def _again(signum: signal.Signals) -> None:
    """Deliver `signum` to the main thread again, once it has had time to leave the hook that started this."""
    time.sleep(0.05)
    _thread.interrupt_main(signum)


def signal_beneath(exc: BaseException) -> Interrupted | None:
    """The `Interrupted` an error was raised from, if any: Python turns an exception raised where it lands
    (a signal's handler runs at any instruction) into one of its own in a few places, such as a class being
    made (RuntimeError "Error calling __set_name__") or numpy's import (ImportError), keeping the signal as
    its cause or context."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, Interrupted):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None


def interrupted_line(exc: KeyboardInterrupt, argv: Sequence[str], *, resumable: bool) -> str:
    """The one line a command stopped by a signal ends with: for a dealing run of a command that can resume
    it (`resumable`: ``dealer deal``; the demo cannot), how many boards are left and the exact command that
    resumes it (`argv`, shell-quoted, with --resume)."""
    name = exc.signal_name if isinstance(exc, Interrupted) else "SIGINT"
    left = exc.left if isinstance(exc, Interrupted) else None
    if left is None or not resumable:
        return _("dealer: interrupted ({signal})").format(signal=name)
    total = exc.total if isinstance(exc, Interrupted) else None
    command = shlex.join(["dealer", *argv, *([] if "--resume" in argv else ["--resume"])])
    if total is not None:
        said = n_("dealer: interrupted ({signal}): {left} of {total} board left; resume with: {command}",
                  "dealer: interrupted ({signal}): {left} of {total} boards left; resume with: {command}", total)
    else:
        said = n_("dealer: interrupted ({signal}): {left} board left; resume with: {command}",
                  "dealer: interrupted ({signal}): {left} boards left; resume with: {command}", left)
    return said.format(signal=name, left=left, total=total, command=command)
