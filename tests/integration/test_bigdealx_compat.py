"""Our bigdeal engine against Big Deal's own ``bigdealx`` on random seeds and owners.

Runs only where a ``bigdealx`` binary is on PATH (it is not part of this project); each run is
``bigdealx -h SEED -W OWNER -n RANGE -f goedel,pbn -p PREFIX`` in a temporary folder with a
``.bigdealrc`` that asks no questions.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from dealer.cli import main
from dealer.core.boards import parse_board_range
from dealer.core.cards import from_pbn
from dealer.engines.bigdeal import BigDealEngine

BIGDEALX = shutil.which("bigdealx")
pytestmark = pytest.mark.skipif(BIGDEALX is None, reason="bigdealx (Big Deal) is not on PATH")

RC = "[BigDeal]\nformats=pbn\naskformats=no\nowner=Identification of owner or tournament\n"


def run_bigdealx(folder: Path, seed: bytes, owner: str,
                 boards: str) -> tuple[list[int], np.ndarray, list[int]]:
    """Numbers, deals and board numbers bigdealx writes for a seed, owner and board range."""
    (folder / ".bigdealrc").write_text(RC)
    assert BIGDEALX is not None
    args: list[str | bytes] = [BIGDEALX, "-h", seed.hex(), "-W", os.fsencode(owner), "-n", boards,
            "-f", "goedel,pbn", "-p", "out"]
    subprocess.run(args, cwd=folder, stdin=subprocess.DEVNULL, capture_output=True, check=True, timeout=60)
    numbers = [int(x.replace(",", "")) for x in (folder / "out.goe").read_text().splitlines() if x.strip()]
    pbn = (folder / "out.pbn").read_text()
    deals = np.array([from_pbn(d) for d in re.findall(r'\[Deal "([^"]+)"\]', pbn)])
    board_numbers = [int(b) for b in re.findall(r'\[Board "(\d+)"\]', pbn)]
    return numbers, deals, board_numbers


OWNERS = ["", "Joe Blow, from Dealville, IL", "Bridgeclub Ümlaut – Zürich", "x" * 300, "a:b;c\"d'e"]


@pytest.mark.parametrize("case", range(20))
def test_random_seeds_and_owners_match_bigdealx(tmp_path: Path, case: int) -> None:
    rng = np.random.default_rng(2024 + case)
    seed = rng.bytes(20)
    owner = OWNERS[case % len(OWNERS)] + (f" #{case}" if case >= len(OWNERS) else "")
    boards = ["16", "5-20", "1-36", "100"][case % 4]
    numbers, deals, board_numbers = run_bigdealx(tmp_path, seed, owner, boards)
    expected_boards = parse_board_range(boards if "-" in boards else f"1-{boards}")
    assert board_numbers == expected_boards
    engine = BigDealEngine(seed, owner)
    assert engine.numbers(len(expected_boards)) == numbers
    assert np.array_equal(BigDealEngine(seed, owner).deals(len(expected_boards)), deals)


def pbn_tags(path: Path) -> tuple[list[str], list[str], list[str], np.ndarray]:
    """Boards, dealers, vulnerabilities and deals of a PBN file, read with plain regular expressions."""
    text = path.read_text(encoding="latin-1")
    return (re.findall(r'\[Board "(\d+)"\]', text), re.findall(r'\[Dealer "(\w)"\]', text),
            re.findall(r'\[Vulnerable "(\w+)"\]', text),
            np.array([from_pbn(d) for d in re.findall(r'\[Deal "([^"]+)"\]', text)]))


@pytest.mark.parametrize(("case", "boards"), [(0, "1-16"), (1, "5-20"), (2, "1-36")])
def test_dealer_generate_writes_what_bigdealx_writes(tmp_path: Path, case: int, boards: str) -> None:
    seed = np.random.default_rng(77 + case).bytes(20)
    owner = f"Generate check {case} – Ærø"
    (tmp_path / ".bigdealrc").write_text(RC)
    assert BIGDEALX is not None
    subprocess.run([BIGDEALX, "-h", seed.hex(), "-W", os.fsencode(owner), "-n", boards, "-f", "pbn", "-p", "bd"],
                   cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, check=True, timeout=60)
    ours = tmp_path / "ours.pbn"
    assert main(["generate", "--boards", boards, "--seed", seed.hex(), "--owner", owner, "-o", str(ours)]) == 0
    theirs = pbn_tags(tmp_path / "bd.pbn")
    mine = pbn_tags(ours)
    assert mine[:3] == theirs[:3]
    assert np.array_equal(mine[3], theirs[3])
