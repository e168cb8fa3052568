"""The project's exceptions: one root, one class per kind of failure, each with its CLI exit code.

Line noise is not an exception (the link counts and recovers); only what a user or caller must act on
raises. Classes that have a builtin meaning also inherit it, so callers may catch `ValueError`,
`TimeoutError` or `ConnectionError` without knowing this module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the command line's start-up imports this module; pathlib is not needed to run it
    from pathlib import Path


class DealerError(Exception):
    """Root of every error this project raises on purpose."""

    exit_code = 1


class UsageError(DealerError, ValueError):
    """A command-line value or option that cannot be used (bad range, bad seed, unknown engine)."""

    exit_code = 2


class InvalidDealError(DealerError, ValueError):
    """A deal array that breaks the invariants: shape (n, 52), seats 0..3, 13 cards per seat."""

    exit_code = 3


class FormatError(DealerError, ValueError):
    """A file that cannot be read or written in its format; names the file and the place."""

    exit_code = 3

    def __init__(
        self,
        reason: str,
        path: str | Path | None = None,
        line: int | None = None,
        offset: int | None = None,
        board: int | None = None,
    ) -> None:
        self.reason = reason
        self.path = None if path is None else str(path)
        self.line = line
        self.offset = offset
        self.board = board
        super().__init__(self._message())

    def _message(self) -> str:
        where = []
        if self.path is not None:
            where.append(self.path)
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.offset is not None:
            where.append(f"byte {self.offset}")
        if self.board is not None:
            where.append(f"board {self.board}")
        return f"{', '.join(where)}: {self.reason}" if where else self.reason


class OutputError(DealerError, OSError):
    """An output file cannot be written (no such directory, no permission, disk full)."""

    exit_code = 4


class OutputExistsError(OutputError, FileExistsError):
    """An output file exists and `--force` was not given."""


class DeviceTimeout(DealerError, TimeoutError):
    """The machine did not answer in time, after every retry."""

    exit_code = 5


class DeviceDisconnected(DealerError, ConnectionError):
    """The port went away (unplugged, closed, or never there)."""

    exit_code = 6


class MachineFault(DealerError):
    """The machine reported a fault it cannot recover from by itself."""

    exit_code = 7

    def __init__(self, message: str, code: int | None = None, board: int | None = None) -> None:
        self.code = code
        self.board = board
        super().__init__(message)


class VerificationError(DealerError):
    """A dealt board does not match its intended deal; `.report` holds the faults."""

    exit_code = 8

    def __init__(self, message: str, report: Any = None) -> None:
        self.report = report
        super().__init__(message)


class JournalError(DealerError):
    """The journal refuses an action (a reused deal set, a run that does not match the journal)."""

    exit_code = 9
