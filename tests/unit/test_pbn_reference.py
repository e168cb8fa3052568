"""PBN files written by other programs read with the right boards, dealers, vulnerabilities and deals.

Expectations come from the files themselves through a small regex and a decoder written here, and for a
few boards from hands copied out of the files by hand - never from the reader under test.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dealer.core.cards import hand_text
from dealer.core.dealset import DealSet
from dealer.formats import read_file
from tests.support.paths import DATA

PBN_DATA = DATA / "pbn"
SQUAREDEAL = DATA / "squaredeal" / "WBG2024"  # SquareDeal's published WBG 2024 files, as Big Deal wrote them

COPIED = sorted(PBN_DATA.glob("*.pbn"))
WBG2024 = sorted(SQUAREDEAL.glob("*.pbn"))

TAG_LINE = re.compile(r'^\[(Board|Dealer|Vulnerable|Deal) "([^"]*)"\]', re.MULTILINE)
VULNERABILITY = {"None": 0, "NS": 1, "N-S": 1, "EW": 2, "E-W": 2, "All": 3, "Both": 3}
RANK_ORDER = "AKQJT98765432"


def games_in(path: Path) -> list[dict[str, str]]:
    """Board, Dealer, Vulnerable and Deal of each game, for files where Board opens every game."""
    games: list[dict[str, str]] = []
    for name, value in TAG_LINE.findall(path.read_text(encoding="latin-1")):
        if name == "Board":
            games.append({})
        games[-1][name] = value
    return games


def hands_by_seat(deal: str) -> dict[str, str]:
    """Seat letter -> hand 'S.H.D.C', ranks sorted high to low, from a deal text."""
    first, hands = deal.split(":")
    start = "NESW".index(first.upper())
    out = {}
    for k, hand in enumerate(hands.split()):
        suits = [''.join(sorted(s.upper(), key=RANK_ORDER.index)) for s in hand.split(".")]
        out["NESW"[(start + k) % 4]] = ".".join(suits)
    return out


def read_hands(ds: DealSet, i: int) -> dict[str, str]:
    return {seat: hand_text(ds.deals[i], n) for n, seat in enumerate("NESW")}


def test_the_copied_files_are_there() -> None:
    names = {p.name for p in COPIED}
    assert {"Hand_Trophy_Pairs.pbn", "Hazlemere_Trophy.pbn", "Schiphol.pbn", "Wed_Individual.pbn",
            "ruter71.pbn", "big-deal.pbn"} <= names
    assert (PBN_DATA / "LICENSE-richardschneider-pbn.txt").is_file()
    assert len(WBG2024) == 10  # FIN1-6, FIN1-2, QF1-2, SF1: each is checked below


@pytest.mark.parametrize("path", COPIED + WBG2024, ids=lambda p: p.name)
def test_every_board_matches_the_tags_of_the_file(path: Path) -> None:
    games = games_in(path)
    assert games and all(set(g) == {"Board", "Dealer", "Vulnerable", "Deal"} for g in games)
    ds = read_file(path)
    assert len(ds) == len(games)
    for i, game in enumerate(games):
        assert ds.boards[i] == int(game["Board"])
        assert ds.dealers[i] == "NESW".index(game["Dealer"].strip())
        assert ds.vulnerabilities[i] == VULNERABILITY[game["Vulnerable"].strip()]
        assert read_hands(ds, i) == hands_by_seat(game["Deal"])
    assert ds.conforms_to_law2().all()  # these events kept to Law 2


@pytest.mark.parametrize(("name", "index", "board", "dealer", "vul", "hands"), [
    ("Schiphol.pbn", 0, 1, 0, 0,
     {"N": ".63.AKQ987.A9732", "E": "A8654.KQ5.T.QJT6", "S": "J973.J98742.3.K4", "W": "KQT2.AT.J6542.85"}),
    ("Hazlemere_Trophy.pbn", 1, 2, 1, 1,
     {"E": "AJ52.A73.854.KT2", "S": "Q3.T4.AK2.QJ9864", "W": "7.KJ985.QT976.A3", "N": "KT9864.Q62.J3.75"}),
    ("ruter71.pbn", 3, 4, 3, 3,
     {"W": "AQ9843.7654.7.Q4", "N": "J52.AKT3.AK42.86", "E": "KT.Q82.Q6.A97532", "S": "76.J9.JT9853.KJT"}),
    ("big-deal.pbn", 1, 2, 1, 1,
     {"N": "AKQ984.KQT7..Q83", "E": "7.J63.AJT82.A754", "S": "532.854.Q43.KT62", "W": "JT6.A92.K9765.J9"}),
])
def test_boards_copied_out_by_hand(name: str, index: int, board: int, dealer: int, vul: int,
                                   hands: dict[str, str]) -> None:
    ds = read_file(PBN_DATA / name)
    assert (ds.boards[index], ds.dealers[index], ds.vulnerabilities[index]) == (board, dealer, vul)
    assert read_hands(ds, index) == hands


def test_a_squaredeal_session_from_board_17() -> None:
    ds = read_file(SQUAREDEAL / "FIN2.pbn")
    assert ds.boards.tolist() == list(range(17, 33))
    assert (ds.dealers[0], ds.vulnerabilities[0]) == (0, 0)
    assert read_hands(ds, 0) == {"N": "K72.JT63.J972.QT", "E": "QT5.9752.A3.9743",
                                 "S": "43.KQ8.KQT85.AK2", "W": "AJ986.A4.64.J865"}
    assert ds.metadata["generator"] == "Big Deal version 2.0"


def test_event_and_metadata_come_from_the_first_game() -> None:
    ds = read_file(PBN_DATA / "ruter71.pbn")
    assert ds.event == "Klubbkveld"
    assert ds.metadata["date"] == "2012.01.24"
    assert ds.metadata["site"] == "1156 Rekrutteringsklubben Ruter 7, Norge"
    assert read_file(PBN_DATA / "Hazlemere_Trophy.pbn").event == "Hazlemere_Trophy"
