"""The test suite's own rules: test modules share helpers only through `tests/support/`.

A test module that imports another test module runs that module's tests' setup at import, couples two
test files by accident, and breaks when the other is renamed; a helper beside the tests is found by no
one. So every import of a module under `tests` must name `tests.support` (or the `tests` package itself),
and every module under `tests` that is neither a test module, a `conftest.py`, a package's `__init__.py`
nor one of the scripts run by hand lives in `tests/support/` (or in a package inside it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.imports import imports_in, imports_of, module_name
from tests.support.paths import ROOT, TESTS

SCRIPTS = {TESTS / "vectors" / "make_vectors.py", TESTS / "data" / "bigdeal" / "make_fixtures.py",
           *(p for p in (TESTS / "stress").glob("*.py") if not p.name.startswith("test_"))}
"""Run by hand (to remake committed data, or a long stress run); they may import helpers from tests/support like
any module."""
SUPPORT = TESTS / "support"


def python_files() -> list[Path]:
    return sorted(TESTS.rglob("*.py"))


def forbidden(names: set[str]) -> list[str]:
    """The imported names that reach into `tests` elsewhere than `tests.support`."""
    return sorted(n for n in names
                  if n.split(".")[0] == "tests" and n != "tests"
                  and n != "tests.support" and not n.startswith("tests.support."))


def test_there_are_test_modules_to_check() -> None:
    files = python_files()
    assert len([p for p in files if p.name.startswith("test_")]) > 50
    assert (SUPPORT / "__init__.py").is_file()


@pytest.mark.parametrize("path", python_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_under_tests_import_only_tests_support(path: Path) -> None:
    bad = forbidden(imports_of(path))
    assert bad == [], f"{module_name(path)} imports {bad}: shared helpers belong in tests/support/"


@pytest.mark.parametrize("path", python_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_helper_module_lives_in_tests_support(path: Path) -> None:
    if path.name.startswith("test_") or path.name in {"conftest.py", "__init__.py"} or path in SCRIPTS:
        return
    assert SUPPORT in path.parents, f"{path.relative_to(ROOT)} is a helper outside tests/support/"


def test_test_modules_live_outside_tests_support() -> None:
    misplaced = sorted(p.name for p in SUPPORT.glob("test_*.py"))
    assert misplaced == [], f"test modules in tests/support/ (no one collects them there): {misplaced}"


@pytest.mark.parametrize(("source", "package", "bad"), [
    ("from tests.unit.test_cards import random_deals\n", "tests.unit", ["tests.unit.test_cards"]),
    ("import tests.integration.test_run_scenarios as s\n", "tests.unit", ["tests.integration.test_run_scenarios"]),
    ("from tests.conftest import ROOT\n", "tests.unit", ["tests.conftest"]),
    ("from tests import test_layering\n", "tests.hil", ["tests.test_layering"]),
    ("from . import test_plan\n", "tests.unit", ["tests.unit", "tests.unit.test_plan"]),
    ("from .formats import test_dlm\n", "tests.unit", ["tests.unit.formats", "tests.unit.formats.test_dlm"]),
    ("def f():\n    from tests.printing.test_records import block_pattern\n", "tests.printing",
     ["tests.printing.test_records"]),
    ("import importlib\nimportlib.import_module('tests.unit.test_machine')\n", "tests.unit",
     ["tests.unit.test_machine"]),
    ("from tests.support.deals import random_deals\nfrom tests.support import paths\n", "tests.unit", []),
])
def test_the_rule_sees_every_form_of_a_forbidden_import(source: str, package: str, bad: list[str]) -> None:
    assert forbidden(imports_in(source, package)) == bad
