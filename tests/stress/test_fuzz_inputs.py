"""A sample of the fuzzing of plans and deal files (`tests.stress.fuzz_inputs`, run whole on demand): mutated
inputs through `dealer plan`, `convert` and `deal` under a 2 GB memory limit end in the README's exit codes,
one line each, never a traceback or a kill."""

from __future__ import annotations

import sys

import pytest

from tests.support import fuzz_inputs

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the memory limit is Linux's RLIMIT_AS")


@pytest.mark.parametrize("seed", [11, 12])
def test_mutated_plans_and_deal_files_end_in_a_documented_exit_code(seed: int) -> None:
    tally = fuzz_inputs.run(60, seed)
    assert tally["failures"] == [] and tally["ran"] == 60, tally
    codes = tally["codes"]
    assert isinstance(codes, dict) and codes.get("0", 0) > 0 and codes.get("3", 0) > 0, codes  # both kinds seen
