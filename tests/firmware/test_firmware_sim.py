"""`dealer sim --firmware FILE.elf`: the firmware under QEMU as a user starts it, the port on the first
line, stopped by a signal with nothing left behind; a missing image refused in one line."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from dealer import formats
from dealer.core.dealset import DealSet
from tests.support.deals import random_deals
from tests.support.processes import ENV, dealer


def test_dealer_sim_firmware_prints_its_port_deals_and_stops_clean(firmware_elf: Path, tmp_path: Path) -> None:
    link = tmp_path / "machine"
    sim = subprocess.Popen([sys.executable, "-m", "dealer", "sim", "--firmware", str(firmware_elf), "--set", "A",
                            "--boards", "1-2", "--link", str(link), "--firmware-fault", "jam=1:30"], cwd=tmp_path,
                           env=dict(ENV), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)
    try:
        assert sim.stdout is not None
        assert sim.stdout.readline().strip() == str(link)
        assert link.is_symlink()
        formats.write_file(tmp_path / "s.pbn", DealSet.from_deals(random_deals(36, 2), [1, 2]))
        dealt = dealer("deal", "s.pbn", "--port", str(link), "--journal", "j.db", cwd=tmp_path, timeout=120)
        assert dealt.returncode == 0 and dealt.stdout.startswith("2/2 boards verified"), dealt.stderr[-2000:]
        assert "machine faults 1" in dealt.stdout
    finally:
        sim.send_signal(signal.SIGTERM)
        out, err = sim.communicate(timeout=30)
    assert sim.returncode == 0, err
    assert "1 faults planned" in err and err.rstrip().endswith("dealer sim: stopped")
    assert not link.exists() and not link.is_symlink()
    assert "Traceback" not in err


def test_dealer_sim_refuses_a_missing_firmware_image_in_one_line(tmp_path: Path) -> None:
    run = dealer("sim", "--firmware", "nowhere.elf", cwd=tmp_path, timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines()[-1].endswith(
        "--firmware nowhere.elf: no such file (build it with make -C firmware_protocol/c firmware)")
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr


@pytest.mark.parametrize(("options", "said"), [
    (["--firmware-fault", "jam=1:99"], "--firmware-fault jam=1:99: wants jam=BOARD:CARD (BOARD 1-9999, CARD 1-52)"),
    (["--firmware-fault", "flood=1:2"], "--firmware-fault flood=1:2: the kind is one of jam, misfeed, power-cut, "
                                        "silence, turn, e.g. jam=2:20"),
    (["--boards", "1-40"], "--boards 1-40: the firmware's rack takes FIRST-LAST, at most 32 boards, e.g. 1-16"),
    (["--set", "a"], "--set a: the firmware's set names are 1 to 12 of A-Z and 0-9"),
])
def test_dealer_sim_refuses_what_the_firmware_cannot_take_in_one_line(options: list[str], said: str,
                                                                     tmp_path: Path) -> None:
    (tmp_path / "image.elf").write_bytes(b"")  # refused before the image is read
    run = dealer("sim", "--firmware", "image.elf", *options, cwd=tmp_path, timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip() == f"dealer: error: {said}"
