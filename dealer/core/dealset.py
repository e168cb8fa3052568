"""A set of deals with their boards: what every file format reads and writes and every run deals.

A `DealSet` holds parallel arrays: board numbers, deals (n, 52) uint8, and the dealer and
vulnerability of each board as the file gives them (Law 2 by default; real files may differ and a
reader keeps what the file says). Its hashes identify a deal set for the journal (Law 6D2).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt

from dealer.core.boards import Vulnerability, dealers_of, vulnerabilities_of
from dealer.core.cards import DealArray, check_deals, pack
from dealer.core.errors import InvalidDealError
from dealer.language import _

IntArray = npt.NDArray[np.int64]
SeatArray = npt.NDArray[np.uint8]

PREPARED_MARK: Final = "prepared, Law 6E4: "
"""What a generator tag says before the condition its deals were made under (`dealer generate --where`)."""


def made_under(metadata: dict[str, str]) -> str | None:
    """The condition a file's metadata says its deals were made under (its ``conditions``, else what its
    generator tag gives after `PREPARED_MARK`); None for deals made wholly at random."""
    given = metadata.get("conditions", "").strip()
    if given:
        return given
    _head, mark, condition = metadata.get("generator", "").partition(PREPARED_MARK)
    return (condition.strip() or "?") if mark else None


class BoardDeal(NamedTuple):
    """One board of a set: number, dealer seat, vulnerability and the (52,) deal."""

    board: int
    dealer: int
    vulnerability: Vulnerability
    deal: DealArray


@dataclass(eq=False)
class DealSet:
    """Boards and their deals. Construct with :meth:`from_deals`; arrays are checked on creation."""

    boards: IntArray
    deals: DealArray
    dealers: SeatArray
    vulnerabilities: SeatArray
    event: str = ""
    metadata: dict[str, str] = field(default_factory=dict)
    conditions: str | None = field(default=None, init=False)
    """The condition the deals were made under (prepared boards, not wholly random: Law 6E4), as the file's
    metadata says (`made_under`); None for a file that says nothing of the kind."""

    def __post_init__(self) -> None:
        self.conditions = made_under(self.metadata)
        self.deals = check_deals(np.asarray(self.deals).reshape(-1, 52))
        self.boards = np.asarray(self.boards, dtype=np.int64).reshape(-1)
        self.dealers = np.asarray(self.dealers, dtype=np.uint8).reshape(-1)
        self.vulnerabilities = np.asarray(self.vulnerabilities, dtype=np.uint8).reshape(-1)
        n = len(self.deals)
        for name in ("boards", "dealers", "vulnerabilities"):
            if len(getattr(self, name)) != n:
                raise InvalidDealError(f"{n} deals but {len(getattr(self, name))} {name}")
        if n and self.boards.min() < 1:
            raise InvalidDealError(_("board numbers start at 1"))
        if n and (self.dealers.max() > 3 or self.vulnerabilities.max() > 3):
            raise InvalidDealError(_("dealer and vulnerability must be 0..3"))

    @classmethod
    def from_deals(
        cls, deals: npt.ArrayLike, boards: Sequence[int] | npt.ArrayLike | None = None, *,
        event: str = "", metadata: dict[str, str] | None = None,
    ) -> DealSet:
        """Deals numbered `boards` (1..n by default) with Law 2 dealer and vulnerability."""
        arr = np.asarray(deals).reshape(-1, 52)  # checked once, on creation
        nums = np.arange(1, len(arr) + 1) if boards is None else np.asarray(boards, dtype=np.int64)
        return cls(nums, arr, dealers_of(nums), vulnerabilities_of(nums), event, dict(metadata or {}))

    @classmethod
    def concat(cls, parts: Iterable[DealSet]) -> DealSet:
        """One set from several, in order; event and metadata come from the first."""
        items = list(parts)
        if not items:
            return cls.from_deals(np.empty((0, 52), dtype=np.uint8))
        return cls(
            np.concatenate([p.boards for p in items]),
            np.concatenate([p.deals for p in items]),
            np.concatenate([p.dealers for p in items]),
            np.concatenate([p.vulnerabilities for p in items]),
            items[0].event,
            dict(items[0].metadata),
        )

    def __len__(self) -> int:
        return len(self.deals)

    def __iter__(self) -> Iterator[BoardDeal]:
        for i in range(len(self)):
            yield self[i]

    def __getitem__(self, i: int) -> BoardDeal:
        return BoardDeal(int(self.boards[i]), int(self.dealers[i]),
                         Vulnerability(int(self.vulnerabilities[i])), self.deals[i])

    def index_of(self, board: int) -> int:
        """Position of a board number in the set; `KeyError` if absent."""
        hits = np.flatnonzero(self.boards == board)
        if not hits.size:
            raise KeyError(board)
        return int(hits[0])

    def select(self, boards: Sequence[int]) -> DealSet:
        """The sub-set holding these board numbers, in the order given; `KeyError` for a missing one."""
        idx = [self.index_of(b) for b in boards]
        return DealSet(self.boards[idx], self.deals[idx], self.dealers[idx], self.vulnerabilities[idx],
                       self.event, dict(self.metadata))

    def where(self, keep: npt.NDArray[np.bool_]) -> DealSet:
        """The sub-set of the boards where `keep` (one flag a board) is True, in the set's order."""
        return DealSet(self.boards[keep], self.deals[keep], self.dealers[keep], self.vulnerabilities[keep],
                       self.event, dict(self.metadata))

    def renumbered(self, boards: Sequence[int] | npt.ArrayLike) -> DealSet:
        """The same deals under new board numbers, with Law 2 dealer and vulnerability for those."""
        return DealSet.from_deals(self.deals, boards, event=self.event, metadata=self.metadata)

    def conforms_to_law2(self) -> npt.NDArray[np.bool_]:
        """Per board: True where dealer and vulnerability are those Law 2 gives its number."""
        same: npt.NDArray[np.bool_] = (self.dealers == dealers_of(self.boards)) & (
            self.vulnerabilities == vulnerabilities_of(self.boards))
        return same

    def same_deals(self, other: DealSet) -> bool:
        """True if both sets hold the same boards, dealers, vulnerabilities and deals in the same order."""
        return (len(self) == len(other)
                and bool(np.array_equal(self.boards, other.boards))
                and bool(np.array_equal(self.deals, other.deals))
                and bool(np.array_equal(self.dealers, other.dealers))
                and bool(np.array_equal(self.vulnerabilities, other.vulnerabilities)))

    def deal_hashes(self) -> list[str]:
        """SHA-256 (hex) of each deal's packed 13-byte form: the identity of a deal whatever its board."""
        import hashlib  # here: reading and writing files need no hashes

        return [hashlib.sha256(row.tobytes()).hexdigest() for row in pack(self.deals)]

    def set_hash(self) -> str:
        """SHA-256 (hex) of all the deals, packed, in order: the identity of the deal set."""
        import hashlib

        return hashlib.sha256(pack(self.deals).tobytes()).hexdigest()
