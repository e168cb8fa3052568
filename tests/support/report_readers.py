"""The figures of a run report read back from each of its forms (text, CSV, JSON), written by `dealer report`,
so tests can hold the three to the same numbers. Each reader parses its form on its own: none of them calls
the code that wrote the report."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class ReportFigures:
    """What every form of a report gives: per session (jobs, verified, dealings), per machine (verified,
    dealings, recount faults, machine faults, interruptions), and faults and operator actions per machine, summed over
    the sessions (the text gives them so)."""

    sessions: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    machines: dict[str, tuple[int, int, int, int, int]] = field(default_factory=dict)
    faults: dict[tuple[str, str], int] = field(default_factory=dict)
    actions: dict[tuple[str, str], int] = field(default_factory=dict)
    met: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Per machine, the machines that answered on it (serial, and " (simulated)" for a simulated one), in order."""


def _add(counts: dict[tuple[str, str], int], key: tuple[str, str], n: int) -> None:
    counts[key] = counts.get(key, 0) + n


def from_text(text: str) -> ReportFigures:
    """The readable summary, section by section."""
    out = ReportFigures()
    section = ""
    for line in text.splitlines():
        if not line.startswith("  "):
            section = line
            continue
        body = line.strip()
        if section == "Sessions":
            name = body.split(" (run ")[0]
            numbers = body.split("): ", 1)[1].split(";")[0]
            jobs, verified, dealings = (int(part.strip().split(" ")[0]) for part in numbers.split(","))
            out.sessions[name] = (jobs, verified, dealings)
        elif section == "Machines":
            name, rest = body.split(": ", 1)
            name, _, met = name.partition(" (machine")
            if met:  # 'machine S1' or 'machines S1 (simulated), S2 and S3, one after the other'
                listed = met.removeprefix("s").strip().removesuffix(")").removesuffix(", one after the other")
                out.met[name] = tuple(re.split(r", | and ", listed))
            parts = [p.strip() for p in rest.replace(";", ",").split(",")]
            verified, dealings = int(parts[0].split()[0]), int(parts[1].split()[0])
            recount, faults, interruptions = (int(p.split()[0]) for p in parts[-3:])
            out.machines[name] = (verified, dealings, recount, faults, interruptions)
        elif section in ("Faults by type and Law", "Operator actions") and body != "none":
            label, _, rest = body.rpartition(": ")
            total, machines = rest.split(" (", 1)
            target = out.faults if section.startswith("Faults") else out.actions
            for part in machines.rstrip(")").split(", "):
                machine, n = part.rsplit(" ", 1)
                _add(target, (label, machine), int(n))
            assert int(total) == sum(n for (lab, _), n in target.items() if lab == label), line
    return out


def from_csv(text: str) -> ReportFigures:
    """The CSV rows: table, session, machine, item, law, value."""
    out = ReportFigures()
    sessions: dict[str, dict[str, int]] = {}
    machines: dict[str, dict[str, int]] = {}
    for row in csv.DictReader(io.StringIO(text)):
        if row["table"] == "session" and row["item"] in ("boards to deal", "verified", "dealings started"):
            sessions.setdefault(row["session"], {})[row["item"]] = int(row["value"])
        elif row["table"] == "machine" and row["item"] in ("boards verified", "dealings started", "recount faults",
                                                           "machine faults", "interruptions"):
            machines.setdefault(row["machine"], {})[row["item"]] = int(row["value"])
        elif row["table"] == "machine" and row["item"] == "machine that answered":
            out.met[row["machine"]] = (*out.met.get(row["machine"], ()), row["value"])
        elif row["table"] == "fault":
            label = f"{row['item']} ({row['law']})" if row["law"] else row["item"]
            _add(out.faults, (label, row["machine"]), int(row["value"]))
        elif row["table"] == "operator action":
            _add(out.actions, (row["item"], row["machine"]), int(row["value"]))
    out.sessions = {name: (s["boards to deal"], s["verified"], s["dealings started"]) for name, s in sessions.items()}
    out.machines = {name: (m["boards verified"], m["dealings started"], m["recount faults"], m["machine faults"],
                           m["interruptions"]) for name, m in machines.items()}
    return out


def from_json(text: str) -> ReportFigures:
    """The JSON body: sessions, machines, faults, operator_actions."""
    body = json.loads(text)
    out = ReportFigures()
    out.sessions = {s["name"]: (s["jobs"], s["verified"], s["dealings"]) for s in body["sessions"]}
    out.machines = {name: (m["verified"], m["dealings"], m["recount_faults"], m["machine_faults"],
                           m["interruptions"]) for name, m in body["machines"].items()}
    out.met = {name: tuple(m["met"]) for name, m in body["machines"].items() if m["met"]}
    for f in body["faults"]:
        _add(out.faults, (f"{f['type']} ({f['law']})" if f["law"] else f["type"], f["machine"]), f["count"])
    for a in body["operator_actions"]:
        _add(out.actions, (a["action"], a["machine"]), a["count"])
    return out


def reports_agree(folder: Path, journal: str,
                  dealer: Callable[..., subprocess.CompletedProcess[str]]) -> ReportFigures:
    """`dealer report` of `journal` on screen, as CSV and as JSON (each run by `dealer`, given the command's
    arguments and ``cwd``): the same figures; returns them."""
    text = dealer("report", journal, cwd=folder)
    assert text.returncode == 0, text.stderr
    for kind in ("csv", "json"):
        wrote = dealer("report", journal, "-o", f"figures.{kind}", cwd=folder)
        assert wrote.returncode == 0 and wrote.stdout.startswith("wrote the report of"), wrote.stderr
    figures = from_text(text.stdout)
    assert from_csv((folder / "figures.csv").read_text()) == figures
    assert from_json((folder / "figures.json").read_text()) == figures
    return figures
