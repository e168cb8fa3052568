"""`dealer generate -o FILE.pbn` end to end, with a stand-in engine (the real engines live elsewhere)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dealer import engines
from dealer.cli import main
from dealer.core.cards import to_pbn
from dealer.formats import read_file


class StandInEngine:
    """A seeded numpy stream of deals: enough to drive the command, not an engine for real use."""

    name = "bigdeal"

    def __init__(self) -> None:
        self.rng = np.random.default_rng(2024)

    def deals(self, count: int) -> np.ndarray:
        rows = np.tile(np.repeat(np.arange(4, dtype=np.uint8), 13), (count, 1))
        return self.rng.permuted(rows, axis=1)


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> list[np.ndarray]:
    made: list[np.ndarray] = []

    def make_engine(name: str, seed: bytes, owner: str = "") -> StandInEngine:
        engine = StandInEngine()
        original = engine.deals

        def deals(count: int) -> np.ndarray:
            made.append(original(count))
            return made[-1]

        engine.deals = deals  # type: ignore[method-assign]
        return engine

    monkeypatch.setattr(engines, "make_engine", make_engine)
    return made


def test_generate_writes_an_export_pbn_file(tmp_path: Path, stand_in: list[np.ndarray],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "session.pbn"
    args = ["generate", "--boards", "5-20", "--seed", "ab" * 20, "--event", "Club night", "-o", str(out)]
    assert main(args) == 0
    data = out.read_bytes()
    assert data.startswith(b'% PBN 2.1\r\n% EXPORT\r\n[Event "Club night"]\r\n')
    assert b'[Generator "dealer bigdeal"]\r\n' in data
    ds = read_file(out)
    assert ds.boards.tolist() == list(range(5, 21))
    assert ds.conforms_to_law2().all()
    assert np.array_equal(ds.deals, stand_in[0])  # boards 5-20 are the first 16 deals of the stream
    shown = capsys.readouterr()
    hands = to_pbn(stand_in[0][0])[2:].split()
    assert not any(hand in shown.out + shown.err for hand in hands)  # deals are never printed


def test_generate_refuses_to_overwrite_without_force(tmp_path: Path, stand_in: list[np.ndarray],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.pbn"
    out.write_bytes(b"keep me")
    assert main(["generate", "--boards", "1-4", "-o", str(out)]) != 0
    assert out.read_bytes() == b"keep me"
    assert "exists" in capsys.readouterr().err
    assert main(["generate", "--boards", "1-4", "-o", str(out), "--force"]) == 0
    assert len(read_file(out)) == 4
