"""Wire traces (`spy://PORT?file=TRACE`) hold every deal in clear: `dealer deal` through pyserial's spy on a
pseudo-terminal writes the trace 0600 under any umask, makes an existing trace 0600, and refuses a trace
that is a symbolic link before anything is written, making nothing where it points."""

from __future__ import annotations

import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer import formats
from dealer.core.dealset import DealSet
from dealer.journal.history import DealHistory
from hil.config import SimConfig
from hil.pty_sim import PtySimulator
from tests.support.deals import random_deals
from tests.support.processes import dealer

pytestmark = [pytest.mark.pty,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")]


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[PtySimulator]:
    simulator = PtySimulator(SimConfig(speed=200.0, seed=5), link=tmp_path / "dealer-sim")
    simulator.start()
    yield simulator
    simulator.stop()


@pytest.fixture
def deal_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DEALER_HISTORY", str(tmp_path / "history.sqlite"))
    DealHistory.open(tmp_path / "history.sqlite", create=True).close()
    path = tmp_path / "session.pbn"
    formats.write_file(path, DealSet.from_deals(random_deals(21, 6), list(range(1, 7))))
    return path


def traced(sim: PtySimulator, deal_file: Path, trace: Path, boards: str, umask: int = -1) -> tuple[int, str]:
    """`dealer deal` of `boards` through a spy port tracing into `trace`: its exit code and standard error."""
    run = dealer("deal", str(deal_file), "--boards", boards, "--journal", f"{deal_file}.{boards}.journal",
                 "--port", f"spy://{sim.path}?file={trace}", cwd=deal_file.parent, umask=umask)
    return run.returncode, run.stderr


def test_a_trace_is_private_under_any_umask_and_an_old_one_is_made_private(sim: PtySimulator, deal_file: Path,
                                                                           tmp_path: Path) -> None:
    for boards, umask in (("1-2", 0o077), ("3-4", 0o022)):
        trace = tmp_path / f"trace-{boards}.txt"
        code, err = traced(sim, deal_file, trace, boards, umask)
        assert code == 0, err
        assert stat.S_IMODE(trace.stat().st_mode) == 0o600
        assert any(" TX " in line for line in trace.read_text().splitlines())
    old = tmp_path / "old-trace.txt"
    old.write_text("an earlier trace\n")
    old.chmod(0o644)
    code, err = traced(sim, deal_file, old, "5-6", 0o022)
    assert code == 0, err
    assert stat.S_IMODE(old.stat().st_mode) == 0o600 and "an earlier trace" not in old.read_text()


def test_a_trace_that_is_a_link_is_refused_before_anything_is_written(sim: PtySimulator, deal_file: Path,
                                                                     tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    link = tmp_path / "trace.txt"
    link.symlink_to(tmp_path / "elsewhere" / "trace.txt")
    code, err = traced(sim, deal_file, link, "1-2")
    assert code == 4, err
    assert err.splitlines()[-1] == (f"dealer: error: spy://{sim.path}?file={link}: cannot write the wire trace: "
                                    f"{link}: is a symbolic link (to {tmp_path / 'elsewhere' / 'trace.txt'}); "
                                    "dealer does not write through a link: name the file itself, or remove the link")
    assert list((tmp_path / "elsewhere").iterdir()) == [] and link.is_symlink()
    assert not Path(f"{deal_file}.1-2.journal").exists()  # refused before the journal: nothing to resume
    code, err = traced(sim, deal_file, tmp_path / "own.txt", "1-2")
    assert code == 0, err  # the same command with a trace of its own deals, nothing deleted by hand
