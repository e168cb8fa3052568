"""The PBN writer: export format of PBN 2.1, byte for byte, and deal sets that come back unchanged."""

from __future__ import annotations

import datetime as dt
import io
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer import __version__
from dealer.core.cards import from_pbn, to_pbn
from dealer.core.dealset import DealSet
from dealer.core.errors import UsageError
from dealer.formats import pbn

DEAL_1 = "N:AJ9.K9542.Q.AK93 K.QJ76.K98763.75 QT6543.AT.JT.T62 872.83.A542.QJ84"
DEAL_2 = "N:AKQ984.KQT7..Q83 7.J63.AJT82.A754 532.854.Q43.KT62 JT6.A92.K9765.J9"
MTS = ("Event", "Site", "Date", "Board", "West", "North", "East", "South", "Dealer", "Vulnerable", "Deal",
       "Scoring", "Declarer", "Contract", "Result")


def written(deals: DealSet, **options: object) -> bytes:
    out = io.BytesIO()
    pbn.write(out, deals, **options)
    return out.getvalue()


def sample() -> DealSet:
    return DealSet.from_deals(np.stack([from_pbn(DEAL_1), from_pbn(DEAL_2)]))


# Written by hand from standard 2.1: sections 2.3 (CRLF), 2.4 (% lines), 3 (an empty line starts every
# game but the first), 3.3 and 3.4 (the MTS in order, tag pair layout, escapes), 3.4.11 (the deal from
# the dealer, ranks descending), then the supplemental Generator tag.
GOLDEN = (
    b'% PBN 2.1\r\n'
    b'% EXPORT\r\n'
    b'[Event "Club \\"Spring\\" Pairs"]\r\n'
    b'[Site "Utrecht"]\r\n'
    b'[Date "2024.03.05"]\r\n'
    b'[Board "1"]\r\n'
    b'[West ""]\r\n'
    b'[North ""]\r\n'
    b'[East ""]\r\n'
    b'[South ""]\r\n'
    b'[Dealer "N"]\r\n'
    b'[Vulnerable "None"]\r\n'
    b'[Deal "N:AJ9.K9542.Q.AK93 K.QJ76.K98763.75 QT6543.AT.JT.T62 872.83.A542.QJ84"]\r\n'
    b'[Scoring ""]\r\n'
    b'[Declarer ""]\r\n'
    b'[Contract ""]\r\n'
    b'[Result ""]\r\n'
    b'[Generator "Test generator"]\r\n'
    b'\r\n'
    b'[Event "Club \\"Spring\\" Pairs"]\r\n'
    b'[Site "Utrecht"]\r\n'
    b'[Date "2024.03.05"]\r\n'
    b'[Board "2"]\r\n'
    b'[West ""]\r\n'
    b'[North ""]\r\n'
    b'[East ""]\r\n'
    b'[South ""]\r\n'
    b'[Dealer "E"]\r\n'
    b'[Vulnerable "NS"]\r\n'
    b'[Deal "E:7.J63.AJT82.A754 532.854.Q43.KT62 JT6.A92.K9765.J9 AKQ984.KQT7..Q83"]\r\n'
    b'[Scoring ""]\r\n'
    b'[Declarer ""]\r\n'
    b'[Contract ""]\r\n'
    b'[Result ""]\r\n'
    b'[Generator "Test generator"]\r\n'
    b'\r\n'
    b'% dealer: 2 boards in this file, which ends here\r\n'  # 2.4: an escape line, which every reader passes over
)


def mark(boards: int) -> bytes:
    """The escape line this program ends a PBN file with, after an empty line (see GOLDEN)."""
    return b"\r\n% dealer: " + str(boards).encode() + b" boards in this file, which ends here\r\n"


def test_golden_export() -> None:
    data = written(sample(), event='Club "Spring" Pairs', site="Utrecht", date=dt.date(2024, 3, 5),
                   generator="Test generator")
    assert data == GOLDEN


def test_defaults_unknown_event_and_this_program_as_generator() -> None:
    text = written(sample()).decode("latin-1")
    assert text.startswith('% PBN 2.1\r\n% EXPORT\r\n[Event "?"]\r\n[Site "?"]\r\n[Date "?"]\r\n[Board "1"]')
    assert f'[Generator "dealer {__version__}"]\r\n' in text


