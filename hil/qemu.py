"""The dealing machine's firmware (`firmware_protocol/c`, ``make firmware``) run in QEMU's ``microbit``
(an nRF51, Cortex-M0): its UART on a pseudo-terminal a host opens like a USB port, QEMU's machine protocol
(QMP) on a private socket for what a bench does to the board: reset it (a power cut), read its memory (the
firmware's own record of the boards, the stack's deepest use). `FirmwareMachine` starts and ends one.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from gettext import gettext as _
from pathlib import Path
from typing import IO, Any, Final

from hil.words import N_

QEMU: Final = "qemu-system-arm"
NO_QEMU: Final = N_("no QEMU (qemu-system-arm) on PATH: the firmware cannot run here")
"""Why the firmware cannot run where QEMU is not installed (said with `_`)."""
STACK_PAINT: Final = 0xC5C5C5C5
"""What the start-up code (firmware/startup.c) paints the stack with."""
BOARD_BYTES: Final = 24 + 4 * 26 + 4 + 1
"""One ``machine_board`` of machine.h: the label, four pockets of 26 cards, their counts, times put in."""
WORLD_MAGIC: Final = 0x57524C44
"""MACHINE_WORLD_MAGIC of machine.h: the world is set up."""
_PTY = re.compile(r"char device redirected to (\S+)")


class FirmwareError(Exception):
    """QEMU cannot run the firmware: not installed, not an image, or it stopped."""


def qemu_path() -> str | None:
    """QEMU for Arm on PATH, or None."""
    return shutil.which(QEMU)


def elf_symbols(elf: Path) -> dict[str, int]:
    """The named symbols of a 32-bit little-endian ELF file and their values (addresses)."""
    data = elf.read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 1 or data[5] != 1:
        raise FirmwareError(_("not a 32-bit little-endian ELF image (build it with make firmware)"))
    try:
        return _symbols(data)
    except (struct.error, ValueError, IndexError):
        raise FirmwareError(_("a damaged ELF image (its symbol table cannot be read)")) from None


def _symbols(data: bytes) -> dict[str, int]:
    shoff, = struct.unpack_from("<I", data, 0x20)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x2E)
    sections = [struct.unpack_from("<IIIIIIIIII", data, shoff + i * shentsize) for i in range(shnum)]
    symbols: dict[str, int] = {}
    for _name, kind, _flags, _addr, offset, size, link, _info, _align, entsize in sections:
        if kind != 2 or entsize != 16:  # SHT_SYMTAB
            continue
        strings = sections[link][4]
        for at in range(offset, offset + size, entsize):
            name_at, value = struct.unpack_from("<II", data, at)
            end = data.index(b"\0", strings + name_at)
            name = data[strings + name_at:end].decode("ascii", "replace")
            if name:
                symbols[name] = value
    return symbols


def _unix_socket() -> socket.socket:
    if sys.platform != "win32":
        return socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    raise FirmwareError(_("QEMU's serial port here is a pseudo-terminal: Linux and macOS only"))


class FirmwareMachine:
    """The firmware in a QEMU process: `path` is the port to open (`link` if given, a symlink to QEMU's
    pty). `options` are the machine's (as pty_device takes them: --set A --boards 1-16, the faults).
    `stop` ends QEMU and removes the link; use it as a context manager."""

    def __init__(self, elf: Path, options: Sequence[str], *, link: Path | None = None, verbose: bool = False,
                 log: IO[str] | None = None) -> None:
        qemu = qemu_path()
        if qemu is None:
            raise FirmwareError(_(NO_QEMU))
        self.elf = elf
        self.symbols = elf_symbols(elf)
        if "__world_start" not in self.symbols:
            raise FirmwareError(_("not the dealing machine's firmware (no __world_start: build it with make "
                                  "firmware)"))
        self._dir = tempfile.mkdtemp(prefix="dealer-qemu-")
        self._qmp_path = os.path.join(self._dir, "qmp")
        words = ["firmware", *options, *(["--verbose"] if verbose else [])]
        if any("," in w or " " in w for w in words):
            raise FirmwareError(_("a firmware option holds a comma or a space"))
        command = [qemu, "-M", "microbit", "-display", "none", "-kernel", str(elf), "-serial", "pty",
                   "-monitor", "none", "-qmp", f"unix:{self._qmp_path},server=on,wait=off",
                   "-semihosting-config", "enable=on,target=native," + ",".join(f"arg={w}" for w in words)]
        self._proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True, start_new_session=True)
        self.lines: list[str] = []
        self._log = log
        self._changed = threading.Condition()
        assert self._proc.stdout is not None
        pty = None
        for line in self._proc.stdout:
            self._note(line)
            found = _PTY.search(line)
            if found:
                pty = found.group(1)
                break
        if pty is None:
            self.stop()
            raise FirmwareError(_("QEMU did not start the firmware: {output}").format(
                output="".join(self.lines)[-2000:]))
        self._reader = threading.Thread(target=self._read, name="qemu-output", daemon=True)
        self._reader.start()
        self.pty = pty
        self.link = link
        if link is not None:
            if link.is_symlink():
                link.unlink()
            link.symlink_to(pty)
        self.path = str(link) if link is not None else pty
        self._qmp: socket.socket | None = None
        self._qmp_file: IO[str] | None = None

    def _note(self, line: str) -> None:
        with self._changed:
            self.lines.append(line)
            self._changed.notify_all()
        if self._log is not None:
            self._log.write(line)
            self._log.flush()

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            self._note(line)

    def wait_for_line(self, text: str, timeout: float = 60) -> bool:
        """Until a line of the firmware's log (--verbose) or QEMU's holds `text`; False if not in time."""
        with self._changed:
            return self._changed.wait_for(lambda: any(text in line for line in self.lines), timeout)

    def running(self) -> bool:
        """True while QEMU runs."""
        return self._proc.poll() is None

    # --- QMP -------------------------------------------------------------------------------------------

    def qmp(self, command: str, **arguments: Any) -> Any:
        """Run one QMP command; its return value. Raises FirmwareError on QEMU's error."""
        if self._qmp_file is None:
            self._qmp = _unix_socket()
            self._qmp.settimeout(30)
            self._qmp.connect(self._qmp_path)
            self._qmp_file = self._qmp.makefile("rw", encoding="utf-8", newline="\n")
            self._qmp_file.readline()  # the greeting
            self._exchange("qmp_capabilities", {})
        return self._exchange(command, arguments)

    def _exchange(self, command: str, arguments: dict[str, Any]) -> Any:
        assert self._qmp_file is not None
        self._qmp_file.write(json.dumps({"execute": command, "arguments": arguments}) + "\n")
        self._qmp_file.flush()
        while True:
            answer = json.loads(self._qmp_file.readline() or "{}")
            if "return" in answer:
                return answer["return"]
            if "error" in answer or not answer:
                raise FirmwareError(_("QEMU refused {command}: {error}").format(
                    command=command, error=answer["error"] if "error" in answer else _("no answer")))
            # an event ({"event": ...}): not the answer

    def read_memory(self, address: int, size: int) -> bytes:
        """`size` bytes of the board's memory (RAM or flash) at `address`."""
        out = os.path.join(self._dir, "memory.bin")
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # it may hold deals
        os.close(fd)
        self.qmp("memsave", val=address, size=size, filename=out)  # as the processor sees it
        data = Path(out).read_bytes()
        os.unlink(out)
        return data

    def power_cut(self) -> None:
        """Reset the whole board as a power cut does: the firmware starts again from its reset vector."""
        self.qmp("system_reset")

    # --- what the firmware holds -------------------------------------------------------------------------

    def boards(self) -> dict[str, list[list[int]]]:
        """The firmware's own record of every board (the simulated world of machine.h, read from RAM):
        label -> the card indices in the board's pockets N E S W."""
        start, end = self.symbols["__world_start"], self.symbols["__world_end"]
        world = self.read_memory(start, end - start)
        if int.from_bytes(world[:4], "little") != WORLD_MAGIC:
            raise FirmwareError(_("the firmware has not set up its boards yet (it is starting, or stopped at boot)"))
        most = self.symbols.get("machine_max_boards")
        count_at = 4 + BOARD_BYTES * int.from_bytes(self.read_memory(most, 2), "little") if most else None
        if count_at is not None:
            count_at += count_at % 2  # nboards, an int16_t, on its 2-byte boundary
        if count_at is None:
            raise FirmwareError(_("the image does not say how many boards its world holds (machine_max_boards)"))
        nboards, = struct.unpack_from("<h", world, count_at)
        result: dict[str, list[list[int]]] = {}
        for i in range(nboards):
            at = 4 + i * BOARD_BYTES
            label = world[at:at + 24].split(b"\0")[0].decode("ascii")
            counts = world[at + 24 + 104:at + 24 + 108]
            result[label] = [list(world[at + 24 + p * 26:at + 24 + p * 26 + counts[p]]) for p in range(4)]
        return result

    def deepest_stack(self) -> int:
        """The most stack the firmware has used since power-up, in bytes (the part no longer painted)."""
        limit, top = self.symbols["__stack_limit"], self.symbols["__stack_top"]
        stack = self.read_memory(limit, top - limit)
        painted = 0
        for (word,) in struct.iter_unpack("<I", stack):
            if word != STACK_PAINT:
                break
            painted += 4
        return top - limit - painted

    # --- the end -------------------------------------------------------------------------------------------

    def stop(self) -> int:
        """End QEMU, close the QMP socket, remove the link; QEMU's exit code."""
        if self._qmp_file is not None:
            self._qmp_file.close()
        if self._qmp is not None:
            self._qmp.close()
        if self._proc.poll() is None:
            self._proc.terminate()  # QEMU is one process: it starts none of its own
        try:
            self._proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        if getattr(self, "_reader", None) is not None:
            self._reader.join(timeout=20)
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        link = getattr(self, "link", None)
        if link is not None and link.is_symlink():
            link.unlink()
        shutil.rmtree(self._dir, ignore_errors=True)
        return self._proc.returncode

    def __enter__(self) -> FirmwareMachine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
