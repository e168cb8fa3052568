"""JSON and TOML read within bounds: a document nested deeper than `MAX_DEPTH`, or holding a number that is
not finite, is refused in one line (`StructureError`), never a RecursionError or an OverflowError later.
"""

from __future__ import annotations

import json
import math
import tomllib
from typing import Any, Final

MAX_DEPTH: Final = 32
"""How deep the lists and tables of a plan, a fault plan, a history export or a request body may nest."""


class StructureError(ValueError):
    """A document past a bound (its depth, a number that is not finite): what is wrong, in a few words."""


def _no_constant(name: str) -> Any:
    raise StructureError(f"{name} is not a number this program takes (only finite numbers)")


def load_json(text: str | bytes) -> Any:
    """A JSON document, checked; `json.JSONDecodeError` for one that is not JSON, `StructureError` for one
    past a bound."""
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise StructureError(f"nested deeper than {MAX_DEPTH} levels") from None
    check(value)
    return value


def load_toml(text: str) -> dict[str, Any]:
    """A TOML document, checked; `tomllib.TOMLDecodeError` for one that is not TOML, `StructureError` for
    one past a bound."""
    try:
        value = tomllib.loads(text)
    except RecursionError:
        raise StructureError(f"nested deeper than {MAX_DEPTH} levels") from None
    check(value)
    return value


def check(value: Any) -> None:
    """`StructureError` if `value` nests deeper than `MAX_DEPTH` or holds a float that is not finite."""
    level: list[tuple[Any, int]] = [(value, 1)]
    while level:
        item, depth = level.pop()
        if isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                raise StructureError(f"nested deeper than {MAX_DEPTH} levels")
            level.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
        elif isinstance(item, float) and not math.isfinite(item):
            raise StructureError(f"{item} is not a number this program takes (only finite numbers)")
