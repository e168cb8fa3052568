"""A dealing run seen in the terms of a scenario's expectation (`hil.scenarios.Expect`), from its journal.

`journal_view` reads what the journal recorded: per board the dealings started and the final state; the
machine's faults (PROTOCOL for a report that did not match its request); the fault-table codes named, at
the recount or before dealing (a board refused); the refusals. `expectation_view` adds the machines'
restarts and reconnections and gives the mapping `Expect.mismatches` takes.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from dealer.dealing.machine import Machine
from dealer.journal import events
from dealer.journal.store import JobState, Journal


def journal_view(journal: Path, run_id: int) -> dict[str, Any]:
    """What the journal recorded: per board the dealings started, faults by kind, refusals."""
    seen: dict[str, Any] = {"machine_faults": set(), "verifier_faults": set(), "refused_labels": 0,
                            "dealings": 0, "starts": {}, "states": {}}
    with Journal.open(journal) as j:
        assert j.check_consistency(run_id) == []
        for job in j.jobs(run_id):
            seen["states"][job.board] = job.state
            starts = 0
            for ev in j.events(run_id, job.id):
                starts += ev.state is JobState.DEALING
                match ev.event:
                    case events.MachineFault(name=name) | events.MachineFaultResumed(name=name):
                        seen["machine_faults"].add(name)
                    case events.DoubleFeed():
                        seen["machine_faults"].add("EMPTY_HOPPER")
                    case events.ProtocolFault():
                        seen["machine_faults"].add("PROTOCOL")
                    case events.RecountFault(faults_found=codes) | events.RecountUnverified(faults_found=codes):
                        seen["verifier_faults"].update(codes)
                    case events.BoardRefused() if ev.event.emptied:
                        pass  # a board emptied before dealing: the operator's step, no fault by Law
                    case events.BoardRefused(code=code):
                        seen["refused_labels"] += 1
                        seen["verifier_faults"].add(code)
            seen["starts"][job.board] = starts
            seen["dealings"] += starts
    return seen


def expectation_view(seen: dict[str, Any], complete: bool, machines: Iterable[Machine]) -> tuple[dict[str, Any], int]:
    """(the summary `Expect.mismatches` takes, the number of boards dealt at least once)."""
    machines = list(machines)
    summary = {"verified": complete, "machine_faults": seen["machine_faults"],
               "verifier_faults": seen["verifier_faults"], "refused_labels": seen["refused_labels"],
               "dealings": seen["dealings"], "restarts": sum(m.restarts for m in machines),
               "reconnects": sum(m.reconnects for m in machines)}
    return summary, sum(1 for n in seen["starts"].values() if n)
