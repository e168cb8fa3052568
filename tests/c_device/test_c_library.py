"""The C library's own promises, read from its objects: portable C99 that compiles clean under strict
warnings, no dynamic memory, no stdio and no global state (every byte it uses is in the caller's
`dp_device` or on the stack)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from tests.support.c_build import INCLUDE, CBuilds, compile_objects, compile_source
from tests.support.golden_vectors import load

STRICT = ("-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-Wconversion", "-Wshadow", "-Wcast-qual",
          "-Wstrict-prototypes", "-Wmissing-prototypes", "-Os")
ALLOWED_IMPORTS = {"memcpy", "memmove", "memset"}
"""What the library may take from the C library: three memory functions any freestanding toolchain has."""


def symbols(objects: list[Path], *options: str) -> list[tuple[str, str]]:
    """(type letter, name) of the objects' symbols as `nm` lists them."""
    nm = shutil.which("nm")
    assert nm is not None, "nm (binutils) is needed beside the C compiler"
    run = subprocess.run([nm, *options, *map(str, objects)], capture_output=True, text=True, check=True)
    out = []
    for line in run.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2 and not line.endswith(":"):
            out.append((parts[-2], parts[-1]))
    return out


def test_the_library_compiles_clean_under_strict_warnings(c_builds: CBuilds) -> None:
    assert len(compile_objects(c_builds.folder / "strict", STRICT)) == 5


def test_the_library_imports_only_memory_functions_and_keeps_no_state(c_builds: CBuilds) -> None:
    objects = compile_objects(c_builds.folder / "plain", ("-std=c99", "-O2"))
    listed = symbols(objects)
    imported = {name for kind, name in listed if kind == "U"} - {name for kind, name in listed if kind != "U"}
    assert imported <= ALLOWED_IMPORTS, f"the library calls {sorted(imported - ALLOWED_IMPORTS)}"
    state = [(kind, name) for kind, name in listed if kind in "BbDdCGgSs"]
    assert state == [], f"the library keeps state of its own: {state}"


def test_the_header_stands_alone_and_names_the_schema_of_the_vectors(c_builds: CBuilds) -> None:
    schema = int(load("messages.json")["schema_hash"], 16)
    header = (INCLUDE / "dealer_proto.h").read_text()
    assert re.search(rf"#define DP_SCHEMA_HASH 0x{schema:08X}ul", header)
    folder = c_builds.folder / "header"
    folder.mkdir(exist_ok=True)
    source = folder / "header_only.c"
    source.write_text('#include "dealer_proto.h"\nint header_only(void);\nint header_only(void) { return DP_OK; }\n')
    compile_source(source, folder / "header_only.o", STRICT)
