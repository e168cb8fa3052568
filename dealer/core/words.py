"""Counts in words for the lines a director reads: "1 board", "2 boards"."""

from __future__ import annotations


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and `noun`, the noun in the plural (`plural`, else noun + "s") unless `n` is 1."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"
