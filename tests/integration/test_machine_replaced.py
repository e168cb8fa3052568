"""A machine is who it says: a run's machine taken away mid-run and another answering on the same port (a USB
adapter re-enumerated under another machine's name, a pty number reused) is sent nothing but the handshake that
tells them apart (its serial number); the station stops in one line naming both serial numbers and what to do,
exit 5; the other machine's ledger holds no dealing."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from dealer import formats
from hil import PtySimulator, SimConfig
from tests.support.controllers import deal_set, dealt, finish, read_until, start

pytestmark = [pytest.mark.pty,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")]


def test_another_machine_on_the_port_mid_run_is_sent_no_deal(tmp_path: Path) -> None:
    deal_file = tmp_path / "s.pbn"
    formats.write_file(deal_file, deal_set(41, 6))
    link = tmp_path / "machine"
    first = PtySimulator(SimConfig(speed=100.0, seed=1, set_name="A", boards=(1, 2)), link=link)
    first.start()
    other = PtySimulator(SimConfig(speed=100.0, seed=2), link=link)
    proc = start("deal", str(deal_file), "--port", str(link), "--journal", str(tmp_path / "s.journal"), "--plain",
                 cwd=tmp_path)
    try:
        read_until(proc, "insert board A 3")  # boards 1-2 dealt; the run waits for board 3
        first.stop()  # taken away; another machine comes on the same port
        other.start()
        ended = finish(proc)
    finally:
        other.stop()
        first.stop()
    assert ended.code == 5, ended.err
    errors = [line for line in ended.err.splitlines() if line.startswith("dealer: error: ")]
    assert len(errors) == 1 and "Traceback" not in ended.err, ended.err
    serials = re.findall(r"serial (SIM-[0-9A-F]{8})", errors[0])
    assert serials == [other.config.serial_number, first.config.serial_number], errors[0]
    assert "--resume" in errors[0]
    assert sorted(dealt([first]).values()) == [1, 1]
    assert dealt([other]) == {}
    with other.lock:
        assert other.device is not None and other.device.ledger.records == []
