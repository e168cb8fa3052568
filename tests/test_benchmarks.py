"""The benchmark scripts keep running: each one, at its tiny ``--quick`` size, completes and names its
baselines. Nothing here reads a figure or a time; speed is the scripts' business, run on demand.

Also held here: a benchmark imports nothing from the tests, and names no path of a particular machine.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"

BASELINES: dict[str, list[str]] = {
    "bigdeal_engine.py": ["hashlib only", "numpy RIPEMD only", "bigdealx -f goedel"],
    "c_size.py": ["flash goal", "RAM goal"],
    "congress.py": ["engine + write_file", "bare SQLite transaction", "one machine alone"],
    "crc_escape.py": ["low CRC byte only"],
    "formats.py": ["endplay PBN reader", "endplay PBN writer"],
    "generate.py": ["random.shuffle", "endplay generate_deals", "bigdealx"],
    "generate_threads.py": ["one thread", "AES-256-CTR keystream", "bigdealx", "32-board run"],
    "hil_device.py": ["bare link exchange"],
    "journal.py": ["sync-dealing", "rollback"],
    "journal_listeners.py": ["no listener", "listener called by the writer"],
    "journal_reading.py": ["annotations resolved each decode", "rows and JSON alone", "every event folded afresh"],
    "noise.py": ["no noise", "8 retries"],
    "prepared.py": ["the dealer program"],
    "protocol.py": ["crc_hqx only", "byte-at-a-time decoder"],
    "records.py": ["one deal at a time, one thread", "one deal at a time, DDS's threads"],
    "room.py": ["SQLite journal file", "one controller, 16 machines"],
    "serve.py": ["plain terminal view"],
    "serve_memory.py": ["the console at rest"],
    "session.py": ["bare driver", "one machine alone"],
    "startup.py": ["python -c pass", "import serial", "import numpy"],
    "stats.py": ["plain Python per deal", "numpy one-hot"],
    "stats_alarms.py": ["the 5 % sentence", "one test alone at 5 %"],
}
"""Each script and the baselines its header must name."""

USES_PTYS = {"congress.py", "room.py", "serve.py", "session.py"}
COMPARED_WITH_BIGDEALX = {"bigdeal_engine.py", "generate.py", "generate_threads.py"}
"""Scripts that time bigdealx when it is on PATH; run here without it, they must say there is no baseline."""


def scripts() -> list[str]:
    return sorted(p.name for p in BENCHMARKS.glob("*.py") if not p.name.startswith("_"))


def test_every_script_is_listed() -> None:
    assert scripts() == sorted(BASELINES)


def path_without_bigdealx() -> str:
    """PATH less every folder that holds a bigdealx, so the scripts run as on a machine without Big Deal."""
    folders = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(f for f in folders if f and not (Path(f) / "bigdealx").exists())


def run_quick(name: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PATH=path_without_bigdealx())
    return subprocess.run([sys.executable, str(BENCHMARKS / name), "--quick"], cwd=ROOT, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=180)


@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.pty] if n in USES_PTYS else [])
                                  for n in sorted(BASELINES)])
def test_script_runs_quick_and_names_its_baselines(name: str) -> None:
    run = run_quick(name)
    assert run.returncode == 0, f"{name} --quick failed:\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}"
    head, _, _ = run.stdout.partition("\n\n")  # the header comes first
    listed = re.findall(r"^  - (.+?): ", run.stdout, flags=re.M)
    for baseline in BASELINES[name]:
        assert baseline in listed, f"{name} does not name its baseline {baseline!r}:\n{head}"
    if name in COMPARED_WITH_BIGDEALX:  # no figure of bigdealx's, and no ratio to one, without bigdealx
        assert "no baseline: bigdealx is not on PATH" in run.stdout
        assert not re.search(r"bigdealx time|bigdealx -f goedel +[\d,]+/s", run.stdout)


def project_imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", sorted(BENCHMARKS.glob("*.py")), ids=lambda p: p.name)
def test_benchmarks_import_nothing_from_the_tests(path: Path) -> None:
    assert not [n for n in project_imports(path) if n == "tests" or n.startswith("tests.")]


@pytest.mark.parametrize("path", sorted(BENCHMARKS.glob("*.py")), ids=lambda p: p.name)
def test_benchmarks_name_no_machine_paths(path: Path) -> None:
    """No string in a benchmark is an absolute or home path: where a program lives is found (PATH), and
    scratch files go to a temporary folder."""
    strings = [node.value for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
               if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    assert not [s for s in strings if re.fullmatch(r"(~|/[\w.-]+)/\S*", s)]
