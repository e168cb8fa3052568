"""The layering rules of DESIGN.md §2, enforced on the import statements of every module."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PURE_DEALER = ("cards", "boards", "dealset", "engines", "squaredeal", "formats", "plan", "jobplan", "verify", "faults")
STDLIB = set(sys.stdlib_module_names)


def imports_of(path: Path) -> set[str]:
    """Top-level dotted names imported by a module (absolute imports only)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("path", modules("firmware_protocol"), ids=str)
def test_firmware_protocol_uses_only_the_standard_library(path: Path) -> None:
    for name in imports_of(path):
        top = name.split(".")[0]
        assert top in STDLIB or top == "firmware_protocol", f"{path.name} imports {name}"
    forbidden = {"time", "threading", "socket", "select", "asyncio"}
    assert not {n.split(".")[0] for n in imports_of(path)} & forbidden, f"{path.name} reads I/O or clock"


def _pure_dealer_modules() -> list[Path]:
    out = []
    for path in modules("dealer"):
        rel = path.relative_to(ROOT / "dealer").parts
        if rel[0].removesuffix(".py") in PURE_DEALER:
            out.append(path)
    return out


@pytest.mark.parametrize("path", _pure_dealer_modules(), ids=str)
def test_pure_dealer_modules_touch_no_serial_and_no_protocol(path: Path) -> None:
    for name in imports_of(path):
        top = name.split(".")[0]
        assert top not in {"serial", "firmware_protocol", "hil"}, f"{path} imports {name}"
        assert name not in {"dealer.transport", "dealer.machine", "dealer.run", "dealer.journal"}


def test_only_transport_imports_pyserial() -> None:
    for package in ("dealer", "firmware_protocol", "hil"):
        for path in modules(package):
            if path == ROOT / "dealer" / "transport.py":
                continue
            uses = {n for n in imports_of(path) if n.split(".")[0] == "serial"}
            assert not uses, f"{path} imports {uses}"


@pytest.mark.parametrize("path", modules("hil"), ids=str)
def test_hil_is_independent_of_the_host_driver(path: Path) -> None:
    for name in imports_of(path):
        assert name not in {"dealer.machine", "dealer.run", "dealer.cli", "dealer.transport"}, (
            f"{path.name} imports {name}")
        assert not name.startswith("dealer.cli"), f"{path.name} imports {name}"
