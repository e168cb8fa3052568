"""Reading a 100,000-board PBN file streams: memory stays far below the file's size."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dealer.core.dealset import DealSet
from dealer.formats import write_file
from tests.support.paths import ROOT

BOARDS = 100_000
# In a child process: peak resident memory (MiB) after importing the reader and, with "stream",
# after reading every chunk of the file (each chunk is dropped once counted).
# VmHWM is this process's own high-water mark (getrusage would include the parent's, from before exec).
CHILD = """
import re, sys
from dealer.formats import iter_file
boards = sum(len(chunk) for chunk in iter_file(sys.argv[1])) if sys.argv[2] == "stream" else 0
with open("/proc/self/status") as status:
    print(boards, int(re.search(r"VmHWM:\\s+(\\d+) kB", status.read()).group(1)) / 1024)
"""


def peak_mib(path: Path, mode: str) -> tuple[int, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), mode], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True, timeout=300)
    boards, peak = out.stdout.split()
    return int(boards), float(peak)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="reads /proc/self/status (Linux)")
def test_a_100000_board_file_reads_in_bounded_memory(tmp_path: Path) -> None:
    rng = np.random.default_rng(11)
    deals = rng.permuted(np.tile(np.repeat(np.arange(4, dtype=np.uint8), 13), (BOARDS, 1)), axis=1)
    path = tmp_path / "big.pbn"
    write_file(path, DealSet.from_deals(deals, event="Memory"))
    file_mib = path.stat().st_size / 2**20
    assert file_mib > 25
    _, before = peak_mib(path, "none")
    boards, after = peak_mib(path, "stream")
    assert boards == BOARDS
    # holding the file's text alone would take its size twice over (bytes and str); streaming takes
    # about 16 MiB here, bounded by the 1 MiB blocks and not by the file
    assert after - before < min(40.0, file_mib)
