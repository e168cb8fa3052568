"""The layering rules of DESIGN.md §2, enforced on every import of every module.

Every import counts: absolute and relative ``import``/``from`` statements at any depth (inside
functions and under ``if TYPE_CHECKING:`` too) and ``importlib.import_module("...")`` / ``__import__("...")``
calls with a literal name. No import cycle anywhere among the modules of dealer, hil and firmware_protocol.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from tests.support.imports import imports_of, module_name, modules, modules_run_by, modules_run_in
from tests.support.paths import ROOT

STDLIB = set(sys.stdlib_module_names)

LAYERS: dict[str, set[str]] = {
    # package of dealer          the packages of this project it may import (besides itself)
    "dealer.language": set(),
    "dealer.core": set(),
    "dealer.engines": {"dealer.core"},
    "dealer.prepared": {"dealer.core", "dealer.engines"},
    "dealer.formats": {"dealer.core"},
    "dealer.verify": {"dealer.core"},
    "dealer.stats": {"dealer.core"},
    "dealer.squaredeal": {"dealer.core", "dealer.engines", "dealer.formats"},
    "dealer.printing": {"dealer.core", "dealer.stats"},
    "dealer.journal": {"dealer.core", "dealer.formats", "dealer.verify", "dealer.stats"},
    "dealer.dealing": {"dealer.core", "dealer.engines", "dealer.formats", "dealer.verify", "dealer.stats",
                       "dealer.journal", "firmware_protocol", "hil"},
    "dealer.plan": {"dealer.core", "dealer.engines", "dealer.prepared", "dealer.formats", "dealer.squaredeal",
                    "dealer.verify", "dealer.journal", "dealer.dealing"},
    "dealer.serve": {"dealer.core", "dealer.engines", "dealer.formats", "dealer.squaredeal", "dealer.verify",
                     "dealer.stats", "dealer.printing", "dealer.journal", "dealer.dealing", "dealer.plan"},
    "dealer.cli": {"dealer", "dealer.core", "dealer.engines", "dealer.prepared", "dealer.formats", "dealer.squaredeal",
                   "dealer.verify", "dealer.stats", "dealer.printing", "dealer.journal", "dealer.dealing",
                   "dealer.plan", "dealer.serve", "hil"},
    "dealer": {"dealer.cli"},  # dealer/__init__.py (the version, imported by any) and __main__.py
}
for _layer in LAYERS:  # every message a person reads is said through the catalogue: any package may speak
    if _layer != "dealer.language":
        LAYERS[_layer].add("dealer.language")
"""Lowest first: a package imports only packages above it in this table (never one below)."""

LABELS = "firmware_protocol.labels"
"""The board-label grammar: a contract shared by host and machines, the one part of the protocol any
package may use."""
PYSERIAL_ONLY_IN = {"dealer.dealing.transport"}
WIRE_ONLY_IN = {"dealer.dealing.machine"}
"""Nothing above the machine driver sees a wire message, code or flag."""
SIMULATOR_ONLY_IN = {"dealer.dealing.sim_ports", "dealer.dealing.demo", "dealer.cli.sim"}
THIRD_PARTY = {"numpy", "lark", "serial", "cryptography", "platformdirs", "reportlab", "endplay", "pytest",
               "hypothesis"}
PROJECT = ("dealer", "hil", "firmware_protocol")
"""The packages whose modules import one another in no cycle."""


def layer_of(name: str) -> str | None:
    """The LAYERS key a dotted name belongs to (the longest that matches)."""
    for layer in sorted(LAYERS, key=len, reverse=True):
        if name == layer or name.startswith(layer + "."):
            return layer
    return None


def project_package(name: str) -> str | None:
    top = name.split(".")[0]
    if top in {"firmware_protocol", "hil"}:
        return top
    return layer_of(name) if top == "dealer" else None


@pytest.mark.parametrize("path", modules("dealer"), ids=lambda p: module_name(p))
def test_dealer_packages_import_only_the_layers_below_them(path: Path) -> None:
    me = module_name(path)
    mine = layer_of(me)
    assert mine is not None, f"{me} is in no layer of LAYERS: add its package"
    for name in imports_of(path):
        other = project_package(name)
        if other is None or other == mine or name in {LABELS, "dealer"}:
            continue
        assert other in LAYERS[mine], f"{me} imports {name}: {mine} may import only {sorted(LAYERS[mine])}"


@pytest.mark.parametrize("path", modules("dealer"), ids=lambda p: module_name(p))
def test_pyserial_wire_messages_and_the_simulator_each_stay_in_their_module(path: Path) -> None:
    me = module_name(path)
    for name in imports_of(path):
        top = name.split(".")[0]
        if top == "serial":
            assert me in PYSERIAL_ONLY_IN, f"{me} imports {name}: only {PYSERIAL_ONLY_IN} touches pyserial"
        if top == "firmware_protocol" and name != LABELS:
            assert me in WIRE_ONLY_IN, f"{me} imports {name}: only {WIRE_ONLY_IN} speaks wire messages"
        if top == "hil":
            assert me in SIMULATOR_ONLY_IN, f"{me} imports {name}: only {SIMULATOR_ONLY_IN} start simulators"


@pytest.mark.parametrize("path", modules("dealer/stats"), ids=lambda p: module_name(p))
def test_the_statistics_are_pure(path: Path) -> None:
    """dealer.stats counts and tests: the standard library, numpy and dealer.core, no I/O library, no plotting."""
    for name in imports_of(path):
        top = name.split(".")[0]
        allowed = top in STDLIB - {"sqlite3", "socket", "threading", "subprocess"} or top == "numpy"
        allowed = allowed or layer_of(name) in {"dealer.core", "dealer.stats", "dealer.language"}
        assert allowed, f"{module_name(path)} imports {name}"


@pytest.mark.parametrize("path", modules("firmware_protocol"), ids=lambda p: module_name(p))
def test_firmware_protocol_uses_only_the_standard_library(path: Path) -> None:
    used = imports_of(path)
    for name in used:
        top = name.split(".")[0]
        assert top in STDLIB or top == "firmware_protocol", f"{path.name} imports {name}"
    forbidden = {"time", "threading", "socket", "select", "asyncio"}
    assert not {n.split(".")[0] for n in used} & forbidden, f"{path.name} reads I/O or clock"


@pytest.mark.parametrize("path", modules("hil"), ids=lambda p: module_name(p))
def test_the_simulator_depends_on_the_protocol_alone(path: Path) -> None:
    for name in imports_of(path):
        top = name.split(".")[0]
        allowed = top in STDLIB or top == "firmware_protocol" or top == "hil"
        allowed = allowed or (top == "pytest" and path.name in ("pytest_plugin.py", "pytest_fixtures.py"))
        assert allowed, f"hil/{path.name} imports {name}: the simulator shares only firmware_protocol with the host"


def test_importing_the_simulator_loads_neither_the_host_nor_numpy() -> None:
    import subprocess

    code = "import hil, sys; print(sorted(m for m in ('dealer', 'numpy', 'serial') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_import_reader_sees_relative_imports_and_importlib_calls(tmp_path: Path) -> None:
    """The rules above are only as good as `imports_of`: it must see every form an import can take."""
    folder = ROOT / "dealer" / "verify"
    probe = folder / "_layering_probe.py"
    probe.write_text("from . import board_check\nfrom ..dealing import machine\nimport importlib\n"
                     "def f():\n    importlib.import_module('dealer.cli')\n    from serial import Serial\n")
    try:
        names = imports_of(probe)
    finally:
        probe.unlink()
    assert {"dealer.verify", "dealer.verify.board_check", "dealer.dealing", "dealer.dealing.machine", "dealer.cli",
            "serial"} <= names


def import_graph() -> dict[str, set[str]]:
    """Each module of the project -> the modules of the project whose code runs for its imports."""
    paths = {module_name(p): p for package in PROJECT for p in modules(package)}
    return {me: modules_run_by(path) & paths.keys() for me, path in paths.items()}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (first module repeated at the end) for each group of modules that import one another."""
    reach = {start: reachable(graph, start) for start in graph}
    cycles: list[list[str]] = []
    seen: set[str] = set()
    for start in sorted(graph):
        if start in seen or start not in reach[start]:
            continue
        group = {other for other in reach[start] if start in reach[other]}
        seen |= group
        cycles.append(path_back(graph, start, group))
    return cycles


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    """The modules `start` reaches by one import or more (itself only through a cycle)."""
    found: set[str] = set()
    todo = list(graph.get(start, ()))
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo.extend(graph.get(name, ()))
    return found


