"""`dealer ports`: the serial ports present (pyserial's listing), and which answer as dealing machines."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
from serial.tools import list_ports_common

from dealer.cli import main
from dealer.dealing import sim_ports

on_linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ptys and sim:// ports need Linux here")


def usb_port(device: str, maker: str, serial_number: str) -> list_ports_common.ListPortInfo:
    info = list_ports_common.ListPortInfo(device, skip_link_detection=True)
    info.description, info.manufacturer, info.serial_number = "USB-Serial Controller", maker, serial_number
    info.vid, info.pid = 0x067B, 0x2303
    return info


def test_every_port_is_listed_with_what_tells_two_adapters_apart(monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    ports = [usb_port("/dev/ttyUSB1", "Prolific", "B2"), usb_port("/dev/ttyUSB0", "Prolific", "A1")]
    monkeypatch.setattr("serial.tools.list_ports.comports", lambda: ports)
    assert main(["ports"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "/dev/ttyUSB0: USB-Serial Controller; made by Prolific; serial number A1; USB 067B:2303",
        "/dev/ttyUSB1: USB-Serial Controller; made by Prolific; serial number B2; USB 067B:2303",
    ]


@on_linux
def test_probing_tells_a_machine_from_a_port_where_nothing_answers(monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("serial.tools.list_ports.comports", lambda: [])
    controller, silent = os.openpty()  # a serial line with nothing on the other end that ever answers
    name = os.ttyname(silent)
    try:
        assert main(["ports", "--probe", "--timeout", "0.5", name, "sim://?seed=3"]) == 0
    finally:
        sim_ports.stop_all()
        os.close(controller)
        os.close(silent)
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2] == f"{name}: no dealing machine answered within 0.5 s"
    assert re.match(r"sim://\?seed=3: simulated dealing machine \(practice\) "
                    r"SIM-[0-9A-F]{8}, firmware 1\.0\.0, protocol 2, 4 pockets; ",
                    lines[-1]), lines[-1]
    assert "card recount" in lines[-1] and "barcode reader" in lines[-1]


def test_a_port_that_cannot_be_opened_is_named_with_the_reason(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("serial.tools.list_ports.comports", lambda: [])
    missing = tmp_path / "ttyUSB9"
    assert main(["ports", str(missing)]) == 5  # a port named that is not there: exit 5, as in every command
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x]
    assert line.startswith(f"{missing}: not a dealing machine here: cannot open the port")


def test_a_timeout_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ports", "--timeout", "0"]) == 2
    assert "--timeout 0: give a number of seconds above 0" in capsys.readouterr().err


def test_probing_in_russian_says_the_capabilities_in_russian(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """`dealer --lang ru ports --probe sim://`: the machine's line, its capabilities too, in Russian words
    joined as Russian joins a list («…, дисплей и …»); every capability of the protocol has its words."""
    from dealer.cli.ports import CAPABILITIES
    from firmware_protocol.codes import Capability

    assert {c.name for c in Capability} - {"SIMULATED"} == set(CAPABILITIES)
    monkeypatch.setattr("serial.tools.list_ports.comports", lambda: [])
    try:
        assert main(["--lang", "ru", "ports", "--probe", "sim://?seed=3"]) == 0
    finally:
        sim_ports.stop_all()
    line = capsys.readouterr().out.splitlines()[-1]
    capabilities = line.split("; ", 1)[1]
    assert "сканер штрихкода" in capabilities and "пересчёт карт" in capabilities, line
    assert re.search(r", [^,]+ и [^,]+$", capabilities), line
    assert re.findall(r"[A-Za-z]{2,}", re.sub(r"sim://\?seed=3|SIM-[0-9A-F]{8}", " ", line)) == [], line
