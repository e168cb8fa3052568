"""Checks of a run over a noisy line, read from the simulator's record of the line (`hil.record`).

Independent of the host: the deal file is read as plain text, and the deal in each LoadDeal the machine
accepted is unpacked by the protocol's own table (`firmware_protocol.deal`), not by the host's code.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from firmware_protocol.deal import unpack_seats
from firmware_protocol.messages import LoadDeal, MsgType, decode_message
from hil.physical import pbn_deal


def check_load_deals(record: Mapping[str, Any], deals: Mapping[int, str]) -> int:
    """Every LoadDeal the machine accepted is byte-equal to one the host wrote, and carries its board's
    deal from the deal file; returns how many the machine accepted."""
    sent = {bytes.fromhex(h) for h in record["load_deals"]["sent"]}
    accepted = [bytes.fromhex(h) for h in record["load_deals"]["accepted"]]
    for payload in accepted:
        assert payload in sent, f"the machine accepted a LoadDeal the host never sent: {payload.hex()}"
        msg = decode_message(MsgType.LOAD_DEAL, payload)
        assert isinstance(msg, LoadDeal)
        seats = unpack_seats(msg.deal)
        hands = [[card for card in range(52) if seats[card] == seat] for seat in range(4)]
        assert pbn_deal(hands) == deals[msg.board], f"board {msg.board}: the machine was loaded another deal"
    return len(accepted)


def check_ledger(record: Mapping[str, Any], deals: Mapping[int, str]) -> None:
    """Every board of the deal file holds its deal, dealt into an empty board lying straight."""
    held = {b["label"]: b for b in record["boards"]}
    for board, deal in deals.items():
        (label,) = [name for name in held if name.split(":")[1] == str(board)]
        assert held[label]["pockets"] == deal, f"board {board} holds another deal"
        dealings = [d for d in record["dealings"] if d["label"] == label]
        assert dealings and dealings[-1]["deal"] == deal and dealings[-1]["cards"] == 52
    assert all(d["cards_before"] == 0 and d["turns"] == 0 for d in record["dealings"])


def check_noise(record: Mapping[str, Any], rate: float) -> None:
    """The line damaged about `rate` of the bytes in each direction (within four standard deviations),
    half dropped and half replaced: the run did go through the noise it was meant to."""
    noise = record["noise"]
    for direction in ("to_host", "to_device"):
        carried, dropped, replaced = (noise[k][direction] for k in ("carried", "dropped", "replaced"))
        spread = 4 * math.sqrt(carried * rate * (1 - rate)) + 1
        assert abs(dropped + replaced - rate * carried) < spread, (direction, carried, dropped, replaced)
        assert abs(dropped - replaced) < spread, (direction, carried, dropped, replaced)
        assert carried > 500  # a whole run went through it