def test_event_and_metadata_of_the_deal_set_are_the_defaults() -> None:
    deals = DealSet.from_deals(sample().deals, [9, 10], event="Night",
                               metadata={"site": "Zeist", "date": "20240306", "generator": "dealer bigdeal"})
    text = written(deals).decode("latin-1")
    for line in ('[Event "Night"]', '[Site "Zeist"]', '[Date "2024.03.06"]', '[Generator "dealer bigdeal"]',
                 '[Board "10"]\r\n', '[Dealer "E"]\r\n[Vulnerable "All"]\r\n[Deal "E:'):
        assert line in text


def test_an_empty_set_is_the_header_alone() -> None:
    assert written(DealSet.from_deals(np.empty((0, 52), np.uint8))) == b"% PBN 2.1\r\n% EXPORT\r\n" + mark(0)


@pytest.mark.parametrize(("options", "message"), [
    ({"colour": "red"}, "PBN has no option colour"),
    ({"date": "5 March"}, "date '5 March' is not YYYY.MM.DD"),
    ({"event": "x" * 201}, "event is longer than PBN's lines allow"),
    ({"site": '"' * 101}, "site is longer than PBN's lines allow"),
    ({"event": "Łódź"}, "has characters PBN cannot hold"),
])
def test_options_pbn_cannot_hold_are_refused(options: dict[str, str], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        written(sample(), **options)


def test_values_from_other_files_are_made_to_fit() -> None:
    deals = DealSet.from_deals(sample().deals, event="Łódź\tcup " + "x" * 300, metadata={"date": "soon"})
    text = written(deals).decode("latin-1")
    event = re.search(r'\[Event "(.*)"\]', text)
    assert event and event.group(1).startswith("?ód? cup x") and len(event.group(1)) == 200
    assert '[Date "?"]' in text
    quoted = written(DealSet.from_deals(sample().deals, event='"' * 300)).split(b"\r\n")
    assert quoted[2] == b'[Event "' + b'\\"' * 100 + b'"]'


def test_export_layout_of_a_large_set() -> None:
    rng = np.random.default_rng(5)
    deals = rng.permuted(np.tile(np.repeat(np.arange(4, dtype=np.uint8), 13), (20_000, 1)), axis=1)
    data = written(DealSet.from_deals(deals, event="E"))
    assert data.endswith(mark(20_000))
    data = data[:-len(mark(20_000))]
    assert b"\t" not in data and re.search(rb"[^\r]\n", data) is None and data.endswith(b"\r\n")
    assert max(len(line) for line in data.split(b"\r\n")) + 2 <= 255
    games = data.decode("ascii").split("\r\n\r\n")
    assert len(games) == 20_000
    for game in games[:: 997]:
        names = re.findall(r'^\[(\w+) "', game, re.MULTILINE)
        assert names == [*MTS, "Generator"]
        dealer = re.search(r'\[Dealer "(.)"\]', game)
        deal = re.search(r'\[Deal "(.):(.*)"\]', game)
        assert dealer and deal and deal.group(1) == dealer.group(1)
        for hand in deal.group(2).split(" "):
            for suit in hand.split("."):
                assert list(suit) == sorted(suit, key="AKQJT98765432".index)


def deal_sets() -> st.SearchStrategy[DealSet]:
    """Any deal set: random deals, any board numbers, dealers and vulnerabilities, a plain event name."""
    row = st.permutations(np.repeat(np.arange(4, dtype=np.uint8), 13).tolist())
    return st.integers(0, 12).flatmap(lambda n: st.builds(
        lambda deals, boards, dealers, vuls, event: DealSet(
            np.array(boards, dtype=np.int64), np.array(deals, dtype=np.uint8).reshape(n, 52),
            np.array(dealers), np.array(vuls), event),
        st.lists(row, min_size=n, max_size=n),
        st.lists(st.integers(1, 2**63 - 1), min_size=n, max_size=n),
        st.lists(st.integers(0, 3), min_size=n, max_size=n),
        st.lists(st.integers(0, 3), min_size=n, max_size=n),
        st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40).map(str.strip)
        .filter(lambda e: e != "?" and not e.startswith("#")),
    ))


