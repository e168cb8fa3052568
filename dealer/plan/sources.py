"""Where a session's deals come from: generated deal files, existing deal files, SquareDeal sessions. A
fresh engine stream is generated ONCE to ``<deal folder>/<session>.pbn`` and read from then on: the deal
file, not the seed, is the record. Seeds are kept only if the plan asks (mode 0600); nothing is printed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Final

import numpy as np

from dealer import engines, formats, squaredeal
from dealer.core.boards import format_board_range
from dealer.core.dealset import DealSet
from dealer.core.errors import FormatError, OutputExistsError, UsageError
from dealer.core.outfile import SECRET_MODE, check_writable, write_bytes
from dealer.language import _

if TYPE_CHECKING:
    from dealer.prepared import Script

GENERATED_FORMAT: Final = "pbn"


def generated_path(folder: Path, session: str) -> Path:
    """The deal file a session with a fresh engine source is generated into."""
    return folder / f"{session}.{GENERATED_FORMAT}"


def seed_path(folder: Path, session: str) -> Path:
    """The seed file written beside a generated deal file when the plan keeps seeds."""
    return folder / f"{session}.seed"


def read_deals(path: Path, fmt: str | None = None) -> DealSet:
    """A whole deal file; `FormatError` naming the file for anything unreadable."""
    return formats.read_file(path, fmt)


def generate(path: Path, engine: str, boards: tuple[int, ...], *, owner: bytes, event: str,
             seed_file: Path | None = None, script: Script | None = None) -> DealSet:
    """Deal `boards` from a fresh `engine` stream into the new file `path` and return what the file holds; with
    a `script`, only the deals of the stream that meet it (prepared boards: the file says so, Law 6E4).

    Refuses (`OutputExistsError`) if `path` or `seed_file` exists. If another process writes `path`
    first, its file is the record and is returned instead. The file is read back and must hold
    exactly the deals generated.
    """
    check_writable(path)
    if seed_file is not None:
        check_writable(seed_file)
    seed = engines.fresh_seed(engine)
    stream = engines.make_engine(engine, seed, owner)
    if script is None:
        deals = DealSet.from_deals(stream.deals(len(boards)), boards, event=event,
                                   metadata={"generator": f"dealer {engine}"})
    else:
        from dealer.prepared.boards import metadata, prepare  # (the script language: for a teaching plan only)

        deals = DealSet.from_deals(prepare(script, stream, len(boards)).deals, boards, event=event,
                                   metadata=metadata(engine, script))
    try:
        formats.write_file(path, deals, GENERATED_FORMAT)
    except OutputExistsError:
        return read_deals(path, GENERATED_FORMAT)
    if seed_file is not None:
        write_bytes(seed_file, engines.seed_record(engine, seed, owner), mode=SECRET_MODE)
    written = read_deals(path, GENERATED_FORMAT)
    if not np.array_equal(written.deals, deals.deals) or not np.array_equal(written.boards, deals.boards):
        raise FormatError(_("does not hold the deals just generated for it"), path)
    return written


def boards_missing(held: DealSet, boards: tuple[int, ...]) -> str | None:
    """The boards of `boards` that `held` lacks, as range text; None if it holds them all."""
    have = set(int(b) for b in held.boards)
    missing = [b for b in boards if b not in have]
    return format_board_range(missing) if missing else None


# --- SquareDeal -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SquareDealSession:
    """A session (or joined run) of a published SquareDeal event, with its checked keys and its boards."""

    event: squaredeal.SquareDealEvent
    keys: dict[str, str]
    ref: squaredeal.SessionRef
    boards: tuple[int, ...]

    def deals(self) -> DealSet:
        """The session's deals, regenerated from its key and the delayed value."""
        return squaredeal.session_deals(self.event, self.keys, self.ref)


def read_sqd(path: Path) -> squaredeal.SquareDealEvent:
    """The SquareDeal event in a .sqd file; it must be published and have its delayed value."""
    event = squaredeal.read_sqd(path)
    if event.delayed_value is None:
        raise UsageError(_("{file}: the delayed value DV is not set yet, so the deals cannot be made").format(
            file=path))
    return event


def squaredeal_session(event: squaredeal.SquareDealEvent, keys: dict[str, str], name: str,
                       reserve: bool) -> SquareDealSession:
    """The session a SquareDeal file name stands for (``OPRR05``, ``FIN1-2``); `reserve` takes the reserve set."""
    try:
        ref = squaredeal.resolve_session(event, name)
    except UsageError as exc:
        phases = ", ".join(_("{prefix} ({count} sessions)").format(prefix=p.prefix, count=p.sessions) if p.sessions
                           else _("{prefix} (open-ended sessions)").format(prefix=p.prefix) for p in event.phases)
        raise UsageError(_("{problem}; its phases are {phases}").format(problem=exc, phases=phases)) from None
    if reserve:
        ref = replace(ref, reserve=True)
    phase = event.phases[ref.phase - 1]
    try:
        boards = tuple(b for s in ref.sessions() for b in phase.session_boards(s))
    except UsageError:
        raise UsageError(_("the .sqd gives the boards of phase {phase} as '?'; make the session's deal file with "
                           "`dealer squaredeal generate --boards` and use it as a file source").format(
            phase=phase.prefix)) from None
    return SquareDealSession(event, keys, ref, boards)
