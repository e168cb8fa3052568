"""`dealer` as a controller the system starts refusing at an instant of its run: ``python -m
tests.support.refusing_controller ARGS`` runs ``dealer ARGS`` in this process, and a timer thread, once the
journal named by ``REFUSE_JOURNAL`` exists and ``REFUSE_AFTER`` seconds more have passed, makes the system refuse
what ``REFUSE_KIND`` names:

- ``descriptors``: the limit on open files (RLIMIT_NOFILE) lowered to the descriptors open now, give or take one
  (``REFUSE_SPARE``): no file can be opened any more;
- ``memory``: the limit on the address space (RLIMIT_AS) lowered to what is mapped now plus ``REFUSE_SPARE``
  MiB;
- ``permissions``: the journal's folder made unreadable and unwritable (mode 000). Under root, this process first
  gives up the capabilities that pass over a file's mode, as a user's controller runs without them.

The instant is written to ``REFUSE_JOURNAL``.refused (opened before the refusal: a descriptor may not be had
after it) as seconds since the journal appeared.
"""

from __future__ import annotations

import ctypes
import os
import resource
import sys
import threading
import time

_CAP_VERSION_3 = 0x20080522
_PASS_OVER_MODES = (1, 2, 3)  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER


def give_up_mode_override() -> None:
    """Drop, from this process's effective, permitted and inheritable sets, the capabilities by which root reads
    and writes whatever a file's mode says."""
    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    libc = ctypes.CDLL(None, use_errno=True)
    header, data = Header(_CAP_VERSION_3, 0), (Data * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capget")
    mask = ~sum(1 << cap for cap in _PASS_OVER_MODES) & 0xFFFFFFFF
    for field in ("effective", "permitted", "inheritable"):
        setattr(data[0], field, getattr(data[0], field) & mask)
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset")


def lowest_free_descriptor() -> int:
    fd = os.dup(2)
    os.close(fd)
    return fd


def mapped_bytes() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize")


def refuse(kind: str, spare: int, journal: str) -> None:
    """Make the system refuse `kind` from now on."""
    if kind == "descriptors":
        _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (lowest_free_descriptor() + spare, hard))
    elif kind == "memory":
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (mapped_bytes() + spare * (1 << 20), hard))
    elif kind == "permissions":
        os.chmod(os.path.dirname(os.path.abspath(journal)), 0)
    else:
        raise ValueError(kind)


def main() -> int:
    kind, journal = os.environ["REFUSE_KIND"], os.environ["REFUSE_JOURNAL"]
    after, spare = float(os.environ["REFUSE_AFTER"]), int(os.environ.get("REFUSE_SPARE", "0"))
    if kind == "permissions" and os.geteuid() == 0:
        give_up_mode_override()

    def later() -> None:
        while not os.path.exists(journal):
            time.sleep(0.002)
        appeared = time.monotonic()
        time.sleep(after)
        marker = os.open(f"{journal}.refused", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        refuse(kind, spare, journal)
        os.write(marker, f"{time.monotonic() - appeared:.3f}\n".encode())
        os.close(marker)

    threading.Thread(target=later, name="refusal", daemon=True).start()
    from dealer.__main__ import console

    return console()


if __name__ == "__main__":
    sys.exit(main())
