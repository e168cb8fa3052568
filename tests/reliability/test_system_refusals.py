"""The system refusing a live `dealer deal` (no descriptor, no memory, its journal's folder closed) is never a
verdict on the record: the run ends in one line naming the system's reason (exit 11, or 0 if the run did not
need what was refused), and the command that line names deals the rest, every board once."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.system_refusals import run_trials

pytestmark = [pytest.mark.pty,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty tests run on Linux")]


def test_a_sample_of_refusals_at_random_instants_is_never_called_damage(tmp_path: Path) -> None:
    """`tests.support.system_refusals`, 6 trials, each refusal twice (``python -m tests.stress.system_refusals``:
    200)."""
    trials = run_trials(tmp_path, 6, seed=20261207)
    assert trials.problems == [], "\n".join([trials.text(), *trials.problems])
    assert trials.ran == 6 and trials.damaged == 0 and sum(trials.refused.values()) >= 2, trials.text()
