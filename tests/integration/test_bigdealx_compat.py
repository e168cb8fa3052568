"""Our bigdeal engine and our deal-file readers against files Big Deal's own ``bigdealx`` wrote.

The files are fixtures (tests/data/bigdeal/, made by its make_fixtures.py from a bigdealx built from
Big Deal's public sources); no bigdealx is needed here. Every expected value comes from those files,
read with the plain decoders of :mod:`tests.support.bigdeal_files`.
"""

from __future__ import annotations

import numpy as np
import pytest

from dealer import formats
from dealer.engines.bigdeal import BigDealEngine
from tests.support.bigdeal_files import Case, cases, goe_numbers, manifest, pbn_deals, pbn_games

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
    engine = BigDealEngine(bytes.fromhex(case.seed), case.owner)
    assert engine.numbers(len(expected)) == expected


@pytest.mark.parametrize("case", CASES, ids=str)
def test_engine_gives_bigdealx_pbn_deals(case: Case) -> None:
    data = case.read("pbn")
    assert [int(g["Board"]) for g in pbn_games(data)] == case.boards  # boards first..last get deals 1..n
    expected = pbn_deals(data)
    for use_hashlib in (None, False):  # the default hashing and the numpy RIPEMD-160
        engine = BigDealEngine(bytes.fromhex(case.seed), case.owner, use_hashlib=use_hashlib)
        assert np.array_equal(engine.deals(len(expected)), expected)


def test_the_owner_changes_the_deals() -> None:
    """One seed with two owners (s1 with "" and with "Northshire Bridge Association"): Big Deal deals
    differently, and so do we, each time as Big Deal."""
    same_seed = [c for c in CASES if c.seed == CASES[0].seed and c.range == "16"]
    assert len({c.owner for c in same_seed}) == 2
    deals = [pbn_deals(c.read("pbn")) for c in same_seed]
    assert not np.array_equal(deals[0], deals[1])
    for case, expected in zip(same_seed, deals, strict=True):
        assert np.array_equal(BigDealEngine(bytes.fromhex(case.seed), case.owner).deals(16), expected)


# Big Deal format -> whether the file carries board numbers (the others are numbered from 1 on reading)
READABLE = {"pbn": True, "lin": True, "csv": True, "dlm": True, "dlmblind": True, "dup": False,
            "dupblind": False, "bri": False, "dge": False, "ber": False, "borel": False}


def _readable(case: Case) -> list[str]:
    out = []
    for fmt in READABLE:
        if fmt not in case.files:
            continue
        # A BHG line starts with the dealer's hand and the file holds no board numbers, so it can be
        # read only knowing its first board: our reader takes board 1. Big Deal's files of runs
        # starting at another board than 1, 5, 9, ... are not readable as they stand.
        if fmt == "borel" and (case.first - 1) % 4:
            continue
        out.append(fmt)
    return out


@pytest.mark.parametrize(("case", "fmt"), [(c, f) for c in CASES for f in _readable(c)],
                         ids=lambda v: str(v))
def test_our_readers_read_bigdealx_files(case: Case, fmt: str) -> None:
    expected = pbn_deals(case.read("pbn"))
    got = formats.read_file(case.path(fmt))
    assert np.array_equal(got.deals, expected)
    if READABLE[fmt]:
        assert got.boards.tolist() == case.boards
