"""`dealer.dealing.transport`: pyserial ports behind `SerialTransport`, errors as `DeviceDisconnected`, and
``sim://`` ports (`dealer.dealing.sim_ports`): one simulator per URL for the life of the process, stopped cleanly.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from dealer.core.errors import DeviceDisconnected, OutputError, UsageError
from dealer.dealing import sim_ports
from dealer.dealing.machine import Machine, MachineState
from dealer.dealing.ports import open_transport, wait_for_port
from dealer.dealing.transport import SerialTransport, check_traces, trace_file
from hil.pytest_plugin import no_leaks
from tests.support.machine_job import JOB, PACKED

on_linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sim:// ports need a Linux pty here")


def test_loop_url_round_trip() -> None:
    port = SerialTransport.open("loop://")
    try:
        assert port.name == "loop://"
        port.write(b"\x00frame one\x00")
        port.write(b"frame two\x00")
        got = b""
        for _ in range(20):
            got += port.read(0.2)
            if got.endswith(b"two\x00"):
                break
        assert got == b"\x00frame one\x00frame two\x00"
        assert port.read(0.01) == b""
    finally:
        port.close()
    port.close()  # closing twice is harmless


def test_a_read_or_write_on_a_closed_port_is_device_disconnected() -> None:
    port = SerialTransport.open("loop://", name="machine 1")
    port.close()
    with pytest.raises(DeviceDisconnected, match="^machine 1: read failed"):
        port.read(0.01)
    with pytest.raises(DeviceDisconnected, match="^machine 1: write failed"):
        port.write(b"x")


def test_a_path_that_does_not_exist_is_device_disconnected_naming_it(tmp_path: Path) -> None:
    path = str(tmp_path / "ttyUSB9")
    with pytest.raises(DeviceDisconnected) as caught:
        open_transport(path)
    assert str(caught.value) == f"{path}: cannot open the port: no such port"  # the port named once, no errno
    assert isinstance(caught.value, ConnectionError)
    with pytest.raises(DeviceDisconnected, match=f"^{path}: cannot open"):
        wait_for_port(path, timeout=0.0)


def test_an_unknown_url_scheme_is_device_disconnected() -> None:
    with pytest.raises(DeviceDisconnected, match="^nosuch://x: cannot open the port"):
        open_transport("nosuch://x")


def test_a_sim_url_with_an_unknown_option_is_a_usage_error_naming_it() -> None:
    with pytest.raises(UsageError, match="unknown option 'sped'"):
        open_transport("sim://?sped=100")
    assert sim_ports.simulators() == {}


@on_linux
@pytest.mark.pty
def test_the_same_sim_url_reopened_is_the_same_machine_and_stop_all_leaves_nothing() -> None:
    url, other = "sim://?speed=100&seed=4", "sim://?speed=100&seed=5"
    with no_leaks():
        try:
            with Machine(url) as first:
                boot = first.connect().boot_id
                first.load(JOB, 1, PACKED)
            with Machine(url) as again:  # a reconnection: the world is as it was left
                assert again.connect().boot_id == boot
                st = again.status()
                assert (st.state, st.job) == (MachineState.LOADED, JOB)
            with Machine(other) as second:  # another URL is another machine
                second.connect()
                assert second.status().state == MachineState.IDLE
            sims = sim_ports.simulators()
            assert list(sims) == [url, other] and sims[url] is not sims[other]
            port = open_transport(url)
            port.close()
            assert port.name == url and sim_ports.simulators()[url] is sims[url]
        finally:
            sim_ports.stop_all()
        assert sim_ports.simulators() == {}


@on_linux
@pytest.mark.pty
def test_a_port_whose_machine_is_unplugged_is_device_disconnected() -> None:
    from hil import PtySimulator, SimConfig

    with no_leaks():
        sim = PtySimulator(SimConfig(speed=100))
        sim.start()
        port = SerialTransport.open(sim.path, name="machine 1")
        try:
            sim.unplug()
            with pytest.raises(DeviceDisconnected, match="^machine 1: (read|write) failed"):
                for _ in range(50):  # the first reads may still see bytes already in the pty
                    port.write(b"\x00")
                    port.read(0.05)
        finally:
            port.close()
            sim.stop()


@on_linux
@pytest.mark.pty
def test_a_local_port_is_read_and_written_through_its_file_without_touching_its_settings() -> None:
    """A pty's far end is the machine: bytes both ways, a wait that times out, and no termios call per read
    (pyserial's read timeout, which reconfigures the port, is never set)."""
    import os
    import pty
    import termios
    from unittest import mock

    far, near = pty.openpty()
    try:
        tty = os.ttyname(near)
        port = SerialTransport.open(tty, name="machine 1")
        try:
            with mock.patch.object(termios, "tcsetattr", side_effect=AssertionError("port reconfigured")):
                port.write(b"\x00hello\x00")
                got = b""
                while not got.endswith(b"hello\x00"):
                    got += os.read(far, 100)
                assert got == b"\x00hello\x00"
                assert port.read(0.01) == b""  # nothing came: an empty read once the time is up
                os.write(far, b"\x00answer\x00")
                got = b""
                while not got.endswith(b"answer\x00"):
                    got += port.read(1.0)
                assert got == b"\x00answer\x00"
                big = bytes(range(1, 256)) * 4  # more than one read of the far end takes
                port.write(big)
                got = b""
                while len(got) < len(big):
                    got += os.read(far, 4096)
                assert got == big
        finally:
            port.close()
    finally:
        os.close(near)
        os.close(far)


@on_linux
@pytest.mark.pty
def test_a_local_port_whose_far_end_is_gone_is_device_disconnected_on_read() -> None:
    import os
    import pty

    far, near = pty.openpty()
    port = SerialTransport.open(os.ttyname(near), name="machine 1")
    try:
        os.close(far)  # the machine's side of the line is gone
        with pytest.raises(DeviceDisconnected, match="^machine 1: read failed"):
            port.read(1.0)
    finally:
        port.close()
        os.close(near)


def test_a_wire_trace_that_is_a_link_is_refused_before_and_when_its_port_opens(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    link = tmp_path / "trace.txt"
    link.symlink_to(tmp_path / "elsewhere" / "trace.txt")
    url = f"spy://{tmp_path / 'no-such-port'}?file={link}&color"
    with pytest.raises(OutputError, match=r"cannot write the wire trace: .*trace\.txt: is a symbolic link"):
        check_traces(["loop://", f"spy://{tmp_path / 'no-such-port'}", url])
    with pytest.raises(DeviceDisconnected, match=r"cannot write the wire trace: .*trace\.txt: is a symbolic link"):
        open_transport(url)  # a link put there after the check
    assert list((tmp_path / "elsewhere").iterdir()) == [] and link.is_symlink()
    assert trace_file(url) == str(link) and trace_file("loop://") is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pseudo-terminal stands for the serial port")
def test_a_port_busy_for_a_moment_is_opened_once_let_go_and_refused_if_it_stays_busy(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A port locked by another open (EAGAIN) is tried again while `BUSY_WAIT` lasts: opened once the other
    lets go (here: at the first wait), refused in one line naming the port if it never does, as in use by another
    program, in the language spoken."""
    import os

    import serial

    from dealer.dealing import transport as transport_module
    from dealer.dealing.transport import SerialTransport

    master, slave = os.openpty()
    path = os.ttyname(slave)
    holder = serial.Serial(path, exclusive=True)
    try:
        monkeypatch.setattr(transport_module, "_pause", lambda seconds: holder.close())
        SerialTransport.open(path).close()
        holder = serial.Serial(path, exclusive=True)
        monkeypatch.setattr(transport_module, "BUSY_WAIT", 0.0)
        with pytest.raises(DeviceDisconnected, match=f"^{path}: the port is in use by another "
                                                     "program"):
            SerialTransport.open(path)
        from dealer.language import speaking

        with speaking("ru"), pytest.raises(DeviceDisconnected, match="порт занят другой программой"):
            SerialTransport.open(path)
    finally:
        holder.close()
        os.close(master)
        os.close(slave)
