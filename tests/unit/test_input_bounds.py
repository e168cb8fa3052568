"""Inputs past a bound are refused before any work, in one line: documents nested too deep or holding numbers
that are not finite (`dealer.core.structured`, the fault plan's own check), and a simulated machine's options
(`hil.config`) out of their range."""

from __future__ import annotations

from pathlib import Path

import pytest

from dealer.cli import main
from dealer.core import structured
from dealer.core.structured import MAX_DEPTH, StructureError, load_json, load_toml
from hil.config import MAX_COPIES, MAX_SPEED, MIN_SPEED, SimConfig, SimConfigError

DEEP_JSON = "[" * 100_000 + "]" * 100_000
DEEP_TOML = "a = " + "[" * 5000 + "]" * 5000
DOTTED_TOML = "deep." + "a." * 10_000 + "a = 1\n"
DEEP_DEALS = '{"format": "dealer-deals", "version": 1, "boards": [' + DEEP_JSON + "]}"


@pytest.mark.parametrize(("command", "name", "text"), [
    (["plan"], "deep.toml", DEEP_TOML),
    (["history", "import"], "deep.json", DEEP_JSON),
    (["sim", "--faults"], "deep.json", DEEP_JSON),
    (["sim", "--faults"], "infinite.json", '{"faults": [{"kind": "jam", "board": 1, "rate": Infinity}]}'),
    (["plan"], "dotted.toml", DOTTED_TOML),
    (["convert", "--to", "pbn"], "deep-deals.json", DEEP_DEALS),
    (["deal", "--port", "sim://"], "deep-deals.json", DEEP_DEALS),
], ids=["plan", "history import", "sim --faults", "sim --faults Infinity", "plan dotted key", "convert", "deal"])
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


def test_a_dotted_key_past_the_bound_is_refused_before_the_parser_spends_memory_on_it() -> None:
    """The TOML parser's memory grows with the square of a dotted key's depth (a 20 KB key of 10,000 parts
    took a gigabyte): such a key is refused before parsing, within a few megabytes."""
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(StructureError, match=f"nested deeper than {MAX_DEPTH} levels"):
            load_toml(DOTTED_TOML)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024, peak


@pytest.mark.parametrize(("text", "parts"), [
    ("a.b.c = 1", 3), ("[a.b]\nx = 1.5", 2), ('x = "a.b.c.d"', 0), ("x = [\n  " + ", ".join(["1.5"] * 50) + "\n]", 0),
    ("t = { a.b.c = 1, d.e = 2 }", 3), ("# a.b.c.d\nx = 1", 0), ('"q.r".s = 1', 2), ("[[a.b.c]]\nx = 1", 3),
    ('x = """a.b\nc.d.e.f"""\ny.z = 1', 2), ("x = [{ a.b = 1 }, { c.d.e = 2 }]", 3),
])
def test_keys_are_counted_where_toml_has_keys_not_in_strings_comments_or_values(text: str, parts: int) -> None:
    """Dots in strings, comments and numbers are no key's (a key without a dot counts 0); after any of them
    a key of `MAX_DEPTH` parts is taken and one of more is refused."""
    assert structured._deepest_key(text) == parts
    dotted = ".".join(["k"] * MAX_DEPTH)
    assert load_toml(f"{dotted} = 1\n{text}") is not None
    with pytest.raises(StructureError):
        load_toml(f"{text}\n{dotted}.k = 1")
