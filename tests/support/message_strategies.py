"""Hypothesis strategies derived from the message layouts, so every registered type is covered."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from firmware_protocol.layout import ByteList, FieldKind, FixedBytes, Pocket, PocketList, Text, UInt
from firmware_protocol.messages import Message


def for_kind(kind: FieldKind) -> st.SearchStrategy[Any]:
    if isinstance(kind, UInt):
        return st.integers(0, kind.limit - 1)
    if isinstance(kind, FixedBytes):
        return st.binary(min_size=kind.size, max_size=kind.size)
    if isinstance(kind, Text):
        return st.binary(max_size=kind.max_len)
    if isinstance(kind, ByteList):
        return st.lists(st.integers(0, 255), max_size=kind.max_len).map(tuple)
    if isinstance(kind, PocketList):
        pocket = st.builds(Pocket, st.lists(st.integers(0, 51), max_size=20).map(tuple), st.integers(0, 255))
        return st.lists(pocket, max_size=kind.max_pockets).map(tuple)
    raise TypeError(f"no strategy for {kind!r}")


def messages_of(cls: type[Message]) -> st.SearchStrategy[Message]:
    """Any valid instance of a message class."""
    fields = [for_kind(f.kind) for f in cls.CODEC.fields]
    return st.tuples(*fields).map(lambda values: cls(*values))
