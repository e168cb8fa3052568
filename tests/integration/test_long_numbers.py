"""A number of 5,000 digits (past the 4,300 Python's int() takes) in a plan, a JSON deal file, a ``sim://``
option or a request to the console: one line naming it, exit 2 or 3 as the README's table says (400 in the
console), never a traceback or a 500. Every number from outside is bounded in digits before it is parsed
(`dealer.core.digits`)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from tests.support.processes import run
from tests.support.serve_room import console_client, make_session

LONG = "9" * 5000


def dealer(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, "-m", "dealer", *args], cwd=cwd)


def one_line(code: int, err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert "5000 digits" in lines[0] and LONG not in lines[0], lines[0]
    return lines[0]


def test_a_plan_with_a_5000_digit_number_is_refused_in_one_line(tmp_path: Path) -> None:
    plan = tmp_path / "p.toml"
    plan.write_text(f'[event]\nname = "x"\n[[machines]]\nname = "M1"\nport = "sim://"\n[[sessions]]\nname = "S"\n'
                    f'boards = "1-4"\nsections = [{{name = "A", copies = {LONG}}}]\n', encoding="utf-8")
    done = dealer("plan", str(plan), cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    one_line(done.returncode, done.stderr)


def test_a_json_deal_file_with_a_5000_digit_board_number_is_refused_in_one_line(tmp_path: Path) -> None:
    assert dealer("generate", "--boards", "1-2", "-o", "s.json", cwd=tmp_path).returncode == 0
    text = (tmp_path / "s.json").read_text(encoding="utf-8").replace('"board": 1,', f'"board": {LONG},')
    (tmp_path / "big.json").write_text(text, encoding="utf-8")
    done = dealer("convert", "big.json", "out.pbn", cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    one_line(done.returncode, done.stderr)


def test_a_sim_option_of_5000_digits_is_a_usage_error(tmp_path: Path) -> None:
    assert dealer("generate", "--boards", "1-2", "-o", "s.pbn", cwd=tmp_path).returncode == 0
    done = dealer("deal", "s.pbn", "--port", f"sim://?seed={LONG}", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    one_line(done.returncode, done.stderr)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with console_client(tmp_path / "work") as test_client:
        yield test_client


def test_the_console_answers_5000_digit_numbers_with_400(client: TestClient, tmp_path: Path) -> None:
    session = make_session(tmp_path / "work")
    body = '{"source": "' + session.name + '", "machines": [], "copies": ' + LONG + "}"
    said = client.post("/api/check", content=body, headers={"Content-Type": "application/json"})
    assert said.status_code == 400 and "5000 digits" in json.dumps(said.json()), said.text
    big = json.dumps({"format": "dealer-deals", "version": 1, "event": "", "boards": []})
    big = big.replace('"boards": []', '"boards": [{"board": ' + LONG + ', "dealer": "N", "vulnerable": "None", '
                      '"deal": "N:T92.A5.K9762.864 KJ73.Q7432.Q8.J3 AQ654.KJT9.A.A75 8.86.JT543.KQT92"}]')
    (tmp_path / "work" / "big.json").write_text(big, encoding="utf-8")
    checked = client.post("/api/check", json={"source": "big.json", "machines": []})
    assert checked.status_code < 500 and "big.json, line 1: cannot be read" in json.dumps(checked.json()), checked.text


@pytest.mark.parametrize("speed", ["inf", "nan", "-1"])
def test_the_console_refuses_a_speed_no_machine_runs_at_before_it_starts(tmp_path: Path, speed: str) -> None:
    done = dealer("serve", "--sim-speed", speed, "--workdir", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "--sim-speed" in done.stderr and "finite speed above 0" in done.stderr, done.stderr
