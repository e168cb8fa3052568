"""The operating system is reached through one seam (`dealer.core.osys`, DESIGN.md §2): no module of dealer, hil
or firmware_protocol outside it imports a POSIX-only module or touches a POSIX-only (or Linux-only) name of
``os``, by attribute, ``from os import``, or ``getattr``/``hasattr`` with a literal name. The one exception is
hil's pseudo-terminal simulator, Linux and macOS only by nature (Windows serves the machine on TCP).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support.imports import imports_of, module_name, modules

SEAM = "dealer.core.osys"
EXEMPT = {"hil.pty_sim": "a pseudo-terminal exists on Linux and macOS only; Windows serves the machine on TCP"}
POSIX_ONLY_MODULES = {"fcntl", "termios", "tty", "pty", "resource", "pwd", "grp", "posix", "syslog", "crypt",
                      "msvcrt", "winreg", "_winapi", "nt"}
"""Modules one system has and another lacks (the Windows ones are the seam's too)."""
POSIX_ONLY_OS = {"fchmod", "fchown", "chown", "lchown", "lchmod", "statvfs", "fstatvfs", "sched_getaffinity",
                 "sched_setaffinity", "posix_fadvise", "posix_fallocate", "getuid", "geteuid", "getgid", "getegid",
                 "getgroups", "openpty", "ttyname", "forkpty", "fork", "killpg", "getpgid", "setsid", "setpgrp",
                 "sync", "getloadavg", "uname", "mkfifo", "mknod", "pipe2", "memfd_create", "nice", "O_NOFOLLOW",
                 "O_NONBLOCK", "O_CLOEXEC", "O_DIRECTORY", "ST_RDONLY", "ST_NOSUID", "POSIX_FADV_DONTNEED",
                 "WNOHANG", "process_cpu_count"}
"""Names of ``os`` that exist on some systems only (``process_cpu_count``: Python 3.13 and later)."""


def project_modules() -> list[Path]:
    return [path for package in ("dealer", "hil", "firmware_protocol") for path in modules(package)]


def system_calls(path: Path) -> list[str]:
    """The POSIX-only modules and names of ``os`` a module reaches, each with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = [f"imports {name}" for name in imports_of(path) if name.split(".")[0] in POSIX_ONLY_MODULES]
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os"
                and node.attr in POSIX_ONLY_OS):
            found.append(f"line {node.lineno}: os.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [f"line {node.lineno}: from os import {a.name}" for a in node.names if a.name in POSIX_ONLY_OS]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
              and len(node.args) >= 2 and isinstance(node.args[0], ast.Name) and node.args[0].id == "os"
              and isinstance(node.args[1], ast.Constant) and node.args[1].value in POSIX_ONLY_OS):
            found.append(f"line {node.lineno}: {node.func.id}(os, {node.args[1].value!r})")
    return found


def test_no_system_call_outside_the_seam() -> None:
    outside = {module_name(path): calls for path in project_modules()
               if not module_name(path).startswith(SEAM) and module_name(path) not in EXEMPT
               for calls in [system_calls(path)] if calls}
    assert outside == {}, "reach the operating system through dealer.core.osys"


def test_the_seam_and_the_pty_simulator_are_where_the_calls_are() -> None:
    """The check finds what it is for: the seam's parts and the pty simulator use such calls."""
    by_name = {module_name(path): path for path in project_modules()}
    assert "imports fcntl" in system_calls(by_name[f"{SEAM}.posix"])
    assert "imports msvcrt" in system_calls(by_name[f"{SEAM}.windows"])
    assert any("os.openpty" in call for call in system_calls(by_name["hil.pty_sim"]))


@pytest.mark.parametrize("source", ["import fcntl\n", "from resource import getrlimit\n",
                                    "import os\nos.fchmod(1, 0)\n",
                                    "import os\nx = getattr(os, 'O_NOFOLLOW', 0)\n", "from os import statvfs\n"])
def test_every_form_of_a_system_call_is_found(source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tests.support.imports as imports

    package = tmp_path / "dealer"
    package.mkdir()
    module = package / "module.py"
    module.write_text(source, encoding="utf-8")
    monkeypatch.setattr(imports, "ROOT", tmp_path)
    assert system_calls(module)
