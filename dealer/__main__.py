"""`python -m dealer` and the ``dealer`` command: the command line, with the signals taken from the start."""

import sys


def console() -> int:
    """The ``dealer`` command: its command line (`dealer.cli.main`). A signal (SIGINT, SIGTERM, SIGHUP) while
    the command line loads waits until it has loaded (numpy turns one that lands in its import into an
    ImportError), then ends the command in one line; after that SIGTERM and SIGHUP stop it as SIGINT does,
    and once the command has ended each signal has its default action again."""
    import signal
    import sys

    from dealer.cli.streams import outlive_readers

    outlive_readers()  # a closed pipe drops what is written to it, never breaks the command
    names = [name for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)]
    pending: list[int] = []

    def later(signum: int, frame: object) -> None:
        pending.append(signum)

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    for name in names:
        signal.signal(getattr(signal, name), later)
    try:
        from dealer.cli import COMMANDS, command_named, main

        if command_named(sys.argv[1:]) in COMMANDS:  # (help loads no library)
            import numpy  # noqa: F401  (loaded while a signal waits)
    finally:
        for name in names:
            signal.signal(getattr(signal, name), signal.default_int_handler if name == "SIGINT" else stop)
    try:
        if pending:
            raise KeyboardInterrupt(signal.Signals(pending[0]).name)
        return main()
    except KeyboardInterrupt as exc:  # before the command line took the signals over
        print(f"dealer: interrupted ({exc.args[0] if exc.args else 'SIGINT'})", file=sys.stderr)
        return 130
    finally:  # the command has ended: a signal while the process exits (its clean-up) ends it, no traceback
        for name in names:
            signal.signal(getattr(signal, name), signal.SIG_DFL)


if __name__ == "__main__":
    sys.exit(console())
