"""Prepared boards against Hans van Staveren's C program (Debian's `dealer`, /usr/games/dealer, or
DEALER_REFERENCE): each hand function's value on known hands (predealt to it, so its average is the value),
the acceptance rate of scripts in the style of real teaching scripts, agreeing within sampling error, and the
example scripts shipped with the C program, run as a user runs them (`tests.support.field_scripts`)."""

from __future__ import annotations

import math
import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from dealer import engines
from dealer.prepared import Compiled, Predeal, parse_script
from dealer.prepared.script import UNSUPPORTED
from tests.support import field_scripts

REFERENCE = os.environ.get("DEALER_REFERENCE", "/usr/games/dealer")
RANKS = "AKQJT98765432"


@pytest.fixture(scope="module")
def reference() -> str:
    if not Path(REFERENCE).is_file():
        pytest.fail(f"the dealer program is not installed ({REFERENCE}): apt-get install dealer")
    return REFERENCE


def c_run(program: str, script: str, tmp_path: Path, seed: int = 1) -> str:
    path = tmp_path / f"s{seed}.dlr"
    path.write_text(script)
    done = subprocess.run([program, "-s", str(seed), str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


FUNCTIONS = ["hcp(north)", "hcp(north, spades)", "losers(north)", "losers(north, hearts)", "controls(north)",
             "control(north, clubs)", "top2(north)", "top3(north, diamonds)", "top4(north)", "top5(north, spades)",
             "aces(north)", "c13(north)", "tens(north)", "shape(north, any 4432 + any 5332)", "spades(north)",
             "clubs(north)", "hascard(north, KH)", "hascard(north, 2C)", "pt9(north, hearts)", "cccc(north)",
             "quality(north, spades)", "quality(north, hearts)", "quality(north, diamonds)", "quality(north, clubs)"]


@pytest.mark.parametrize("seed", range(40))
def test_each_hand_function_has_the_c_programs_value_on_a_known_hand(seed: int, reference: str,
                                                                     tmp_path: Path) -> None:
    deal = engines.make_engine("shuffle", bytes([seed]) * 32).deals(1)
    north = [card for card in range(52) if deal[0, card] == 0]
    holdings = ", ".join("SHDC"[s] + "".join(RANKS[c % 13] for c in north if c // 13 == s) for s in range(4))
    actions = ", ".join(f'average "{i}" {f}' for i, f in enumerate(FUNCTIONS))
    out = c_run(reference, f"generate 1\nproduce 1\npredeal north {holdings}\naction {actions}\n", tmp_path)
    theirs = {int(k): float(v) for k, v in re.findall(r"^(\d+): (\S+)$", out, re.M)}
    script = parse_script(f"action {actions}\n")
    compiled = Compiled(script)
    ours = {i: int(compiled.values(a.exprs[0], deal)[0]) for i, a in enumerate(script.actions)}
    assert ours == theirs, holdings


SCRIPTS = {
    "strong two": "hcp(north) >= 22 or (hcp(north) >= 19 and losers(north) <= 4)",
    "weak two": """
# a weak two in hearts, partner with a fit
w2 = hearts(north) == 6 and hcp(north) >= 5 and hcp(north) <= 10 and top3(north, hearts) >= 1
   and spades(north) < 4
fit = hearts(south) >= 3 and hcp(south) >= 14
w2 and fit""",
    "1NT stayman": """
nt = shape(north, any 4333 + any 4432 + any 5332 - 5xxx - x5xx) && hcp(north) >= 15 && hcp(north) <= 17
stay = (spades(south) == 4 or hearts(south) == 4) and hcp(south) >= 8
nt and stay""",
    "slam controls": "hcp(north) + hcp(south) >= 31 and controls(north) + controls(south) >= 9 and "
                     "shape(north, any 5xxx + any 6xxx)",
    "points by ?:": """
pts = hcp(south) + (spades(south) > 5 ? spades(south) - 5 : 0) + (hearts(south) > 5 ? hearts(south) - 5 : 0)
lead = hascard(west, AS) + hascard(west, KS) * 2
pts >= 16 and lead >= 1 and 100 * (clubs(east) >= 4) / 100""",
    "predealt south": """predeal south SAQ542, HKJ87, D32, CAK
west1c = hcp(west) > 10 && clubs(west) >= 3 && spades(west) < 5 && hearts(west) < 5
west1c and diamonds(north) >= 6 and hcp(north) > 5""",
    "two-suiter": "shape(east, 55xx + x55x + xx55 + 5xx5 - any 6xxx) and top4(east) >= 3 and not (hcp(east) > 15)",
}


@pytest.mark.parametrize("name", SCRIPTS)
def test_the_acceptance_rate_agrees_with_the_c_programs(name: str, reference: str, tmp_path: Path) -> None:
    generated = 400_000
    out = c_run(reference, SCRIPTS[name] + f"\ngenerate {generated}\nproduce 10000000\naction average 1\n",
                tmp_path, seed=7)
    made = int(re.search(r"Generated (\d+) hands", out).group(1))  # type: ignore[union-attr]
    produced = int(re.search(r"Produced (\d+) hands", out).group(1))  # type: ignore[union-attr]
    deals = engines.make_engine("shuffle", bytes(range(32))).deals(generated)
    script = parse_script(SCRIPTS[name])
    if script.predeal:
        deals = Predeal(script.predeal).apply(deals)
        generated = len(deals)
    kept = int(np.count_nonzero(Compiled(script).accepts(deals)))
    p = (kept + produced) / (generated + made)
    z = (kept / generated - produced / made) / math.sqrt(p * (1 - p) * (1 / generated + 1 / made))
    print(f"{name}: ours {kept}/{generated} = {kept / generated:.5f}, "
          f"the C program's {produced}/{made} = {produced / made:.5f}, z = {z:+.2f}")
    assert produced > 100 and abs(z) < 4


EXAMPLES = Path(os.environ.get("DEALER_EXAMPLES", "/usr/share/doc/dealer/examples"))
EXAMPLE_NAMES = sorted(p.name for p in EXAMPLES.glob("*") if p.name.startswith(("Descr.", "Test."))) \
    if EXAMPLES.is_dir() else ["(no examples folder)"]


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_the_example_scripts_of_the_c_program_run_and_agree_or_are_refused_by_name(name: str, reference: str) -> None:
    # the scripts Debian's package ships beside the C program (written by its authors and users, not by us), run
    # as a user runs them (dealer generate --where, its report and file), against the C program's own run
    if not EXAMPLES.is_dir():
        pytest.fail(f"the C program's examples are not installed ({EXAMPLES}): apt-get install dealer")
    verdict = field_scripts.compare(EXAMPLES / name, reference, produce=1000, generate=1_000_000)
    print(verdict.line())
    if verdict.ours[1] == 0:
        assert any(f"{feature} is not supported" in problem for problem in verdict.problems
                   for feature in UNSUPPORTED.values()), verdict.problems
    else:
        assert verdict.agrees, verdict.problems
