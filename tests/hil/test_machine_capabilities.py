"""What each bench scenario needs of the machine (`hil.scenarios.MACHINE_CAPABILITIES`): declared, built
into its simulated machine, and a real machine that is not so skipped with the reason."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hil.pytest_plugin import require_machine
from hil.scenarios import MACHINE_CAPABILITIES, SCENARIOS, by_name


def test_every_scenario_that_turns_a_board_names_the_reader_it_is_written_for() -> None:
    for scenario in SCENARIOS:
        turns = any(f.kind.value == "rotated_board" for f in scenario.plan.faults)
        readers = scenario.machine & {"reader_north", "reader_edges"}
        assert len(readers) == (1 if turns else 0), scenario.name
        assert scenario.machine <= set(MACHINE_CAPABILITIES), scenario.name


def test_the_turned_board_is_a_turn_on_a_machine_that_reads_every_edge_and_no_read_on_one_reader() -> None:
    readable, unread = by_name("turned_readable"), by_name("turned_unread")
    assert readable.sim_config().reads_every_edge and readable.expect.verifier_faults == {"F6"}
    assert not unread.sim_config().reads_every_edge and unread.expect.verifier_faults == {"F8"}
    assert by_name("power_loss_kept_job").sim_config().keeps_job


def test_a_real_machine_that_is_not_what_the_scenario_needs_is_skipped_with_the_reason() -> None:
    with pytest.raises(pytest.skip.Exception, match="the machine is not reader_edges: a label reader on every "
                                                    "side .*it is board_sensor, reader_north"):
        require_machine(by_name("turned_readable"), frozenset({"reader_north", "board_sensor"}))
    require_machine(by_name("turned_readable"), frozenset({"reader_edges"}))  # no skip


def test_the_option_refuses_two_readers_and_unknown_words(tmp_path: Path) -> None:
    (tmp_path / "test_nothing.py").write_text("def test_nothing():\n    pass\n")

    def run(capabilities: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               "--machine-capabilities", capabilities, "test_nothing.py"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)

    both = run("reader_north,reader_edges")
    assert both.returncode == pytest.ExitCode.USAGE_ERROR
    assert "a machine has reader_north or reader_edges, not both" in both.stderr
    unknown = run("laser")
    assert unknown.returncode == pytest.ExitCode.USAGE_ERROR and "unknown capability 'laser'" in unknown.stderr
    assert run("reader_edges,keeps_job").returncode == 0
