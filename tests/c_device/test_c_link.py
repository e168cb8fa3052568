"""The C device's link against the Python host's link, through a faulty wire on a fake clock: every
command carried out exactly once, every event delivered once.

The C side is `firmware_protocol/c/tests/link_driver.c` (its machine counts each LoadDeal it carries out
and answers it with a DealDone event), stepped by `link_sim.Simulation` as the Python pair is in
`tests/protocol/test_link_faults.py`; its count is read back from the driver at the end.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from firmware_protocol import Ack, Link, LinkConfig, LoadDeal, Role
from tests.support.c_build import CBuilds
from tests.support.c_device import CMachine
from tests.support.link_sim import ByteNoise, Channel, FrameFaults, ScriptedHost, Simulation, load_commands

HOST_9600 = LinkConfig.for_baud(9600, Role.HOST)


@contextmanager
def c_session(c_builds: CBuilds, count: int, h2d: Channel, d2h: Channel, host_config: LinkConfig = HOST_9600,
              echo: bool = False) -> Iterator[tuple[ScriptedHost, dict[str, Any]]]:
    """Run `count` LoadDeals from the Python host to the C device; the host and the device's figures."""
    host = ScriptedHost(Link(Role.HOST, host_config), load_commands(count))
    machine = CMachine(c_builds("link_driver"))
    try:
        Simulation(host, machine, h2d, d2h, echo=echo).run()
        figures = machine.link.stats()
    finally:
        machine.link.close()
    yield host, figures


def assert_exactly_once(host: ScriptedHost, figures: dict[str, Any], count: int) -> None:
    jobs = [m.job for m in load_commands(count) if isinstance(m, LoadDeal)]
    assert not host.gave_up
    assert figures["loads"] == {str(job): 1 for job in jobs}, "each LoadDeal carried out once by the C device"
    assert host.deals_done == Counter(jobs), "each DealDone event delivered once to the host"
    loads = [(a.request, a.reply) for a in host.replies if isinstance(a.request, LoadDeal)]
    assert [request.job for request, _ in loads if isinstance(request, LoadDeal)] == jobs
    assert all(reply == Ack() for _, reply in loads)
    assert figures["hello"] == 1


def test_a_clean_wire_costs_no_retransmission(c_builds: CBuilds) -> None:
    with c_session(c_builds, 100, Channel(), Channel()) as (host, figures):
        assert_exactly_once(host, figures, 100)
        assert host.link.counters.retransmits == 0 and figures["retransmits"] == 0
        assert host.link.counters.bad_frames == 0 and figures["bad_frames"] == 0


def test_byte_drops_and_flips_both_ways(c_builds: CBuilds) -> None:
    # 2.5 % of bytes dropped and 2.5 % replaced, each way, as in the Python pair's test; the host is allowed
    # 60 timeouts a command before it gives up (see tests/protocol/test_link_faults.py for the odds)
    h2d_noise = ByteNoise(random.Random(303), p_drop=0.025, p_flip=0.025)
    d2h_noise = ByteNoise(random.Random(404), p_drop=0.025, p_flip=0.025)
    config = LinkConfig(HOST_9600.retransmit_timeout, 60, nak_interval=HOST_9600.nak_interval)
    with c_session(c_builds, 1500, Channel(h2d_noise), Channel(d2h_noise), config) as (host, figures):
        assert_exactly_once(host, figures, 1500)
        assert h2d_noise.dropped > 500 and h2d_noise.flipped > 500 and d2h_noise.dropped > 500
        # both ends saw damage, repeats and retransmissions, and the C device answered repeats from its cache
        assert host.link.counters.bad_frames > 200 and figures["bad_frames"] > 200
        assert figures["duplicates"] > 50 and figures["retransmits"] > 50
        assert figures["naks_sent"] > 50 and host.link.counters.duplicates > 0


@pytest.mark.parametrize("seed", [1, 2])
def test_lost_duplicated_corrupted_and_reordered_frames_both_ways(c_builds: CBuilds, seed: int) -> None:
    rng = random.Random(seed)
    h2d, d2h = (FrameFaults(random.Random(rng.random()), p_loss=0.1, p_dup=0.1, p_corrupt=0.1, p_delay=0.1,
                            max_delay=2.0) for _ in range(2))
    config = LinkConfig(HOST_9600.retransmit_timeout, 20, nak_interval=HOST_9600.nak_interval)
    with c_session(c_builds, 400, Channel(h2d), Channel(d2h), config) as (host, figures):
        assert_exactly_once(host, figures, 400)
        for seen in (h2d.counts, d2h.counts):
            assert min(seen[k] for k in ("lost", "duplicated", "corrupted", "delayed")) > 20
        assert figures["duplicates"] > 0 and figures["stale"] > 0


def test_a_line_that_echoes_every_byte_back_fools_neither_end(c_builds: CBuilds) -> None:
    with c_session(c_builds, 100, Channel(), Channel(), echo=True) as (host, figures):
        assert_exactly_once(host, figures, 100)
        # each frame the C device sent came back to it and was ignored as its own (but the last on the wire)
        frames_sent = 100 + 100 + 100 + 2  # Acks, DealDones and Progress notices, HelloAck and Boot
        assert frames_sent - 2 <= figures["ignored"] <= frames_sent
        assert host.link.counters.retransmits == 0 and figures["retransmits"] == 0
