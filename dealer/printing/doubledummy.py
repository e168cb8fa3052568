"""Double-dummy analysis of deals: tricks for each declarer and strain, and the par result.

The solver is Bo Haglund's DDS through the optional ``endplay`` package (extra ``dd``); this module turns
its answers into plain data. Strains are NT S H D C, as hand records and PBN's ``DoubleDummyTricks`` print them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from dealer.core.boards import Vulnerability
from dealer.core.cards import SEATS, check_deals, to_pbn
from dealer.core.extras import available, require
from dealer.language import _
from dealer.printing.words import seats_shown, strains_shown

STRAINS: Final = ("NT", "S", "H", "D", "C")

PBN_DECLARERS: Final = "NSEW"
_BATCH: Final = 40  # deals a DDS multi-deal call takes with all five strains (its limit: 200 tables)
_EXTRA: Final = "dd"


@dataclass(frozen=True)
class ParContract:
    """One par contract: `strain` indexes STRAINS; `result` is overtricks (+), undertricks (-) or 0."""

    level: int
    strain: int
    declarers: str
    doubled: bool
    result: int

    def text(self) -> str:
        """E.g. '4♠ by NS', '3NT+1 by N', '5♦x-2 by EW'."""
        res = "" if self.result == 0 else f"{self.result:+d}"
        contract = f"{self.level}{strains_shown()[self.strain]}{'x' if self.doubled else ''}{res}"
        return _("{contract} by {declarers}").format(contract=contract, declarers=seats_shown(self.declarers))


@dataclass(frozen=True)
class DDResult:
    """Double-dummy tricks ``tricks[seat][strain]`` (seat N E S W, strain NT S H D C) and the par result.

    `par_score` is from North-South's side (negative when East-West score); no contracts means the
    par is to pass the deal out.
    """

    tricks: tuple[tuple[int, ...], ...]
    par_score: int
    par_contracts: tuple[ParContract, ...]

    def pbn_tricks(self) -> str:
        """PBN ``DoubleDummyTricks`` form: 20 hex digits, declarers N S E W, strains NT S H D C."""
        return "".join(f"{t:x}" for seat in PBN_DECLARERS for t in self.tricks[SEATS.index(seat)])

    def par_score_text(self) -> str:
        """The par score for the side that scores it, e.g. 'NS +420', 'EW +100', or '0'."""
        if self.par_score == 0:
            return "0"
        side = seats_shown("NS" if self.par_score > 0 else "EW")
        return f"{side} {abs(self.par_score):+d}"

    def par_contract_texts(self) -> list[str]:
        """Each par contract as text, or ['passed out'] when the par is to pass."""
        return [c.text() for c in self.par_contracts] or [_("passed out")]

    def par_text(self) -> str:
        """E.g. 'NS +420: 4♠ by NS', 'EW +100: 5♦x-1 by N', '0: passed out'."""
        return f"{self.par_score_text()}: " + "; ".join(self.par_contract_texts())


def require_solver() -> None:
    """Raise `MissingExtraError` now if the solver is not installed (before any long work)."""
    require("endplay.dds", _EXTRA, "double-dummy analysis")


def solver_available() -> bool:
    """True if the double-dummy solver (extra ``dd``) is installed."""
    return available("endplay.dds")


Progress = Callable[[int, int], None]
"""Told (deals done, deals in all) after each batch."""


def analyse(deals: npt.ArrayLike, dealers: npt.ArrayLike, vulnerabilities: npt.ArrayLike, *,
            progress: Progress | None = None) -> list[DDResult]:
    """Double-dummy results of an (n, 52) batch of deals with their dealers (seats) and vulnerabilities,
    sent to DDS in batches through its multi-deal call (``CalcAllTables``, endplay's ``calc_all_tables``),
    which solves the strains of a batch on DDS's own threads, one a core; `progress` is told (done, total)
    after each batch."""
    dds = require("endplay.dds", _EXTRA, "double-dummy analysis")
    types = require("endplay.types", _EXTRA, "double-dummy analysis")
    batch = check_deals(np.asarray(deals).reshape(-1, 52))
    seats = np.asarray(dealers, dtype=np.int64).reshape(-1)
    vuls = np.asarray(vulnerabilities, dtype=np.int64).reshape(-1)
    if not len(seats) == len(vuls) == len(batch):
        raise ValueError(f"{len(batch)} deals, {len(seats)} dealers, {len(vuls)} vulnerabilities")
    out: list[DDResult] = []
    for start in range(0, len(batch), _BATCH):
        rows = batch[start:start + _BATCH]
        tables = dds.calc_all_tables([types.Deal(to_pbn(row)) for row in rows])
        for k, table in enumerate(tables):
            i = start + k
            vul = _endplay_vul(types, Vulnerability(int(vuls[i])))
            par = dds.par(table, vul, types.Player(int(seats[i])))
            out.append(DDResult(_tricks(table.to_list()), int(par.score), _par_contracts(par)))
        if progress is not None:
            progress(len(out), len(batch))
    return out


def _endplay_vul(types: Any, vul: Vulnerability) -> Any:
    return {Vulnerability.NONE: types.Vul.none, Vulnerability.NS: types.Vul.ns,
            Vulnerability.EW: types.Vul.ew, Vulnerability.BOTH: types.Vul.both}[vul]


def _tricks(by_denom: list[list[int]]) -> tuple[tuple[int, ...], ...]:
    """endplay lists tricks [denom S H D C NT][player N E S W]; ours are [seat][NT S H D C]."""
    order = (4, 0, 1, 2, 3)
    return tuple(tuple(int(by_denom[d][seat]) for d in order) for seat in range(4))


def _par_contracts(par: Any) -> tuple[ParContract, ...]:
    """endplay lists one contract per declarer; declarers of the same contract are joined ('NS')."""
    grouped: dict[tuple[int, int, bool, int], str] = {}
    for c in par:
        if c.is_passout():
            continue
        strain = 0 if int(c.denom) == 4 else int(c.denom) + 1
        key = (int(c.level), strain, c.penalty.name != "passed", int(c.result))
        grouped[key] = grouped.get(key, "") + SEATS[int(c.declarer)]
    return tuple(ParContract(level, strain, "".join(s for s in "NESW" if s in who), doubled, result)
                 for (level, strain, doubled, result), who in grouped.items())
