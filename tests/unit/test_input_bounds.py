"""Inputs past a bound are refused before any work, in one line: documents nested too deep or holding numbers
that are not finite (`dealer.core.structured`, the fault plan's own check), and a simulated machine's options
(`hil.config`) out of their range."""

from __future__ import annotations

from pathlib import Path

import pytest

from dealer.cli import main
from dealer.core.structured import MAX_DEPTH, StructureError, load_json, load_toml
from hil.config import MAX_COPIES, MAX_SPEED, MIN_SPEED, SimConfig, SimConfigError

DEEP_JSON = "[" * 100_000 + "]" * 100_000
DEEP_TOML = "a = " + "[" * 5000 + "]" * 5000
DEEP_DEALS = '{"format": "dealer-deals", "version": 1, "boards": [' + DEEP_JSON + "]}"


@pytest.mark.parametrize(("command", "name", "text"), [
    (["plan"], "deep.toml", DEEP_TOML),
    (["history", "import"], "deep.json", DEEP_JSON),
    (["sim", "--faults"], "deep.json", DEEP_JSON),
    (["sim", "--faults"], "infinite.json", '{"faults": [{"kind": "jam", "board": 1, "rate": Infinity}]}'),
    (["convert", "--to", "pbn"], "deep-deals.json", DEEP_DEALS),
    (["deal", "--port", "sim://"], "deep-deals.json", DEEP_DEALS),
], ids=["plan", "history import", "sim --faults", "sim --faults Infinity", "convert", "deal"])
def test_a_file_past_a_bound_is_one_line_exit_3(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                command: list[str], name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    out = [str(tmp_path / "out.pbn")] if command[0] == "convert" else []
    assert main([*command, str(path), *out]) == 3
    assert not (tmp_path / "out.pbn").exists()
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert str(path) in line and ("nested deeper than" in line or "not a finite number" in line), line


def test_the_bounds_hold_at_the_edge() -> None:
    assert load_json("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    with pytest.raises(StructureError, match=f"deeper than {MAX_DEPTH}"):
        load_json("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    with pytest.raises(StructureError, match="not a number"):
        load_json('{"copies": -Infinity}')
    with pytest.raises(StructureError, match="inf"):
        load_toml("speed = inf")
    assert load_toml("a = 1.5") == {"a": 1.5}


@pytest.mark.parametrize(("option", "value"), [
    ("copies", "100000000"), ("copies", "0"), ("speed", "1e-300"), ("speed", "nan"), ("speed", "inf"),
    ("speed", str(MAX_SPEED * 2)), ("seed", "-1"), ("seed", str(2**64)),
])
def test_a_simulated_machines_option_out_of_range_is_refused_naming_it(option: str, value: str) -> None:
    with pytest.raises(SimConfigError, match=f"{option} must be"):
        SimConfig.from_url(f"sim://?{option}={value}")


def test_a_simulated_machine_at_its_bounds_is_made() -> None:
    assert SimConfig.from_url(f"sim://?copies={MAX_COPIES}&speed={MIN_SPEED}").copies == MAX_COPIES
    assert SimConfig.from_url(f"sim://?speed={MAX_SPEED:g}").speed == MAX_SPEED
