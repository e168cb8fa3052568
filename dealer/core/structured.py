"""JSON and TOML read within bounds: a document nested deeper than `MAX_DEPTH`, or holding a number that is
not finite or has more digits than `dealer.core.digits.MAX_DIGITS`, is refused in one line (`StructureError`),
never a RecursionError, an OverflowError or Python's own refusal of a long number later.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from typing import Any, Final

from dealer.core.digits import MAX_DIGITS, TooManyDigits, decimal, too_many, whole
from dealer.language import _

MAX_DEPTH: Final = 32
"""How deep the lists and tables of a plan, a fault plan, a history export or a request body may nest."""


class StructureError(ValueError):
    """A document past a bound (its depth, a number that is not finite): what is wrong, in a few words."""


def _no_constant(name: str) -> Any:
    raise StructureError(_("{number} is not a number this program takes (only finite numbers)").format(number=name))


def load_json(text: str | bytes) -> Any:
    """A JSON document, checked; `json.JSONDecodeError` for one that is not JSON, `StructureError` for one
    past a bound."""
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_int=whole, parse_float=decimal)
    except TooManyDigits as exc:
        raise StructureError(str(exc)) from None
    except RecursionError:
        raise StructureError(_("nested deeper than {levels} levels").format(levels=MAX_DEPTH)) from None
    check(value)
    return value


def load_toml(text: str) -> dict[str, Any]:
    """A TOML document, checked; `tomllib.TOMLDecodeError` for one that is not TOML, `StructureError` for
    one past a bound. A dotted key deeper than the bound is refused before the document is parsed: the
    parser's memory grows with the square of a key's depth (a 20 KB key of 10,000 parts takes a gigabyte)."""
    if _deepest_key(text) > MAX_DEPTH:
        raise StructureError(_("nested deeper than {levels} levels").format(levels=MAX_DEPTH))
    longest = _longest_number(text)
    if longest is not None:
        raise StructureError(str(too_many(longest)))
    try:
        value = tomllib.loads(text)
    except RecursionError:
        raise StructureError(_("nested deeper than {levels} levels").format(levels=MAX_DEPTH)) from None
    check(value)
    return value


def check(value: Any) -> None:
    """`StructureError` if `value` nests deeper than `MAX_DEPTH` or holds a float that is not finite."""
    level: list[tuple[Any, int]] = [(value, 1)]
    while level:
        item, depth = level.pop()
        if isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                raise StructureError(_("nested deeper than {levels} levels").format(levels=MAX_DEPTH))
            level.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
        elif isinstance(item, float) and not math.isfinite(item):
            raise StructureError(_("{number} is not a number this program takes (only finite numbers)").format(
                number=item))


_TOKENS: Final = re.compile(r'"""(?:\\.|[^\\])*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:\\.|[^"\\\n])*"|\'[^\'\n]*\''
                            r"|#[^\n]*|[\d_]+")


def _longest_number(text: str) -> str | None:
    """The first number of a TOML text (outside its strings and comments) with more digits than `MAX_DIGITS`,
    or None: refused before the parser reads it."""
    for m in _TOKENS.finditer(text):
        token = m.group()
        if token[0] not in "\"'#" and len(token.replace("_", "")) > MAX_DIGITS:
            return token
    return None


def _deepest_key(text: str) -> int:
    """The most parts of one key of a TOML text (``a.b.c = 1`` and ``[a.b.c]`` have 3), read the way TOML
    reads keys: at a line's start, in a table's header, after ``{`` or ``,`` in an inline table; dots in
    strings, comments and values are not keys'. A rough reading, for a bound only: what it cannot follow the
    parser refuses."""
    deepest, parts, in_key, braces, arrays, quote, i, n = 0, 1, True, 0, 0, "", 0, len(text)
    while i < n:
        ch = text[i]
        if quote:  # inside a string: only its end matters
            if ch == "\\" and quote in ('"', '"""'):
                i += 2
                continue
            if text.startswith(quote, i):
                i += len(quote)
                quote = ""
                continue
            i += 1
            continue
        if ch in "\"'":
            quote = text[i:i + 3] if text[i:i + 3] in ('"""', "'''") else ch
            i += len(quote)
            continue
        if ch == "#":
            i = text.find("\n", i)
            i = n if i < 0 else i
            continue
        if ch == "\n":
            in_key, parts = braces == 0 and arrays == 0, 1
        elif ch == "." and in_key:
            parts += 1
            deepest = max(deepest, parts)
        elif ch == "[" and not in_key:
            arrays += 1  # an array value (a table's header keeps its key)
        elif ch == "]" and arrays:
            arrays -= 1
        elif ch in "=]":
            in_key, parts = False, 1
        elif ch == "{":
            braces += 1
            in_key, parts = True, 1
        elif ch == "}":
            braces = max(0, braces - 1)
        elif ch == "," and braces:
            in_key, parts = True, 1
        i += 1
    return deepest
