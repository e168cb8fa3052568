"""A noisy line slows the run and never stops it: the host's dealing run (the code `dealer deal` runs, with
its default settings) over simulated machines whose line drops and replaces bytes in both directions.

In memory and in virtual time (`hil.Loopback`), so that a line that damages one byte in ten - where a
69-byte recount report gets through about once in 1,400 tries - is dealt to the end in moments of real
time. Judged by the simulator's record: every board holds its deal (dealt once it was checked, into an
empty board lying straight), and every LoadDeal the machine accepted is byte-equal to one the host
wrote and carries its board's deal from the deal file. The same through `dealer deal` and real ptys:
`tests/pty/test_noisy_line_cli.py`.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dealer import formats
from dealer.core.dealset import DealSet
from dealer.core.errors import DeviceTimeout
from dealer.dealing.machine import Machine
from dealer.dealing.run import RunOptions, deal_session, raise_for
from dealer.dealing.sim_ports import loopback_opener
from hil.config import SimConfig
from hil.loopback import Loopback
from tests.support.deals import pbn_deals, random_deals
from tests.support.noisy_line import check_ledger, check_load_deals, check_noise
from tests.support.physical_truth import check_physical_truth


@pytest.fixture(autouse=True)
def _no_leaks(hil_leak_check: None) -> Iterator[None]:
    yield


def deal_file(tmp_path: Path, boards: int) -> tuple[DealSet, dict[int, str]]:
    """A deal file of `boards` boards, and its deals as read back as plain text."""
    path = tmp_path / "noisy.pbn"
    deals = DealSet.from_deals(random_deals(11, boards), range(1, boards + 1))
    formats.write_file(path, deals)
    return deals, pbn_deals(path)


def run(loops: dict[str, Loopback], deals: DealSet, journal: Path) -> tuple[bool, str, list[str]]:
    """`deal_session` on the loopbacks' machines, every setting at its default."""
    out = io.StringIO()

    def factory(url: str) -> Machine:
        loop = loops[url]
        return Machine(url, opener=loopback_opener(loop), clock=loop.clock,
                       sleep=loop.clock.sleep)  # type: ignore[attr-defined]

    result = deal_session(deals, "noisy.pbn", RunOptions(ports=list(loops), journal=journal, machine_factory=factory,
                                                         out=out))
    return result.complete, out.getvalue(), result.errors


@pytest.mark.parametrize("rate", [0.01, 0.05, 0.10])
def test_every_board_is_dealt_with_its_deal_through_a_noisy_line(rate: float, tmp_path: Path) -> None:
    deals, written = deal_file(tmp_path, 4)
    with Loopback(SimConfig(noise=rate, seed=3)) as loop:
        complete, text, errors = run({"loop://m1": loop}, deals, tmp_path / "j.db")
        assert complete and not errors, text
        check_physical_truth(loop.device.ledger, loop.device.room.rack, deals, tmp_path / "j.db", 1)
        record = {**loop.device.ledger.to_json(loop.device.room.rack), **loop.wire_record()}
    check_ledger(record, written)
    assert check_load_deals(record, written) >= 4
    check_noise(record, rate)
    if rate >= 0.05:
        told = [line for line in text.splitlines() if "the line to the machine is noisy: " in line]
        assert told and all(re.fullmatch(r"\[loop://m1\] (noisy set A: )?the line to the machine is noisy: \d+ "
                                         r"retries in the last minute; dealing goes on, more slowly", line)
                            for line in told), told


def test_two_machines_on_lines_damaging_five_and_ten_percent_deal_every_board(tmp_path: Path) -> None:
    deals, written = deal_file(tmp_path, 6)
    with Loopback(SimConfig(noise=0.05, seed=1)) as five, Loopback(SimConfig(noise=0.10, seed=2)) as ten:
        complete, text, errors = run({"loop://five": five, "loop://ten": ten}, deals, tmp_path / "j.db")
        assert complete and not errors, text
        records: list[dict[str, Any]] = [{**loop.device.ledger.to_json(loop.device.room.rack), **loop.wire_record()}
                   for loop in (five, ten)]
    dealt = {d["board_number"]: d["deal"] for r in records for d in r["dealings"] if d["cards"] == 52}
    assert dealt == written  # every board, its own deal, whichever machine dealt it
    assert all(d["cards_before"] == 0 and d["turns"] == 0 for r in records for d in r["dealings"])
    assert [check_load_deals(r, written) > 0 for r in records] == [True, True]  # both machines dealt
    check_noise(records[0], 0.05)
    check_noise(records[1], 0.10)


class Silence:
    """A line that carries nothing, either way, for `seconds` from the machine's first accepted LoadDeal."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.loop: Loopback | None = None
        self.start: float | None = None

    def __call__(self, data: bytes, direction: str) -> list[tuple[float, bytes]]:
        assert self.loop is not None
        now = self.loop.clock()
        if self.start is None and self.loop.device.load_deals.accepted:
            self.start = now
        silent = self.start is not None and now < self.start + self.seconds
        return [] if silent else [(0.0, data)]


def test_a_machine_not_heard_for_thirty_seconds_mid_board_is_taken_up_again_not_lost(tmp_path: Path) -> None:
    deals, written = deal_file(tmp_path, 2)
    silence = Silence(31.0)  # given up after 30 s, then answering the Hello within its 2 s
    with Loopback(SimConfig(seed=3), manipulator=silence) as loop:
        silence.loop = loop
        complete, text, errors = run({"loop://m1": loop}, deals, tmp_path / "j.db")
        assert complete and not errors, text
        run_record = check_physical_truth(loop.device.ledger, loop.device.room.rack, deals, tmp_path / "j.db", 1)
        record: dict[str, Any] = {**loop.device.ledger.to_json(loop.device.room.rack), **loop.wire_record()}
    check_ledger(record, written)
    assert silence.start is not None
    (line,) = [line for line in text.splitlines() if "not heard" in line]
    assert line.endswith("machine stopped answering: the machine was not heard for 30 s; the "
                         "connection was started again: finding out where the board stands"), line
    assert "loop://m1: " not in line  # the machine named once, by its tag
    assert "the line to the machine is noisy" not in text  # a machine gone silent is not a noisy line
    assert "link-resync" in run_record.kinds(1)


def test_a_port_where_no_machine_answers_is_one_plain_line_naming_it_once(tmp_path: Path) -> None:
    deals, _ = deal_file(tmp_path, 2)
    out = io.StringIO()
    with Loopback(SimConfig(seed=3), manipulator=lambda data, direction: []) as loop:  # nothing gets through
        def factory(url: str) -> Machine:
            return Machine(url, opener=loopback_opener(loop), clock=loop.clock,
                           sleep=loop.clock.sleep)  # type: ignore[attr-defined]

        result = deal_session(deals, "noisy.pbn", RunOptions(ports=["/dev/ttyUSB0"], journal=tmp_path / "j.db",
                                                             machine_factory=factory, out=out))
    with pytest.raises(DeviceTimeout) as caught:
        raise_for(result)
    assert str(caught.value) == ("no dealing machine answered on /dev/ttyUSB0 (is it on, and is this its port?) "
                                 "(2 boards left; continue with --resume)")
    assert result.summary.splitlines()[-1] == ("  dealt no board: no dealing machine answered on /dev/ttyUSB0 "
                                               "(is it on, and is this its port?)")
    assert "Hello" not in out.getvalue() + result.summary
