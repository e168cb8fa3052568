"""docs/bounds.md, the table of every bound, is read against the code: each row's bound is the value of the
constants it names (a bound changed in the code and not in the table, or the other way, fails here)."""

from __future__ import annotations

import importlib
import re
from typing import Any

from tests.support.paths import ROOT

UNITS = {"MB": 1 << 20, "MiB": 1 << 20}


def resolve(dotted: str) -> Any:
    """The value a dotted name gives: a module's constant, or a class's attribute (a dataclass field's default)."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            value: Any = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            value = getattr(value, name)
        return value
    raise AssertionError(f"{dotted}: no such module")


def numbers(bound: str) -> list[float]:
    """The numbers a bound's cell gives, each times its unit ("20 MB" is 20 MiB in bytes)."""
    return [float(n) * UNITS.get(unit, 1) for n, unit in re.findall(r"(\d+(?:\.\d+)?)\s*(MiB|MB)?", bound)]


def rows() -> list[tuple[str, str, list[str]]]:
    text = (ROOT / "docs" / "bounds.md").read_text(encoding="utf-8")
    found = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[2].startswith("`"):
            found.append((cells[0], cells[1], re.findall(r"`([\w.]+)`", cells[2])))
    return found


def test_every_bound_of_the_table_is_the_codes() -> None:
    table = rows()
    assert len(table) >= 20
    wrong = []
    for what, bound, names in table:
        values = [float(resolve(name)) for name in names]
        if values != numbers(bound)[:len(values)]:
            wrong.append(f"{what}: the table says {bound!r}, the code {dict(zip(names, values, strict=True))}")
    assert wrong == []


def test_the_readme_points_at_the_table() -> None:
    assert "docs/bounds.md" in (ROOT / "README.md").read_text(encoding="utf-8")
