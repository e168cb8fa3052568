"""Random and mutated bytes into the C decoder and the C device, under the address and undefined-behaviour
sanitizers; and the C and Python codecs, written apart, judging the same payloads alike.

Inputs come from `tests.support.c_fuzz` with fixed seeds (a failure replays exactly); their number is
fixed, so the time they take is bounded. The driver checks its properties itself and stops at the first
broken one (see `firmware_protocol/c/tests/fuzz_driver.c`).
"""

from __future__ import annotations

import re

import pytest

from firmware_protocol import decode_message
from firmware_protocol.errors import DecodeError
from firmware_protocol.messages import REGISTRY
from tests.support.c_build import CBuilds, run_program, sanitizer_report
from tests.support.c_fuzz import fuzz_input, payload_cases


@pytest.mark.parametrize("seed", [1, 2])
def test_random_and_mutated_bytes_break_nothing(c_builds: CBuilds, seed: int) -> None:
    run = run_program(c_builds("fuzz_driver"), fuzz_input(seed, decoder_records=4000, device_records=300))
    assert not sanitizer_report(run.stderr), run.stderr[-3000:]
    assert run.returncode == 0, run.stderr[-3000:]
    figures = dict(re.findall(r"(\w+) (\d+)", run.stdout))
    assert int(figures["records"]) == 4300
    # the inputs reached every layer: intact frames, messages decoded, a device answering and sending events
    assert int(figures["frames"]) > 2000 and int(figures["decoded"]) > 300
    assert int(figures["device_frames_out"]) > 1000 and int(figures["events"]) > 50 and int(figures["bad"]) > 100


def python_verdict(type_: int, payload: bytes) -> str:
    if type_ not in REGISTRY:
        return "unknown"
    try:
        decode_message(type_, payload)
    except DecodeError:
        return "malformed"
    return "ok"


def test_the_c_and_python_codecs_accept_exactly_the_same_payloads(c_builds: CBuilds) -> None:
    cases = payload_cases(seed=17, count=6000)
    run = run_program(c_builds("vectors_driver"), "".join(f"payload {t:02x}{p.hex()}\n" for t, p in cases))
    assert run.returncode == 0 and not sanitizer_report(run.stderr), run.stderr
    verdicts = run.stdout.splitlines()
    disagreements = [(f"{t:02x}", p.hex(), c) for (t, p), c in zip(cases, verdicts, strict=True)
                     if c != python_verdict(t, p)]
    assert disagreements == []
    # both kinds of verdict were reached many times
    assert 500 < verdicts.count("ok") < len(cases) - 500
