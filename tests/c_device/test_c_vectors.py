"""Every golden vector through the C library: each frame decoded field by field and encoded again byte for
byte, the CRC and COBS cases, the packed deals, and the frame decoder's events on every stream.

The C side is a small driver (`firmware_protocol/c/tests/vectors_driver.c`) that prints what the library
decoded by the field names of PROTOCOL.md 7.2, read from the named C struct members; the expected values
are the vectors' own.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.c_build import CBuilds, run_program, sanitizer_report
from tests.support.golden_vectors import load


def ask(driver: Path, lines: list[str]) -> list[str]:
    """Run the driver on `lines`; its answer lines."""
    run = run_program(driver, "".join(line + "\n" for line in lines))
    assert run.returncode == 0 and not sanitizer_report(run.stderr), run.stderr
    return run.stdout.splitlines()


def normalised(fields: dict[str, Any]) -> dict[str, Any]:
    """Hex strings as bytes (the vectors write some with spaces), everything else as it is."""
    return {k: bytes.fromhex(v) if isinstance(v, str) else v for k, v in fields.items()}


def frame_vectors() -> list[tuple[str, dict[str, Any]]]:
    """(file, vector) of every message example with its fields."""
    out = [("messages.json", v) for v in load("messages.json")["messages"]]
    out += [("handworked.json", v) for v in load("handworked.json")["messages"]]
    return out


def test_every_message_vector_decodes_to_its_fields_and_encodes_to_its_frame(c_builds: CBuilds) -> None:
    vectors = frame_vectors()
    answers = ask(c_builds("vectors_driver"), [f"message {v['frame']}" for _, v in vectors])
    assert len(answers) == len(vectors)
    names = set()
    for (file, vector), line in zip(vectors, answers, strict=True):
        got = json.loads(line)
        where = f"{file} {vector['name']} {vector['frame']}"
        assert "error" not in got, f"{where}: {got}"
        assert (got["type"], got["seq"]) == (vector["type"], vector["seq"]), where
        assert normalised(got["fields"]) == normalised(vector["fields"]), where
        assert bytes.fromhex(got["frame"]) == bytes.fromhex(vector["frame"]), where
        names.add(vector["name"])
    assert len(names) == 23  # every message of section 7.2


def test_every_frame_of_the_board_exchange_decodes_and_encodes_again(c_builds: CBuilds) -> None:
    frames = load("exchange.json")["frames"]
    answers = ask(c_builds("vectors_driver"), [f"message {f['frame']}" for f in frames])
    for frame, line in zip(frames, answers, strict=True):
        got = json.loads(line)
        assert "error" not in got, f"{frame['name']}: {got}"
        assert got["seq"] == frame["seq"] and normalised(got["fields"]) == normalised(frame["fields"])
        assert got["frame"] == frame["frame"]


def test_crc_check_values(c_builds: CBuilds) -> None:
    crc = load("framing.json")["crc"]
    cases = [{"data": "313233343536373839", "crc": crc["check"]}, *crc["cases"]]
    answers = ask(c_builds("vectors_driver"), [f"crc {c['data']}" for c in cases])
    assert answers == [c["crc"] for c in cases]


def test_cobs_cases_both_ways(c_builds: CBuilds) -> None:
    cases = load("framing.json")["cobs"]
    lines = [f"cobs_encode {c['decoded']}" for c in cases] + [f"cobs_decode {c['encoded']}" for c in cases]
    answers = ask(c_builds("vectors_driver"), lines)
    assert answers == [c["encoded"] for c in cases] + [c["decoded"] for c in cases]


def test_packed_deals_give_their_hash_and_seats(c_builds: CBuilds) -> None:
    deals = load("messages.json")["deals"]
    answers = ask(c_builds("vectors_driver"), [f"deal {d['packed']}" for d in deals])
    assert [json.loads(a) for a in answers] == [{"hash": d["hash"], "seats": d["seats"]} for d in deals]


@pytest.mark.parametrize("vector", load("framing.json")["streams"], ids=lambda v: v["name"])
def test_each_stream_gives_exactly_its_events(c_builds: CBuilds, vector: dict[str, Any]) -> None:
    answers = ask(c_builds("vectors_driver"), [f"stream {vector['stream']}"])
    assert answers[-1] == "end"
    assert [json.loads(a) for a in answers[:-1]] == vector["events"]


def test_a_frame_that_is_not_exactly_one_intact_frame_is_not_taken_for_one(c_builds: CBuilds) -> None:
    ack = load("messages.json")["messages"][0]["frame"]
    lines = [f"message {ack}{ack}", f"message {ack[:-4]}00", f"message {ack[:-2]}"]
    assert [json.loads(a) for a in ask(c_builds("vectors_driver"), lines)] == [
        {"error": "not exactly one intact frame"}, {"error": "not exactly one intact frame"}, {"error": "no frame"}]



def test_the_worked_turned_board_of_the_document_through_the_c_library(c_builds: CBuilds) -> None:
    """PROTOCOL.md 12.1, step 1: the frame written there by hand decodes to OK, turns 1, the label, and
    encodes back to the same bytes."""
    spec = (Path(__file__).resolve().parents[2] / "firmware_protocol" / "PROTOCOL.md").read_text(encoding="utf-8")
    example = spec[spec.index("**Worked example: board 17 of set RED"):]
    frame = re.search(r"the frame on the wire is\s+`([0-9A-F ]+)`", example)
    assert frame is not None
    (line,) = ask(c_builds("vectors_driver"), [f"message {frame.group(1).replace(' ', '')}"])
    got = json.loads(line)
    assert (got["type"], got["seq"]) == (0x62, 1)
    assert normalised(got["fields"]) == {"result": 0, "turns": 1, "label": b"RED:17:N0:8"}
    assert bytes.fromhex(got["frame"]) == bytes.fromhex(frame.group(1))
