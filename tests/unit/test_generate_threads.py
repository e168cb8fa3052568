"""`dealer generate --threads N`: the file is the same for any N, made and written in pieces (so any
number of boards takes bounded memory), and still Big Deal's deals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dealer import engines, formats
from dealer.cli import generate, main
from dealer.core.dealset import DealSet
from dealer.formats import pbn_export, read_file
from tests.support.bigdeal_files import cases, pbn_deals

CASE = next(c for c in cases() if c.range == "5-20")
SEEDS = {"bigdeal": "0123456789abcdef0123456789abcdef01234567",
         "shuffle": "5eed0000c0ffee11223344556677889900aabbccddeeff0123456789abcdef01"}


@pytest.mark.parametrize("engine", ["bigdeal", "shuffle"])
def test_the_file_is_the_same_on_any_number_of_threads(engine: str, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces of 97 boards and PBN chunks of 13 games, over two board spans: every thread count writes
    the bytes one thread writes, which hold the engine's stream in board order."""
    monkeypatch.setattr(generate, "PIECE", 97)
    monkeypatch.setattr(pbn_export, "_GAMES_PER_CHUNK", 13)
    files = {}
    for threads in (1, 2, 5):
        out = tmp_path / f"t{threads}.pbn"
        assert main(["generate", "--boards", "1-700,801-1000", "--engine", engine, "--seed", SEEDS[engine],
                     "--owner", "o", "--threads", str(threads), "-o", str(out)]) == 0
        files[threads] = out.read_bytes()
    assert files[2] == files[1] and files[5] == files[1]
    written = read_file(tmp_path / "t1.pbn")
    assert written.boards.tolist() == [*range(1, 701), *range(801, 1001)]
    stream = engines.make_engine(engine, bytes.fromhex(SEEDS[engine]), "o", threads=1).deals(900)
    assert np.array_equal(written.deals, stream)
    assert written.conforms_to_law2().all()


def test_pieces_on_threads_still_give_big_deals_own_deals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(generate, "PIECE", 3)
    out = tmp_path / "session.pbn"
    assert main(["generate", "--boards", "5-20", "--seed", CASE.seed, "--owner", CASE.owner, "--threads", "3",
                 "-o", str(out)]) == 0
    assert np.array_equal(read_file(out).deals, pbn_deals(CASE.read("pbn")))


def test_the_engine_is_never_asked_for_more_than_a_piece(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(generate, "PIECE", 100)
    asked: list[int] = []
    real = engines.make_engine

    def spying(*args: Any, **kwargs: Any) -> engines.Engine:
        engine = real(*args, **kwargs)
        deals = engine.deals

        def counted(count: int) -> np.ndarray:
            asked.append(count)
            return deals(count)

        engine.deals = counted  # type: ignore[method-assign]
        return engine

    monkeypatch.setattr(engines, "make_engine", spying)
    assert main(["generate", "--boards", "1-1050", "-o", str(tmp_path / "x.pbn")]) == 0
    assert asked == [100] * 10 + [50]
    assert len(read_file(tmp_path / "x.pbn")) == 1050


@pytest.mark.parametrize("value", ["0", "-2", "two"])
def test_a_thread_count_below_one_is_a_usage_error(value: str, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.pbn"
    assert main(["generate", "--boards", "1-4", "--threads", value, "-o", str(out)]) == 2
    assert f"--threads: must be a whole number from 1; got '{value}'" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("suffix", ["pbn", "dup", "json"])
def test_writing_parts_is_writing_them_joined(suffix: str, tmp_path: Path) -> None:
    """PBN writes each part as it comes; the others join the parts first: the same bytes either way."""
    deals = engines.make_engine("shuffle", bytes(32), threads=1).deals(60)
    whole = DealSet.from_deals(deals, range(1, 61), event="Parts")
    parts = [DealSet.from_deals(deals[a:b], range(a + 1, b + 1), event="Parts") for a, b in ((0, 7), (7, 7), (7, 60))]
    formats.write_file(tmp_path / f"whole.{suffix}", whole)
    formats.write_file_parts(tmp_path / f"parts.{suffix}", iter(parts), threads=3)
    assert (tmp_path / f"parts.{suffix}").read_bytes() == (tmp_path / f"whole.{suffix}").read_bytes()
