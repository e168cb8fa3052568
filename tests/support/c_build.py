"""Builds the C device library (`firmware_protocol/c`) with its test drivers and example, for the tests.

Everything is compiled by the system C compiler (``$CC``, else ``cc`` on PATH) as C99 with ``-Wall -Wextra
-Werror -pedantic`` and the address and undefined-behaviour sanitizers (any finding ends the program with
an error), into a folder the caller gives (a temporary one): nothing built lands in the tree.
`compiler()` is None where there is no C compiler; the tests then fail with `NO_COMPILER`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Final

from tests.support.paths import ROOT

C_DIR: Final = ROOT / "firmware_protocol" / "c"
INCLUDE: Final = C_DIR / "include"
LIBRARY_SOURCES: Final = tuple(sorted((C_DIR / "src").glob("*.c")))
NO_COMPILER: Final = "no C compiler (cc) on PATH: the C device library cannot be built here (apt-get install gcc)"
WARNINGS: Final = ("-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic")
SANITIZERS: Final = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer")
SANITIZER_ENV: Final = {
    # the library allocates nothing, so there is no leak to look for; the leak checker needs ptrace, which
    # some containers forbid
    "ASAN_OPTIONS": "detect_leaks=0:halt_on_error=1",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
}
PROGRAMS: Final = {
    "vectors_driver": C_DIR / "tests" / "vectors_driver.c",
    "fuzz_driver": C_DIR / "tests" / "fuzz_driver.c",
    "link_driver": C_DIR / "tests" / "link_driver.c",
    "pty_device": C_DIR / "examples" / "pty_device.c",
}
"""Each program the tests build: the library's sources, this file and its `COMPANIONS`."""
COMPANIONS: Final = {"pty_device": (C_DIR / "examples" / "machine.c",)}
"""Sources a program needs besides its own file and the library (the example's machine)."""


def compiler() -> str | None:
    """The C compiler to build with: $CC if set, else `cc` on PATH; None if there is none."""
    name = os.environ.get("CC") or "cc"
    return shutil.which(name)


def build(program: str, out_dir: Path, *, extra_flags: tuple[str, ...] = ()) -> Path:
    """Compile one program of `PROGRAMS` with the library, warnings as errors and the sanitizers; its path."""
    cc = compiler()
    if cc is None:
        raise RuntimeError(NO_COMPILER)
    out = out_dir / program
    command = [cc, *WARNINGS, *SANITIZERS, "-g", "-O1", *extra_flags, f"-I{INCLUDE}",
               *map(str, LIBRARY_SOURCES), *map(str, COMPANIONS.get(program, ())), str(PROGRAMS[program]),
               "-o", str(out)]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        raise RuntimeError(f"building {program} failed:\n{' '.join(command)}\n{run.stderr}")
    return out


def compile_source(source: Path, obj: Path, flags: tuple[str, ...]) -> Path:
    """Compile one C file (no sanitizers) to an object file with `flags`; its path."""
    cc = compiler()
    if cc is None:
        raise RuntimeError(NO_COMPILER)
    command = [cc, *flags, f"-I{INCLUDE}", "-c", str(source), "-o", str(obj)]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        raise RuntimeError(f"compiling {source.name} failed:\n{' '.join(command)}\n{run.stderr}")
    return obj


def compile_objects(out_dir: Path, flags: tuple[str, ...]) -> list[Path]:
    """Compile the library alone (no sanitizers) to object files in `out_dir` with `flags`; their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    return [compile_source(source, out_dir / (source.stem + ".o"), flags) for source in LIBRARY_SOURCES]


def sanitized_env() -> dict[str, str]:
    """The environment to run a sanitized program in."""
    return {**os.environ, **SANITIZER_ENV}


class CBuilds:
    """The programs of one test session, each built once, on first use, into `folder`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._built: dict[str, Path] = {}

    def __call__(self, program: str) -> Path:
        if program not in self._built:
            self._built[program] = build(program, self.folder)
        return self._built[program]


def run_program(program: Path, stdin: str | bytes, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run a sanitized program to its end with `stdin`; its output as text. A sanitizer finding makes it
    fail, and names itself on stderr."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    run = subprocess.run([str(program)], input=data, capture_output=True, timeout=timeout, env=sanitized_env())
    return subprocess.CompletedProcess(run.args, run.returncode, run.stdout.decode(errors="replace"),
                                       run.stderr.decode(errors="replace"))


SANITIZER_REPORTS: Final = ("runtime error", "AddressSanitizer", "UndefinedBehaviorSanitizer", "LeakSanitizer")


def sanitizer_report(stderr: str) -> bool:
    """True if a sanitizer reported something on `stderr`."""
    return any(marker in stderr for marker in SANITIZER_REPORTS)