def path_back(graph: dict[str, set[str]], start: str, group: set[str]) -> list[str]:
    """A shortest chain of imports from `start` back to itself, through `group`."""
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for name in frontier:
            for other in sorted(graph[name] & group):
                if other == start:
                    chain = [name]
                    while chain[-1] != start:
                        chain.append(came_from[chain[-1]])
                    return [*reversed(chain), start]
                if other not in came_from:
                    came_from[other] = name
                    following.append(other)
        frontier = following
    raise AssertionError(f"{start} is in no cycle")


def test_no_import_cycle_anywhere() -> None:
    """A cycle makes the order of imports matter (a name read before its module has defined it) and hides
    which module owns what: the shared piece belongs in a module of its own that both import.

    No exception: a package's `__init__` that imports its submodules is no cycle as long as they take what
    they need from each other (`from package import submodule`, or `from package.submodule import name`),
    never a name from the package's `__init__` (Python runs the package before them)."""
    cycles = import_cycles(import_graph())
    assert cycles == [], "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in cycles)


def test_the_cycle_finder_reports_each_cycle_once_by_its_imports() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e", "d"}, "f": {"a"}}
    assert import_cycles(graph) == [["a", "b", "c", "a"], ["e", "e"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_the_import_graph_sees_hidden_imports_and_what_python_runs() -> None:
    """Imports inside functions and under TYPE_CHECKING are edges; `from package import submodule` runs the
    submodule, not the package's body; importing a module of another package runs that package's body."""
    source = ("from typing import TYPE_CHECKING\nfrom dealer.dealing import machine\n"
              "if TYPE_CHECKING:\n    from dealer.dealing.run import RunOptions\n"
              "def f():\n    from . import recovery\n    from dealer.plan.model import Copy\n")
    edges = modules_run_in(source, "dealer.dealing.probe", "dealer.dealing")
    assert {"dealer.dealing.machine", "dealer.dealing.run", "dealer.dealing.recovery", "dealer.plan.model",
            "dealer.plan"} <= edges
    assert "dealer.dealing" not in edges and "dealer" not in edges
    assert "dealer.dealing" in modules_run_in("from dealer.dealing import Thing\n", "dealer.dealing.probe",
                                              "dealer.dealing")


def test_the_top_of_dealer_holds_packages_only() -> None:
    loose = sorted(p.name for p in (ROOT / "dealer").glob("*.py")
                   if p.name not in {"__init__.py", "__main__.py", "squaredeal.py"})
    assert loose == [], f"modules outside a package at the top of dealer/: {loose}"
    for folder in sorted(p for p in (ROOT / "dealer").iterdir() if p.is_dir() and p.name != "__pycache__"):
        init = folder / "__init__.py"
        assert init.exists(), f"dealer/{folder.name} is not a package"
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc, f"dealer/{folder.name}/__init__.py has no docstring saying what it owns"
        assert f"dealer.{folder.name}" in LAYERS, f"dealer/{folder.name} has no place in LAYERS"


def test_one_name_one_thing_no_class_name_is_defined_twice() -> None:
    """A class name means one thing across dealer, hil and firmware_protocol (an exception and an event of
    one name, or two readers of one name, are two things a reader takes for one)."""
    where: dict[str, list[str]] = {}
    for top in ("dealer", "hil", "firmware_protocol"):
        for path in sorted((ROOT / top).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    where.setdefault(node.name, []).append(f"{path.relative_to(ROOT)}:{node.lineno}")
    twice = {name: places for name, places in where.items() if len(places) > 1}
    assert twice == {}, f"class names defined more than once: {twice}"


@pytest.mark.parametrize("module", ["dealer.dealing.progress", "dealer.serve.view", "dealer.cli.live"])
def test_the_views_of_a_run_load_neither_the_machine_driver_nor_pyserial(module: str) -> None:
    """A run's views fold the journal's events and say them: they need no serial port and no wire message (the
    protocol version a machine is told of is given to the run's progress by the run)."""
    import subprocess

    probe = (f"import sys, {module}; "
             "print(sorted(m for m in sys.modules if m == 'serial' or m.startswith(('serial.', "
             "'dealer.dealing.machine', 'dealer.dealing.transport', 'firmware_protocol.messages', "
             "'firmware_protocol.link'))))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", f"{module} loads {done.stdout.strip()}"
