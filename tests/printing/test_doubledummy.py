"""Double-dummy tricks and par: checked against tables other software printed for real deals."""

from __future__ import annotations

import itertools
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from dealer.core.boards import dealer_of, vulnerability_of
from dealer.core.cards import from_pbn
from dealer.core.extras import MissingExtraError
from dealer.printing.doubledummy import STRAINS, analyse

pytest.importorskip("endplay")

def test_tricks_agree_with_a_real_hand_record_program(data_dir: Path) -> None:
    """Hand_Trophy_Pairs.pbn (Dealmaster Pro / BridgeComposer, from shared/reference/pbn-real) gives
    DoubleDummyTricks per board, writing every count under 7 as 1 (it lists makeable contracts): counts
    of 7+ must match exactly."""
    text = (data_dir / "Hand_Trophy_Pairs.pbn").read_text(encoding="latin-1")
    pairs = re.findall(r'\[Deal "([^"]+)"\](?:(?!\[Deal ).)*?\[DoubleDummyTricks "([0-9a-f]{20})"\]', text, re.S)
    assert len(pairs) == 26
    pairs = pairs[::4]  # 7 boards: the solver takes about a third of a second a deal
    deals = np.stack([from_pbn(deal) for deal, _ in pairs])
    results = analyse(deals, [0] * len(deals), [0] * len(deals))
    for result, (_, reference) in zip(results, pairs, strict=True):
        ours = result.pbn_tricks()
        for mine, theirs in zip(ours, reference, strict=True):
            if int(theirs, 16) >= 7:
                assert mine == theirs, (ours, reference)
            else:
                assert theirs == "1" and int(mine, 16) < 7, (ours, reference)


def test_solid_suits_and_par() -> None:
    # each hand holds one whole suit: trumps are everything, and the opening leader runs its suit in NT
    deal = from_pbn("N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432")
    board = 5  # dealer N, NS vulnerable
    result = analyse(deal[None, :], [dealer_of(board)], [vulnerability_of(board)])[0]
    north = result.tricks[0]
    assert north[STRAINS.index("S")] == 13 and north[STRAINS.index("D")] == 13
    assert north[STRAINS.index("H")] == 0 and north[STRAINS.index("NT")] == 0
    assert result.par_score == 2210  # 7♠ vulnerable
    assert result.par_text() == "NS +2210: 7♠ by NS"


def test_missing_solver_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "endplay.dds", None)
    deal = from_pbn("N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432")
    with pytest.raises(MissingExtraError, match=r"extra 'dd': pip install 'duplicate-bridge-dealer\[dd\]'"):
        analyse(deal[None, :], [0], [0])


def test_batches_give_the_tricks_and_par_of_one_deal_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Deals solved in multi-deal batches (two a batch here, so three batches and a short last one) get
    the tricks of DDS's one-deal table call and the par of those tricks, deal by deal; progress is told
    after each batch."""
    import endplay.dds as dds
    from endplay.types import Deal, Player, Vul

    from dealer.core.cards import to_pbn
    from dealer.engines import make_engine
    from dealer.printing import doubledummy

    deals = make_engine("bigdeal", bytes(range(20)), "dd test").deals(5)
    boards = [1, 2, 3, 4, 5]
    monkeypatch.setattr(doubledummy, "_BATCH", 2)
    told: list[tuple[int, int]] = []
    results = analyse(deals, [dealer_of(b) for b in boards], [vulnerability_of(b) for b in boards],
                      progress=lambda done, total: told.append((done, total)))
    assert told == [(2, 5), (4, 5), (5, 5)]
    vuls = {0: Vul.none, 1: Vul.ns, 2: Vul.ew, 3: Vul.both}
    for deal, board, result in zip(deals, boards, results, strict=True):
        table = dds.calc_dd_table(Deal(to_pbn(deal)))
        for seat, strain in itertools.product(range(4), range(5)):
            denom = 4 if strain == 0 else strain - 1  # endplay: S H D C NT; ours: NT S H D C
            assert result.tricks[seat][strain] == table.to_list()[denom][seat]
        par = dds.par(table, vuls[int(vulnerability_of(board))], Player(dealer_of(board)))
        assert result.par_score == par.score
