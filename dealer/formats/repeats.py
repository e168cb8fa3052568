"""Board numbers that come more than once in a deal file: one board per number, or a clear refusal.

Results files hold one game per table, so a board's number repeats with the same deal (a 27-board
session of 8 tables is 216 games): such games collapse into the first, and one note says so. Different
deals under one number (two sections' sets in one file, games not separated) are refused, naming the
board and where its games are, unless the caller chose which game to keep (`game`: the n-th game of
each such board). Dealer and vulnerability count as part of the deal here: a repeat that differs in
them is a different board.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from dealer.core.boards import format_board_range
from dealer.core.dealset import DealSet
from dealer.core.errors import FormatError
from dealer.language import _, n_

IntArray = npt.NDArray[np.int64]


def repeated_numbers(deals: DealSet) -> bool:
    """True if a board number comes more than once."""
    return len(deals) > 1 and len(np.unique(deals.boards)) < len(deals)


def one_board_per_number(deals: DealSet, path: str, *, game: int | None = None,
                         places: Callable[[], Sequence[str] | None] | None = None,
                         ) -> tuple[DealSet, list[str]]:
    """`deals` with each board number once, in the order numbers first appear, and the notes to show.

    Identical games of a number collapse into its first game. A number whose games differ raises
    `FormatError` naming the board and the places of two differing games (from `places()`, asked only
    then), unless `game` says which game (1 = the first) of such a number to keep.
    """
    if not repeated_numbers(deals):
        return deals, []
    numbers, first_index, inverse, counts = np.unique(deals.boards, return_index=True, return_inverse=True,
                                                      return_counts=True)
    kept = first_index.copy()  # per distinct number (sorted): the row kept
    keys = _game_keys(deals)
    same = keys == keys[first_index[inverse]]  # each game against its number's first game
    differing = np.unique(inverse[~same])  # numbers (by position in `numbers`) with games that differ
    if differing.size and game is None:
        _refuse(deals, path, numbers, inverse, int(differing[0]), same, places)
    for k in differing.tolist():
        rows = np.flatnonzero(inverse == k)
        if game is not None and game > len(rows):
            raise FormatError(n_("board {board} comes {count} time with different deals; there is no game {game} of "
                                 "it",
                                 "board {board} comes {count} times with different deals; there is no game {game} of "
                                 "it", len(rows)).format(board=int(numbers[k]), count=len(rows), game=game),
                              path, board=int(numbers[k]))
        kept[k] = rows[(game or 1) - 1]
    order = np.argsort(first_index, kind="stable")  # numbers in the order they first appear
    rows = kept[order]
    result = DealSet(deals.boards[rows], deals.deals[rows], deals.dealers[rows], deals.vulnerabilities[rows],
                     deals.event, dict(deals.metadata))
    return result, _notes(path, numbers, counts, differing, game)


def _game_keys(deals: DealSet) -> npt.NDArray[np.void]:
    """One comparable value per game: its deal, dealer and vulnerability."""
    rows = np.concatenate([deals.deals, deals.dealers[:, None], deals.vulnerabilities[:, None]], axis=1)
    return np.ascontiguousarray(rows).view(np.dtype((np.void, rows.shape[1]))).reshape(-1)


def _refuse(deals: DealSet, path: str, numbers: IntArray, inverse: IntArray, k: int,
            same: npt.NDArray[np.bool_], places: Callable[[], Sequence[str] | None] | None) -> None:
    rows = np.flatnonzero(inverse == k)
    first, other = int(rows[0]), int(rows[~same[rows]][0])
    board = int(numbers[k])
    where = places() if places is not None else None
    if where is not None and len(where) == len(deals):
        games = _("{first} and {second}").format(first=where[first], second=where[other])
    else:
        games = _("its games {first} and {second}").format(first=int(np.flatnonzero(rows == first)[0]) + 1,
                                                          second=int(np.flatnonzero(rows == other)[0]) + 1)
    said = (_("board {board} comes with different deals ({games}); keep one game of each board with --first-game or "
              "--game N") if not np.array_equal(deals.deals[first], deals.deals[other])
            else _("board {board} comes with different dealers or vulnerabilities ({games}); keep one game of each "
                   "board with --first-game or --game N"))
    raise FormatError(said.format(board=board, games=games), path, board=board)


def _notes(path: str, numbers: IntArray, counts: IntArray, differing: IntArray,
           game: int | None) -> list[str]:
    notes = []
    repeated = counts > 1
    repeated[differing] = False
    if repeated.any():
        boards = numbers[repeated].tolist()
        times = counts[repeated]
        if len(boards) == 1:
            notes.append(n_("{path}: board {board} appears {times} time with the same deal; kept once",
                            "{path}: board {board} appears {times} times with the same deal; kept once",
                            int(times[0])).format(path=path, board=boards[0], times=int(times[0])))
        else:
            span = f"{int(times.min())}" if times.min() == times.max() else f"{int(times.min())}-{int(times.max())}"
            notes.append(_("{path}: boards {boards} appear {times} times each with the same deal; each kept "
                           "once").format(path=path, boards=format_board_range(sorted(boards)), times=span))
    if differing.size:
        boards = sorted(numbers[differing].tolist())
        said = (_("{path}: board {boards} comes with different deals: kept game {game} of each") if len(boards) == 1
                else _("{path}: boards {boards} come with different deals: kept game {game} of each"))
        notes.append(said.format(path=path, boards=format_board_range(boards), game=game))
    return notes
