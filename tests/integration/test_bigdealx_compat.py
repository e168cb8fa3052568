"""Our bigdeal engine and our deal-file readers against files Big Deal's own ``bigdealx`` wrote.

The files are fixtures (tests/data/bigdeal/, made by its make_fixtures.py from a bigdealx built from
Big Deal's public sources); no bigdealx is needed here. Every expected value comes from those files,
read with the plain decoders of :mod:`tests.support.bigdeal_files`; our side is read through
``dealer convert``, the command users run.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dealer.cli import main
from dealer.engines.bigdeal import BigDealEngine
from tests.support.bigdeal_files import (
    Case,
    cases,
    deal_from_pbn,
    goe_numbers,
    manifest,
    pbn_deals,
    pbn_games,
)

CASES = cases()


def test_the_fixtures_cover_what_they_claim() -> None:
    ranges = {c.range: {x.owner for x in CASES if x.range == c.range} for c in CASES}
    assert set(ranges) == {"1", "5-20", "1-100", "16", "2-17", "98-101", "1-99"}
    assert all(len(owners) >= 2 for owners in ranges.values())
    assert len({c.seed for c in CASES}) >= 6
    long_owner = next(c.owner for c in CASES if len(c.owner) == 300 and c.owner.isascii())
    non_ascii = next(c.owner for c in CASES if not c.owner.isascii())
    for owner in ("", long_owner, non_ascii):
        assert len({c.range for c in CASES if c.owner == owner}) >= 3
    assert "Big Deal version" in manifest()["bigdeal"]["banner"]
    for case in CASES:  # DUP and DLM hold boards 1-99: Big Deal skips them for runs beyond
        limited = {"dup", "dupblind", "dlm", "dlmblind"}
        if case.last > 99:
            assert set(case.refused) == limited and not limited & set(case.files)
            assert all(m == f"Format {f} supports 99 as high board, skipping" for f, m in case.refused.items())
        else:
            assert not case.refused and limited <= set(case.files)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_engine_gives_bigdealx_goedel_numbers(case: Case) -> None:
    expected = goe_numbers(case.read("goedel"))
    assert len(expected) == len(case.boards)
    engine = BigDealEngine(bytes.fromhex(case.seed), case.owner_bytes)
    assert engine.numbers(len(expected)) == expected


@pytest.mark.parametrize("case", CASES, ids=str)
def test_engine_gives_bigdealx_pbn_deals(case: Case) -> None:
    data = case.read("pbn")
    assert [int(g["Board"]) for g in pbn_games(data)] == case.boards  # boards first..last get deals 1..n
    expected = pbn_deals(data)
    for use_hashlib in (None, False):  # the default hashing and the numpy RIPEMD-160
        engine = BigDealEngine(bytes.fromhex(case.seed), case.owner_bytes, use_hashlib=use_hashlib)
        assert np.array_equal(engine.deals(len(expected)), expected)


def test_the_owner_changes_the_deals() -> None:
    """One seed with three owners (s1 with "", "Northshire Bridge Association" and Latin-1 "Zürich"):
    Big Deal deals differently, and so do we, each time as Big Deal."""
    same_seed = [c for c in CASES if c.seed == CASES[0].seed and c.range == "16"]
    assert len({c.owner_bytes for c in same_seed}) == 3
    deals = [pbn_deals(c.read("pbn")) for c in same_seed]
    assert all(not np.array_equal(a, b) for k, a in enumerate(deals) for b in deals[k + 1:])
    for case, expected in zip(same_seed, deals, strict=True):
        assert np.array_equal(BigDealEngine(bytes.fromhex(case.seed), case.owner_bytes).deals(16), expected)


# Every deal file Big Deal writes, and whether it carries board numbers (the others are read with
# --first-board, the run's first board). The one other file Big Deal writes, ``stats`` (.txt), holds
# statistics of the set, not deals.
BOARD_NUMBERS = {"pbn": True, "lin": True, "csv": True, "dlm": True, "dlmblind": True, "cds": True,
                 "dup": False, "dupblind": False, "bri": False, "dge": False, "ber": False, "borel": False,
                 "kops": False, "goedel": False}


def test_every_deal_file_big_deal_wrote_is_read() -> None:
    written = {fmt for case in CASES for fmt in case.files}
    assert written - set(BOARD_NUMBERS) == {"stats"}
    assert set(BOARD_NUMBERS) <= written


def games_of_json(data: bytes) -> list[tuple[int, str, str, list[int]]]:
    """(board, dealer, vulnerability, deal) of each board of our JSON file, decoded with the json module
    and the fixtures' own PBN deal decoder."""
    doc = json.loads(data)
    return [(b["board"], b["dealer"], b["vulnerable"], deal_from_pbn(b["deal"])) for b in doc["boards"]]


@pytest.mark.parametrize(("case", "fmt"), [(c, f) for c in CASES for f in BOARD_NUMBERS if f in c.files],
                         ids=lambda v: str(v))
def test_convert_reads_every_bigdealx_file_as_its_pbn(case: Case, fmt: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """``dealer convert FILE out.json`` (with ``--first-board`` where the file holds no numbers) gives
    Big Deal's PBN: the same boards, dealers, vulnerabilities and deals, in order."""
    out = tmp_path / "out.json"
    extra = [] if BOARD_NUMBERS[fmt] else ["--first-board", str(case.first)]
    assert main(["convert", str(case.path(fmt)), str(out), *extra]) == 0, capsys.readouterr().err
    expected = [(int(g["Board"]), g["Dealer"], g["Vulnerable"], deal_from_pbn(g["Deal"]))
                for g in pbn_games(case.read("pbn"))]
    assert [g[0] for g in expected] == case.boards
    assert games_of_json(out.read_bytes()) == expected
    shown = capsys.readouterr().err
    if not BOARD_NUMBERS[fmt]:
        assert "--first-board N" not in shown  # the numbers were given: no hint to give them


@pytest.mark.parametrize("case", [c for c in CASES if c.first > 1], ids=str)
def test_a_file_without_board_numbers_read_without_first_board_says_so(case: Case, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Read without --first-board, a BRI of boards 5-20 is boards 1-16, said to be a guess, and the PBN Big
    Deal wrote beside it named as what makes it certain; the deals are Big Deal's in order."""
    out = tmp_path / "out.json"
    assert main(["convert", str(case.path("bri")), str(out)]) == 0
    shown = capsys.readouterr().err
    assert "numbered from 1, a guess the file cannot confirm" in shown
    assert f"{case.path('pbn')} beside it holds the same deals from board {case.first}: read with --first-board " \
           f"{case.first}" in shown
    got = games_of_json(out.read_bytes())
    assert [g[0] for g in got] == list(range(1, len(case.boards) + 1))
    assert np.array_equal([g[3] for g in got], pbn_deals(case.read("pbn")))
