"""`python -m dealer` and the ``dealer`` command: the command line, with the signals taken from the start."""

import sys


def console() -> int:
    """The ``dealer`` command: its command line (`dealer.cli.main`). SIGTERM and SIGHUP stop it from its first
    instant as SIGINT does, so that a signal while the command line loads ends in the same one line."""
    import signal
    import sys

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), stop)
    try:
        from dealer.cli import main

        return main()
    except KeyboardInterrupt as exc:  # before the command line took the signals over
        print(f"dealer: interrupted ({exc.args[0] if exc.args else 'SIGINT'})", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(console())
