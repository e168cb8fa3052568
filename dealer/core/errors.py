"""The project's exceptions: one root, one class per kind of failure, each with its exit code (`EXIT_CODES`,
the same in every command). Classes with a builtin meaning also inherit it (`ValueError`,
`TimeoutError`, `ConnectionError`). Line noise is not an exception.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from dealer.language import N_, _

if TYPE_CHECKING:  # the command line's start-up imports this module; pathlib is not needed to run it
    from pathlib import Path

EXIT_CODES: Final[tuple[tuple[int, str], ...]] = (
    (0, N_("done: every board verified, every file written")),
    (1, N_("an unexpected error (a bug, or the operating system refused something)")),
    (2, N_("usage: a command-line option or value that cannot be used")),
    (3, N_("input: a deal file or plan that cannot be read or is not valid")),
    (4, N_("output: a file that cannot be written, or exists (--force replaces it)")),
    (5, N_("a machine could not be reached: no such port, no answer, or the link was lost")),
    (7, N_("a machine stopped on a fault it cannot recover from")),
    (8, N_("the Laws refuse: boards not verified (a recount found faults), deals dealt before (Law 6D2), or\n"
        "       deals made under conditions outside a teaching run (Law 6E4)")),
    (9, N_("the journal refuses: no run to resume, a journal missing, empty or damaged, or one that cannot be\n"
        "       written (disk full, read-only, file too large): the run stops, resumable")),
    (10, N_("the journal is in use by another live process (one controller per journal)")),
    (11, N_("the system refused a resource (open files, memory, a permission): the record is intact, --resume\n"
        "       continues")),
    (130, N_("interrupted (Ctrl-C, SIGTERM or SIGHUP): a dealing run stops cleanly, says how many boards are\n"
          "       left and the command that resumes it")),
)
"""Every exit code of the `dealer` command, with the outcome it means (6 is no longer used: a lost port
is 5, as a silent one is)."""


def exit_code_table() -> str:
    """`EXIT_CODES` as the lines ``dealer --help`` and the README show."""
    return "\n".join(f"  {code:>3}  {_(text)}" for code, text in EXIT_CODES)


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
            where.append(_("line {line}").format(line=self.line))
        if self.offset is not None:
            where.append(_("byte {offset}").format(offset=self.offset))
        if self.board is not None:
            where.append(_("board {board}").format(board=self.board))
        return f"{', '.join(where)}: {self.reason}" if where else self.reason


class OutputError(DealerError, OSError):
    """An output file cannot be written (no such directory, no permission, disk full)."""

    exit_code = 4


class OutputExistsError(OutputError, FileExistsError):
    """An output file exists and `--force` was not given."""


class DeviceTimeout(DealerError, TimeoutError):
    """The machine did not answer in time: nothing heard from it for the link's give-up time (30 s),
    no machine answered the handshake, or a report it owed did not come."""

    exit_code = 5


class DeviceDisconnected(DealerError, ConnectionError):
    """The port went away (unplugged, closed, or never there): like a silent machine, one that cannot be
    reached (the same exit code)."""

    exit_code = 5


class MachineReplaced(DeviceDisconnected):
    """Another machine answered on the port of a run's machine (its serial number is not the one the run
    began with): nothing is sent to it, and the station stops; like a machine that cannot be reached."""


class PortInUse(DeviceDisconnected):
    """Another program holds the port open (EAGAIN, EBUSY): nothing was sent on it, whatever is there."""


class SerialConflict(DeviceDisconnected):
    """A machine's serial cannot tell it from another (PROTOCOL.md 5): two ports of one run answered with the
    same serial, or a real machine of protocol version 2 gave none. Nothing is dealt; like a machine that
    cannot be used."""


class MachineFaultError(DealerError):
    """The machine reported a fault it cannot recover from by itself."""

    exit_code = 7

    def __init__(self, message: str, code: int | None = None, board: int | None = None) -> None:
        self.code = code
        self.board = board
        super().__init__(message)


class VerificationError(DealerError):
    """A board or a deal set fails its check by the Laws: a dealt board does not match its intended deal
    (`.report` holds the faults), or a deal set may not be dealt (`DealReused`)."""

    exit_code = 8

    def __init__(self, message: str, report: Any = None) -> None:
        self.report = report
        super().__init__(message)


class DealReused(VerificationError):
    """Law 6D2 (fault F10): a deal was dealt before, in another run (found in a journal or in the deal
    history), and the run is not marked a replay. Nothing was dealt."""


class PreparedBoards(VerificationError):
    """Law 6E4: deals made under conditions (prepared boards) are not wholly random, so a run that is not a
    teaching run may not deal them. Nothing was dealt."""


class JournalError(DealerError):
    """The journal refuses an action (a run that does not match the journal) or cannot be used (missing,
    empty or corrupt when a run is to be resumed); the message names the file."""

    exit_code = 9


class JournalDamaged(JournalError):
    """The journal's file was cut, overwritten, replaced or removed under a live run: what it holds can no
    longer be trusted, so the run stops; what was dealt is known from the boards themselves (`dealer check`)."""


class Interrupted(KeyboardInterrupt):
    """A signal (SIGINT, SIGTERM or SIGHUP) stopped the command (exit code 130 whichever it was). A dealing
    run that had begun says how many of its boards are `left` of `total` (None: no run had begun)."""

    exit_code = 130

    def __init__(self, signal_name: str = "SIGINT", *, left: int | None = None, total: int | None = None) -> None:
        self.signal_name = signal_name
        self.left = left
        self.total = total
        super().__init__(signal_name)


class JournalBusy(JournalError):
    """Another live process holds the journal (one controller per journal); the message names it."""

    exit_code = 10



class SystemRefused(JournalError):
    """The operating system refused what the run needed to look at its record (a file descriptor, memory, a
    permission): nothing shows the record changed, so it is intact; the run stops, and `--resume` continues
    once the system allows it. Never damage: that is only what was looked at and found changed."""

    exit_code = 11
