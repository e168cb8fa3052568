"""A script's expressions compiled once into numpy operations over a batch of deals: integers (C's int, with
its truncating division and remainder), truth values 0 and 1. `and`, `or` and `?:` evaluate their later
parts only on the deals that reach them, as the reference program does, so a division by zero is an
error only where it is evaluated; a condition's later parts run on the deals its earlier parts let
through, which keeps a rare condition fast.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np
import numpy.typing as npt

from dealer.core.errors import DealerError
from dealer.language import _
from dealer.prepared.hands import (
    ALT_COUNTS,
    CCCC_TABLE,
    CONTROLS,
    HCP,
    LOSER_TABLE,
    QUALITY_TABLE,
    SHAPE_POINTS,
    Batch,
    IntArray,
    points_table,
    shape_table,
)
from dealer.prepared.script import Node, Script

Evaluator = Callable[[Batch], IntArray]
SUBSET_BELOW: Final = 0.5
"""A part of `and`/`or`/`?:` runs on a subset of the batch when fewer than this share of deals reach it."""


class ScriptRunError(DealerError):
    """A script that fails on a deal: a division by zero (exit 3)."""

    exit_code = 3


class Compiled:
    """A script's condition and statistics, compiled once with its point counts."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.hcp = points_table(script.pointcount or HCP)
        self.alt = [points_table(script.altcounts.get(i, ALT_COUNTS[i])) for i in range(10)]
        self.controls = points_table(CONTROLS)
        self._shapes: dict[frozenset[tuple[int, ...]], npt.NDArray[np.bool_]] = {}
        self.condition: Evaluator | None = None if script.condition is None else self.compile(script.condition)

    def accepts(self, deals: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
        """Which deals of a batch meet the condition."""
        if self.condition is None:
            return np.ones(len(deals), dtype=np.bool_)
        values = self.condition(Batch(deals))
        return np.broadcast_to(values != 0, (len(deals),))

    def values(self, node: Node, deals: npt.NDArray[np.uint8]) -> IntArray:
        """An expression's value on each deal of a batch."""
        out: IntArray = np.broadcast_to(self.compile(node)(Batch(deals)), (len(deals),)).astype(np.int64)
        return out

    def compile(self, node: Node) -> Evaluator:  # noqa: C901 - one branch a kind of node
        kind, args = node.kind, node.args
        if kind == "number":
            value = np.int32(args[0])
            return lambda batch: np.full(batch.size, value, dtype=np.int32)
        if kind == "length":
            seat, suit = args
            return lambda batch: batch.suit_values(_LENGTHS, seat, suit)
        if kind == "count":
            table, seat, suit = args
            points = self.hcp if table < 0 else self.alt[table]
            return lambda batch: batch.suit_values(points, seat, suit)
        if kind == "losers":
            seat, suit = args
            return lambda batch: batch.suit_values(LOSER_TABLE, seat, suit)
        if kind == "controls":
            seat, suit = args
            return lambda batch: batch.suit_values(self.controls, seat, suit)
        if kind == "quality":
            seat, suit = args
            return lambda batch: batch.suit_values(QUALITY_TABLE, seat, suit)
        if kind == "cccc":
            seat = args[0]
            return lambda batch: _cccc(batch, seat)
        if kind == "hascard":
            seat, card = args
            return lambda batch: batch.hascard(seat, card)
        if kind == "shape":
            seat, shapes = args
            table = self._shapes.setdefault(shapes, shape_table(shapes))
            return lambda batch: table[batch.shape_codes(seat)].astype(np.int32)
        if kind == "not":
            inner = self.compile(args[0])
            return lambda batch: (inner(batch) == 0).astype(np.int32)
        if kind in ("and", "or", "choose"):
            return self._lazy(node)
        left, right = self.compile(args[0]), self.compile(args[1])
        op = _BINARY.get(kind)
        if op is not None:
            return lambda batch: op(left(batch), right(batch)).astype(np.int32)
        return self._divide(kind, left, right, node)

    def _divide(self, kind: str, left: Evaluator, right: Evaluator, node: Node) -> Evaluator:
        def divide(batch: Batch) -> IntArray:
            a, b = left(batch), right(batch)
            if np.any(b == 0):
                raise ScriptRunError(_("{script}, line {line}, column {column}: division by zero on a deal").format(
                    script=self.script.name, line=node.line, column=node.column))
            quotient = np.abs(a) // np.abs(b) * np.sign(a) * np.sign(b)  # C truncates toward zero
            out: IntArray = (quotient if kind == "/" else a - b * quotient).astype(np.int32)
            return out
        return divide

    def _lazy(self, node: Node) -> Evaluator:
        """`and`, `or` and `?:`: the later parts evaluated only on the deals that reach them."""
        parts = [self.compile(a) for a in node.args]
        kind = node.kind
        exact = [_divides(a) for a in node.args]  # a division is evaluated only on the deals that reach it

        def run(batch: Batch) -> IntArray:
            first = parts[0](batch) != 0
            out = np.zeros(batch.size, dtype=np.int32)
            if kind == "choose":
                _fill(out, batch, first, parts[1], lambda v: v, exact[1])
                _fill(out, batch, ~first, parts[2], lambda v: v, exact[2])
            elif kind == "and":
                _fill(out, batch, first, parts[1], lambda v: v != 0, exact[1])
            else:
                out[first] = 1
                _fill(out, batch, ~first, parts[1], lambda v: v != 0, exact[1])
            return out
        return run


def _fill(out: IntArray, batch: Batch, reach: npt.NDArray[np.bool_], part: Evaluator,
          convert: Callable[[IntArray], npt.NDArray[np.generic]], exact: bool) -> None:
    """out[reach] = convert(part) for the deals that reach `part`, evaluated on them alone when they are few."""
    count = int(np.count_nonzero(reach))
    if count == 0:
        return
    if count == batch.size:
        out[:] = np.broadcast_to(convert(part(batch)), (batch.size,))
        return
    if exact or count < SUBSET_BELOW * batch.size:
        rows = np.flatnonzero(reach)
        out[rows] = np.broadcast_to(convert(part(Batch(batch.deals[rows]))), (count,))
        return
    out[reach] = np.broadcast_to(convert(part(batch)), (batch.size,))[reach]


def _cccc(batch: Batch, seat: int) -> IntArray:
    """The Kaplan-Rubens evaluation of a seat's hand, times 100: its suits' shares and its shape points, less 100
    (less 50 for a hand with no suit shorter than three)."""
    shape = batch.suit_values(SHAPE_POINTS, seat, None)
    out: IntArray = batch.suit_values(CCCC_TABLE, seat, None) + np.where(shape == 0, -50, shape - 100).astype(np.int32)
    return out


def _divides(node: Node) -> bool:
    """Whether an expression holds a division or a remainder."""
    return node.kind in ("/", "%") or any(isinstance(a, Node) and _divides(a) for a in node.args)


_LENGTHS = np.ascontiguousarray(points_table((1,) * 13))
_BINARY: Final[dict[str, Callable[[IntArray, IntArray], npt.NDArray[np.generic]]]] = {
    "+": np.add, "-": np.subtract, "*": np.multiply,
    "==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
}