@settings(max_examples=200, deadline=None)
@given(deal_sets())
def test_any_deal_set_comes_back_from_its_file(deals: DealSet) -> None:
    back = DealSet.concat(pbn.read(io.BytesIO(written(deals)), "x.pbn"))
    assert back.same_deals(deals)
    assert back.event == deals.event or not len(deals)  # an empty set writes no game to hold it


def plain_game(board: int, dealer: int, vul: int, deal: np.ndarray, event: str) -> str:
    """One game of export form written out tag by tag, the deal text from dealer.core.cards.to_pbn."""
    tags = [("Event", event), ("Site", "?"), ("Date", "?"), ("Board", str(board)), ("West", ""), ("North", ""),
            ("East", ""), ("South", ""), ("Dealer", "NESW"[dealer]), ("Vulnerable", ("None", "NS", "EW", "All")[vul]),
            ("Deal", to_pbn(deal, dealer)), ("Scoring", ""), ("Declarer", ""), ("Contract", ""), ("Result", ""),
            ("Generator", "gen")]
    return "".join(f'[{name} "{value}"]\r\n' for name, value in tags)


def test_bulk_export_equals_the_games_written_one_by_one() -> None:
    # more games than one chunk of the writer; every dealer and vulnerability, board numbers of 1-19 digits
    rng = np.random.default_rng(11)
    n = 10_000
    deals = rng.permuted(np.tile(np.repeat(np.arange(4, dtype=np.uint8), 13), (n, 1)), axis=1)
    boards = np.where(rng.random(n) < 0.5, rng.integers(1, 100, n), 10 ** rng.integers(0, 19, n))
    boards = boards + rng.integers(0, 9, n)
    dealers, vuls = rng.integers(0, 4, n).astype(np.uint8), rng.integers(0, 4, n).astype(np.uint8)
    data = written(DealSet(boards, deals, dealers, vuls, "Cup"), generator="gen")
    games = [plain_game(int(b), int(d), int(v), deal, "Cup")
             for b, d, v, deal in zip(boards, dealers, vuls, deals, strict=True)]
    assert data == ("% PBN 2.1\r\n% EXPORT\r\n" + "\r\n".join(games)).encode("ascii") + mark(n)
    assert len(set(np.char.str_len(boards.astype(str)).tolist())) == 19


@pytest.mark.parametrize("first", [1, 6])
def test_consecutive_boards_copied_a_cycle_at_a_time_equal_the_games_written_one_by_one(
        first: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs of consecutive boards (Law 2 dealer and vulnerability, numbers crossing 9/10, 99/100 and
    999/1000), one run whose vulnerabilities keep a 16-board cycle of their own and one that breaks it:
    chunks of 64 games, most copied cycle by cycle, all equal to the games written tag by tag."""
    from dealer.formats import pbn_export

    monkeypatch.setattr(pbn_export, "_GAMES_PER_CHUNK", 64)
    copied: list[bool] = []
    real = pbn_export._games_of_cycles

    def spied(*args: object) -> object:
        games = real(*args)  # type: ignore[arg-type]
        copied.append(games is not None)
        return games

    monkeypatch.setattr(pbn_export, "_games_of_cycles", spied)
    rng = np.random.default_rng(17)
    n = 1200
    deals = rng.permuted(np.tile(np.repeat(np.arange(4, dtype=np.uint8), 13), (n, 1)), axis=1)
    law2 = DealSet.from_deals(deals, range(first, first + n), event="Cup")
    own_cycle = DealSet(law2.boards, deals, law2.dealers, np.roll(law2.vulnerabilities, 5), "Cup")
    broken = DealSet(law2.boards, deals, law2.dealers, law2.vulnerabilities.copy(), "Cup")
    broken.vulnerabilities[700] = 1 if broken.vulnerabilities[700] == 0 else 0  # None is 4 letters, the others fewer
    for deal_set in (law2, own_cycle, broken):
        data = written(deal_set, generator="gen")
        games = [plain_game(int(b), int(d), int(v), deal, "Cup") for b, d, v, deal in
                 zip(deal_set.boards, deal_set.dealers, deal_set.vulnerabilities, deal_set.deals, strict=True)]
        assert data == ("% PBN 2.1\r\n% EXPORT\r\n" + "\r\n".join(games)).encode("ascii") + mark(n)
    assert copied.count(True) >= 40 and copied.count(False) == 1  # both ways were taken
