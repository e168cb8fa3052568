"""Boards per hour against line noise: what a noisy cable costs a dealing session, shipped defaults.

Run from the project root: ``python benchmarks/noise.py [--boards 8] [--seeds 3] [--quick]``.
Each run is `dealer.dealing.run.deal_session` (the code ``dealer deal`` runs: journal, label checks,
recounts, verification) with every setting at its default, on one simulated machine at real machine
speed (`hil.SimConfig` timings: about 16 s a board with the operator's swap), its line damaging a share
of the bytes in both directions (``sim://?noise=``: half dropped, half replaced). The machine and its
line run in memory in virtual time (`hil.Loopback`), so a session of many minutes is measured in
seconds; boards per hour are the boards verified per hour of that session's (virtual) time. Figures:
the median over ``--seeds`` runs (each seed its own noise and machine), for 0, 1, 5 and 10 % noise,
each with its ratio to the baseline ``no noise`` (the 0 % runs, in this run), and the boards left
unverified, if any. A second baseline, ``8 retries``, runs the same sessions with the link the host
shipped before (give up after 8 retries): how the run fared when a give-up stopped the machine.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
from pathlib import Path

from _support import header, median, random_deals  # the project root on sys.path too

from dealer.core.dealset import DealSet
from dealer.dealing.machine import Machine
from dealer.dealing.run import RunOptions, deal_session
from dealer.dealing.sim_ports import loopback_opener
from dealer.journal.history import DealHistory
from firmware_protocol import LinkConfig
from hil.config import SimConfig
from hil.loopback import Loopback

RATES = (0.0, 0.01, 0.05, 0.10)
EIGHT_RETRIES = LinkConfig(retransmit_timeout=0.25, max_retries=8, nak_interval=0.1, give_up_after=None)
"""The host's link before it gave up by time: LinkConfig() as it was shipped."""


def session(rate: float, seed: int, boards: int, link: LinkConfig | None) -> tuple[int, float]:
    """(boards verified, virtual seconds) of one session at `rate` noise."""
    deals = DealSet.from_deals(random_deals(seed, boards), list(range(1, boards + 1)))
    with tempfile.TemporaryDirectory() as tmp, Loopback(SimConfig(noise=rate, seed=seed)) as loop:
        start = loop.clock()

        def factory(url: str) -> Machine:
            machine = Machine(url, opener=loopback_opener(loop), clock=loop.clock,
                              sleep=loop.clock.sleep, link_config=link)  # type: ignore[attr-defined]
            return machine

        DealHistory.open(Path(tmp) / "history.db", create=True).close()
        options = RunOptions(ports=["loop://noisy"], journal=Path(tmp) / "j.db", machine_factory=factory,
                             history=Path(tmp) / "history.db", out=io.StringIO(), quiet=True)
        result = deal_session(deals, "noise.pbn", options)
        return result.verified, loop.clock() - start


def per_hour(runs: list[tuple[int, float]]) -> float:
    return median([verified * 3600 / seconds if seconds > 0 else 0.0 for verified, seconds in runs])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--boards", type=int, default=8, help="boards per session (default 8)")
    parser.add_argument("--seeds", type=int, default=3, help="sessions per noise rate, each its own seed (default 3)")
    parser.add_argument("--quick", action="store_true", help="a first look: 2 boards, one seed")
    args = parser.parse_args(argv)
    if args.quick:
        args.boards, args.seeds = 2, 1
    header("noise: boards per hour of a dealing session against the share of bytes the line damages",
           {"no noise": "the same sessions on a clean line (0 %), shipped defaults",
            "8 retries": "the same sessions with the host's former link: give up after 8 retries"},
           f"{args.boards} boards a session, median of {args.seeds} seeds, machine at real speed, virtual time")
    print()
    base = None
    for rate in RATES:
        ours = [session(rate, seed, args.boards, None) for seed in range(1, args.seeds + 1)]
        before = [session(rate, seed, args.boards, EIGHT_RETRIES) for seed in range(1, args.seeds + 1)]
        rate_ours, rate_before = per_hour(ours), per_hour(before)
        base = rate_ours if base is None else base
        left = sum(args.boards - v for v, _ in ours)
        left_before = sum(args.boards - v for v, _ in before)
        print(f"{rate:>4.0%} noise: {rate_ours:7.1f} boards/hour ({rate_ours / base:5.2f} x no noise), "
              f"{left} of {args.boards * args.seeds} boards left unverified; "
              f"8 retries: {rate_before:7.1f} boards/hour, {left_before} left unverified")
    return 0


if __name__ == "__main__":
    sys.exit(main())
