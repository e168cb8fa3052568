"""The simulator's noisy line (`sim://?noise=`) and its record of the LoadDeals on the wire."""

from __future__ import annotations

import pytest

from firmware_protocol.framing import DELIMITER
from firmware_protocol.messages import LoadDeal, encode_message
from hil.bytefaults import TO_DEVICE, TO_HOST, LineNoise
from hil.config import SimConfig, SimConfigError
from hil.wire_record import LoadDealLog


def test_line_noise_drops_and_replaces_about_its_share_of_bytes_each_way() -> None:
    noise = LineNoise(0.1, seed=5)
    data = bytes(range(256)) * 40
    out = b"".join(chunk for _, chunk in noise(data, TO_HOST))
    dropped, replaced = noise.dropped[TO_HOST], noise.replaced[TO_HOST]
    assert len(out) == len(data) - dropped
    assert 424 < dropped < 600 and 424 < replaced < 600  # 5 % each of 10,240 bytes: 512, within 4 sigma
    assert noise.carried == {TO_HOST: len(data), TO_DEVICE: 0}
    assert LineNoise(0.0)(data, TO_DEVICE) == [(0.0, data)]


def test_a_sim_url_takes_the_noise_and_refuses_a_share_out_of_range() -> None:
    assert SimConfig.from_url("sim://?noise=0.05").noise == 0.05
    assert SimConfig.from_url("sim://").noise == 0.0
    for bad in ("1", "-0.1", "lots"):
        with pytest.raises(SimConfigError, match="noise"):
            SimConfig.from_url(f"sim://?noise={bad}")


def test_the_load_deal_log_reads_what_the_host_wrote_in_any_split() -> None:
    log = LoadDealLog()
    load = LoadDeal.for_deal(7, 3, bytes([0x1B]) * 13)
    wire = DELIMITER + encode_message(load, 4) + encode_message(load, 4)  # sent, then sent again
    for i in range(0, len(wire), 5):
        log.host_wrote(wire[i:i + 5])
    log.accept(load)
    assert log.sent == [load.payload(), load.payload()] and log.accepted == [load.payload()]
    assert log.to_json() == {"sent": [load.payload().hex()] * 2, "accepted": [load.payload().hex()]}
