"""One board's whole exchange: pinned by tests/vectors/exchange.json, and within the byte budget."""

from __future__ import annotations

from firmware_protocol.messages import MsgType, encode_message, message_from_fields
from tests.support.golden_vectors import load
from tests.support.link_sim import one_board_exchange

LOAD_DEAL_BUDGET = 24
BOARD_BUDGET = 300


def test_recorded_exchange_reencodes_exactly() -> None:
    for f in load("exchange.json")["frames"]:
        msg = message_from_fields(f["name"], f["fields"])
        assert encode_message(msg, f["seq"]).hex() == f["frame"]


def test_the_links_still_produce_the_recorded_exchange() -> None:
    recorded = [(f["sender"], f["step"], f["frame"]) for f in load("exchange.json")["frames"]]
    assert [(f.sender, f.step, f.wire.hex()) for f in one_board_exchange()] == recorded


def test_a_board_fits_the_byte_budget() -> None:
    frames = one_board_exchange()
    load_deal = [f for f in frames if f.message.TYPE == MsgType.LOAD_DEAL]
    assert len(load_deal) == 1 and len(load_deal[0].wire) <= LOAD_DEAL_BUDGET
    per_board = sum(len(f.wire) for f in frames if f.step in ("load", "check", "deal", "recount"))
    assert per_board <= BOARD_BUDGET
    assert sum(len(f.wire) for f in frames) <= BOARD_BUDGET  # the barcode scan included
    steps = ("scan", "load", "check", "deal", "recount")
    per_step = {s: sum(len(f.wire) for f in frames if f.step == s) for s in steps}
    assert load("exchange.json")["bytes_per_step"] == per_step
