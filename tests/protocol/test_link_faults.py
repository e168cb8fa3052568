"""Whole sessions through a faulty wire on a fake clock: every command carried out exactly once.

The simulated machine counts what it carries out; the host counts the DealDone events it is given.
Loss, duplication, corruption and reordering of whole frames, and byte-level noise, are applied in both
directions by the channels of `tests.support.link_sim`.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from firmware_protocol import Ack, Link, LinkConfig, LoadDeal, Role
from tests.support.link_sim import (
    ByteNoise,
    Channel,
    FakeMachine,
    FrameFaults,
    ScriptedHost,
    Simulation,
    load_commands,
)

HOST_9600 = LinkConfig.for_baud(9600, Role.HOST)
DEVICE_9600 = LinkConfig.for_baud(9600, Role.DEVICE)


def run_session(count: int, h2d: Channel, d2h: Channel, host_config: LinkConfig,
                echo: bool = False) -> tuple[ScriptedHost, FakeMachine]:
    commands = load_commands(count)
    host = ScriptedHost(Link(Role.HOST, host_config), commands)
    machine = FakeMachine(Link(Role.DEVICE, DEVICE_9600))
    Simulation(host, machine, h2d, d2h, echo=echo).run()
    return host, machine


def assert_exactly_once(host: ScriptedHost, machine: FakeMachine, count: int) -> None:
    jobs = [m.job for m in load_commands(count) if isinstance(m, LoadDeal)]
    assert not host.gave_up
    assert machine.loads == Counter(jobs), "each LoadDeal carried out once"
    assert host.deals_done == Counter(jobs), "each DealDone event delivered once"
    loads = [a for a in host.replies if isinstance(a.request, LoadDeal)]
    assert [a.request.job for a in loads] == jobs  # type: ignore[attr-defined]
    assert all(a.reply == Ack() for a in loads)
    assert machine.commands["Hello"] == 1


def test_a_clean_wire_costs_no_retransmission() -> None:
    host, machine = run_session(50, Channel(), Channel(), HOST_9600)
    assert_exactly_once(host, machine, 50)
    assert host.link.counters.retransmits == machine.link.counters.retransmits == 0
    assert host.link.counters.bad_frames == machine.link.counters.bad_frames == 0


def test_a_line_that_echoes_every_byte_back_fools_neither_end() -> None:
    host, machine = run_session(200, Channel(), Channel(), HOST_9600, echo=True)
    assert_exactly_once(host, machine, 200)
    # every frame each end sent came back to it and was ignored as its own (the last ones may still be
    # on the wire when the script ends)
    for counters in (host.link.counters, machine.link.counters):
        assert counters.frames_sent - 2 <= counters.violations <= counters.frames_sent
    assert host.link.counters.retransmits == machine.link.counters.retransmits == 0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_lost_duplicated_corrupted_and_reordered_frames_both_ways(seed: int) -> None:
    rng = random.Random(seed)
    faults = {"p_loss": 0.1, "p_dup": 0.1, "p_corrupt": 0.1, "p_delay": 0.1, "max_delay": 2.0}
    h2d_faults = FrameFaults(random.Random(rng.random()), **faults)  # type: ignore[arg-type]
    d2h_faults = FrameFaults(random.Random(rng.random()), **faults)  # type: ignore[arg-type]
    config = LinkConfig(HOST_9600.retransmit_timeout, 20, nak_interval=HOST_9600.nak_interval)
    host, machine = run_session(500, Channel(h2d_faults), Channel(d2h_faults), config)
    assert_exactly_once(host, machine, 500)
    for faults_seen in (h2d_faults.counts, d2h_faults.counts):
        assert min(faults_seen[k] for k in ("lost", "duplicated", "corrupted", "delayed")) > 20
    assert machine.link.counters.duplicates > 0 and host.link.counters.duplicates > 0
    assert machine.link.counters.stale + host.link.counters.stale > 0  # reordered copies were refused


def test_ten_thousand_commands_through_five_percent_byte_noise_both_ways() -> None:
    # 2.5 % of bytes dropped and 2.5 % replaced, in each direction, with the host's shipped timing. A
    # LoadDeal (24 bytes) and its Ack (6 bytes) both get through with probability 0.95**30 = 0.21 per
    # attempt; the host gives up only after 30 s without hearing the device, which a line like this never
    # comes near. Undetected damage needs a CRC-16 collision on a frame that also decodes and carries the
    # expected seq (benchmarks/crc_escape.py measures how often damaged frames pass; PROTOCOL.md 2.4).
    h2d_noise = ByteNoise(random.Random(101), p_drop=0.025, p_flip=0.025)
    d2h_noise = ByteNoise(random.Random(202), p_drop=0.025, p_flip=0.025)
    host, machine = run_session(10_000, Channel(h2d_noise), Channel(d2h_noise), HOST_9600)
    assert_exactly_once(host, machine, 10_000)
    for noise, channel_bytes in ((h2d_noise, host.link.counters.bytes_sent),
                                 (d2h_noise, machine.link.counters.bytes_sent)):
        damaged = (noise.dropped + noise.flipped) / channel_bytes
        assert 0.045 < damaged < 0.055
    assert host.link.counters.bad_frames > 1000 and machine.link.counters.bad_frames > 1000
