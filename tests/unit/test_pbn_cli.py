"""`dealer generate -o FILE.pbn` end to end with the real default engine.

The deals it must write come from Big Deal's own files (tests/data/bigdeal/); the comparison of
every case and every format with Big Deal's is tests/integration/test_generate_vs_bigdeal.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dealer.cli import main
from dealer.core.errors import OutputExistsError
from dealer.formats import read_file
from tests.support.bigdeal_files import cases, pbn_deals, pbn_games

CASE = next(c for c in cases() if c.range == "5-20")


def test_generate_writes_an_export_pbn_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "session.pbn"
    args = ["generate", "--boards", "5-20", "--seed", CASE.seed, "--owner", CASE.owner, "--event", "Club night",
            "-o", str(out)]
    assert main(args) == 0
    data = out.read_bytes()
    assert data.startswith(b'% PBN 2.1\r\n% EXPORT\r\n[Event "Club night"]\r\n')
    assert b'[Generator "dealer bigdeal"]\r\n' in data
    ds = read_file(out)
    assert ds.boards.tolist() == list(range(5, 21))
    assert ds.conforms_to_law2().all()
    # boards 5-20 get the first 16 deals of the stream, as bigdealx -n 5-20 gives them
    assert np.array_equal(ds.deals, pbn_deals(CASE.read("pbn")))
    shown = capsys.readouterr()
    hands = pbn_games(CASE.read("pbn"))[0]["Deal"][2:].split()
    assert not any(hand in shown.out + shown.err for hand in hands)  # deals are never printed


def test_generate_refuses_to_overwrite_without_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.pbn"
    out.write_bytes(b"keep me")
    assert main(["generate", "--boards", "1-4", "-o", str(out)]) == OutputExistsError.exit_code
    assert out.read_bytes() == b"keep me"
    assert "exists" in capsys.readouterr().err
    assert main(["generate", "--boards", "1-4", "-o", str(out), "--force"]) == 0
    assert len(read_file(out)) == 4
