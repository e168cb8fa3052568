"""Access to the committed golden vectors in tests/vectors/*.json."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from firmware_protocol.framing import BadFrame, Frame
from tests.support.paths import VECTORS


@cache
def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    return data


def message_vectors() -> list[dict[str, Any]]:
    return list(load("messages.json")["messages"])


def stream_vectors() -> list[dict[str, Any]]:
    return list(load("framing.json")["streams"])


def expected_events(vector: dict[str, Any]) -> list[Frame | BadFrame]:
    """The events a stream vector lists, as decoder objects."""
    from firmware_protocol.framing import BadFrameReason

    out: list[Frame | BadFrame] = []
    for e in vector["events"]:
        if "frame" in e:
            f = e["frame"]
            out.append(Frame(f["type"], f["seq"], bytes.fromhex(f["payload"])))
        else:
            out.append(BadFrame(BadFrameReason(e["bad"]), e["length"]))
    return out
