"""Input shaped by Windows, on any system: COM port names (in `dealer ports`, on the command line and in
plans), plan paths with backslashes and drive letters, and CRLF files from Windows programs (deal files, with
or without the byte-order mark Notepad writes, and plans). Owners typed in a Windows code page are the owner
bytes' own tests (dealer/engines, dealer/squaredeal).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from serial.tools import list_ports_common

from dealer.cli import main
from dealer.dealing import sim_ports
from tests.support.paths import ROOT

not_on_windows = pytest.mark.skipif(sys.platform == "win32", reason="a drive letter is this system's own path")


@pytest.fixture(autouse=True)
def _stop_simulators() -> Iterator[None]:
    """The simulated machine a test's in-process `dealer deal --plan` started on its ``sim://`` port goes with
    it (left running, a later test of this process would meet it among its own)."""
    yield
    sim_ports.stop_all()


def com_port(device: str) -> list_ports_common.ListPortInfo:
    info = list_ports_common.ListPortInfo(device, skip_link_detection=True)
    info.description, info.manufacturer, info.serial_number = "Prolific USB-to-Serial Comm Port", "Prolific", device
    info.vid, info.pid = 0x067B, 0x2303
    return info


def test_dealer_ports_lists_com_ports_in_their_number_order(monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    ports = [com_port("COM10"), com_port("COM3"), com_port("COM4")]
    monkeypatch.setattr("serial.tools.list_ports.comports", lambda: ports)
    assert main(["ports"]) == 0
    assert [line.split(":")[0] for line in capsys.readouterr().out.splitlines()] == ["COM3", "COM4", "COM10"]


def test_a_com_port_that_is_not_there_is_a_machine_not_reached(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(ROOT / "examples" / "session.pbn"), "--port", "COM7", "--boards", "1",
                 "--journal", str(tmp_path / "j.journal")]) == 5
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("dealer: error: COM7: cannot open the port")


def plan(tmp_path: Path, event: str = "", port: str = '"sim://?speed=200&set=A&boards=1-4"',
         source: str = "", newline: str = "\n") -> Path:
    text = f"""[event]
name = "Club night"
{event}

[[machines]]
name = "M1"
port = {port}

[[sessions]]
name = "MON"
boards = "1-4"
{source}

[[sessions.sections]]
name = "A"
sets = ["A"]
"""
    path = tmp_path / "club.toml"
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return path


@pytest.mark.parametrize("port", ['"COM3"', '"com12"', r"'\\.\COM12'"])
def test_a_plan_takes_com_ports(port: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(plan(tmp_path, port=port))]) == 0, capsys.readouterr().err
    assert port.strip("'\"") in capsys.readouterr().out


def test_relative_paths_with_backslashes_work_on_every_system(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "imported").mkdir()
    assert main(["generate", "--boards", "1-4", "-o", str(tmp_path / "imported" / "swiss.pbn")]) == 0
    path = plan(tmp_path, event=r"deal_folder = 'out\deals'" + "\n" + r"journal = 'out\club.journal'",
                source=r"source = { file = 'imported\swiss.pbn' }")
    (tmp_path / "out").mkdir()
    assert main(["plan", str(path)]) == 0, capsys.readouterr().err
    assert main(["deal", "--plan", str(path), "--plain"]) == 0, capsys.readouterr().err
    assert (tmp_path / "out" / "club.journal").is_file()


@not_on_windows
@pytest.mark.parametrize("folder", [r"C:\Dealing\deals", "D:/deals", r"\\clubpc\deals"])
def test_a_windows_drive_path_is_refused_elsewhere_naming_the_key(folder: str, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(plan(tmp_path, event=f"deal_folder = '{folder}'"))]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "event.deal_folder" in err[0] and f"{folder!r} is a Windows path" in err[0]


def test_a_backslash_in_a_basic_toml_string_is_named_with_its_line(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(plan(tmp_path, event='deal_folder = "C:\\Dealing"'))]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "club.toml" in err[0] and "line 3" in err[0] and "not valid TOML" in err[0]


def test_a_crlf_plan_reads_as_its_lf_twin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(plan(tmp_path, newline="\r\n"))]) == 0, capsys.readouterr().err
    crlf = capsys.readouterr().out
    assert main(["plan", str(plan(tmp_path))]) == 0
    assert capsys.readouterr().out == crlf


@pytest.mark.parametrize("prefix", [b"", b"\xef\xbb\xbf"], ids=["crlf", "bom-crlf"])
def test_a_crlf_deal_file_holds_the_deals_of_its_lf_twin(prefix: bytes, tmp_path: Path) -> None:
    lf = (ROOT / "examples" / "session.pbn").read_bytes().replace(b"\r\n", b"\n")
    (tmp_path / "lf.pbn").write_bytes(lf)
    (tmp_path / "crlf.pbn").write_bytes(prefix + lf.replace(b"\n", b"\r\n"))
    for name in ("lf", "crlf"):
        assert main(["convert", str(tmp_path / f"{name}.pbn"), str(tmp_path / f"{name}.json")]) == 0
    assert json.loads((tmp_path / "crlf.json").read_text()) == json.loads((tmp_path / "lf.json").read_text())
