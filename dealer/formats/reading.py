"""What a deal-file reader is told, and what it tells back beyond the deals.

Every command that reads deal files shares these options (`ReadOptions`): the number of the first
board of a file that carries no board numbers (BRI, DGE, BER, DUP, BHG, RZD, GOE), whether a partial
deal (a ``-`` hand, fewer than 52 cards) is skipped or refuses the file, whether games with no deal
(results only) are skipped, and which game to keep of a board number that comes with different deals.
A reader fills a `ReadReport`: the boards and games it skipped, and, when asked (`ReadReport.tracking`), where
in the file each board it yields was (``line 12``, ``byte 312``), so that an error about two boards can
name both, and whether a file without board numbers carried them by position.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from dealer.language import _


@dataclass(frozen=True)
class ReadOptions:
    """How to read a deal file; the defaults refuse anything that is not a plain, full set of deals."""

    first_board: int | None = None
    """Number of the first board of a file without board numbers (default 1); ignored by formats
    that carry their own numbers."""
    skip_partial: bool = False
    """Skip boards whose deal is partial (listed in the report) instead of refusing the file."""
    skip_results_only: bool = False
    """Skip games that carry tags but no deal (results of a board dealt elsewhere) instead of refusing."""
    game: int | None = None
    """For a board number that comes with different deals: keep its `game`-th game (1 = the first)."""
    number_in_order: bool = False
    """A PBN file whose Board tags are not board numbers (an exercise file's ``1-1``, ``4-1``): number its
    games in file order from the first board, and say so."""

    def __post_init__(self) -> None:
        if self.first_board is not None and self.first_board < 1:
            raise ValueError(_("the first board is 1 or more"))
        if self.game is not None and self.game < 1:
            raise ValueError(_("games are counted from 1"))


DEFAULT_OPTIONS: Final = ReadOptions()


@dataclass(frozen=True)
class Skipped:
    """A board or game a reader passed over, where it was and why."""

    board: int | None
    place: str
    reason: str


@dataclass
class ReadReport:
    """What a reader says besides the deals. `places` is None unless the caller asked for them."""

    partial: list[Skipped] = field(default_factory=list)
    results_only: list[Skipped] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    places: list[str] | None = None
    unnumbered: list[str] = field(default_factory=list)
    """Where the games are that gave no board number (no Board tag, or ``?``): numbered previous + 1."""
    by_position: bool = False
    """The file carried its boards' numbers by position (a BHG file with empty lines for missing boards)."""
    guessed: str | None = None
    """Why the boards' numbers are a guess, and what makes them certain (a file without board numbers read
    with no --first-board and no file beside it confirming the guess); None when they are the file's own."""

    @classmethod
    def tracking(cls) -> ReadReport:
        """A report that also records the place of every board read."""
        return cls(places=[])

    def place_all(self, places: list[str]) -> None:
        """Record the places of the boards of one chunk (only when tracking)."""
        if self.places is not None:
            self.places.extend(places)
