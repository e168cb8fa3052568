"""Helpers of the congress tests: plan texts, and the cross-check of the journal against the simulators'
ledgers (what physically happened to every board)."""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from dealer.core.cards import pack
from dealer.core.dealset import DealSet
from dealer.journal import events
from dealer.journal.store import Job, JobState, Journal
from dealer.plan import Plan
from firmware_protocol.labels import BoardLabel
from hil.physical import Ledger, PhysicalBoard
from tests.support.deals import hands_of


@dataclass(frozen=True)
class SessionText:
    """One session of a test plan: its name, boards, and per section (name, board sets)."""

    name: str
    boards: str
    sections: tuple[tuple[str, tuple[str, ...]], ...]
    replay_of: str | None = None


def plan_text(machines: Sequence[tuple[str, str]], sessions: Sequence[SessionText], *,
              order: str = "set", journal: str = "congress.journal") -> str:
    """A congress plan (TOML) with fresh bigdeal sessions, or replays of earlier ones."""
    lines = ["[event]", 'name = "Test Congress"', f'journal = "{journal}"', f'order = "{order}"', ""]
    for name, port in machines:
        lines += ["[[machines]]", f'name = "{name}"', f'port = "{port}"', ""]
    for s in sessions:
        lines += ["[[sessions]]", f'name = "{s.name}"', f'boards = "{s.boards}"']
        if s.replay_of:
            lines += [f'source = {{ deals_of = "{s.replay_of}" }}', "replay = true"]
        lines.append("")
        for section, sets in s.sections:
            quoted = ", ".join(f'"{x}"' for x in sets)
            lines += ["[[sessions.sections]]", f'name = "{section}"', f"sets = [{quoted}]", ""]
    return "\n".join(lines)


def label_of(job: Job) -> str:
    return BoardLabel.for_board(job.set_name, job.board).payload()


@dataclass
class JobHistory:
    """What the journal says happened to one job."""

    job: Job
    session: str
    dealings: int  # steps into DEALING
    redeals: int
    faults: list[str]  # F-codes of its recount faults
    machine_faults: list[str]
    layouts: list[str]  # layout hashes of its VERIFIED step


def histories(journal_path: Path) -> list[JobHistory]:
    """Every job of every run of the journal, with its history; the journal must be consistent."""
    out = []
    with Journal.open(journal_path) as journal:
        for run in journal.runs():
            assert journal.check_consistency(run.id) == [], run.name
            for job in journal.jobs(run.id):
                seen = [e.event for e in journal.events(run.id, job.id)]
                out.append(JobHistory(
                    job, run.name,
                    dealings=sum(isinstance(e, events.Dealing) for e in seen),
                    redeals=sum(isinstance(e, events.Redeal) for e in seen),
                    faults=[f for e in seen if isinstance(e, events.RecountFault) for f in e.faults_found],
                    machine_faults=[e.name for e in seen
                                    if isinstance(e, events.MachineFault | events.MachineFaultResumed)],
                    layouts=[e.layout or "" for e in seen if isinstance(e, events.Verified)]))
    return out


def check_against_ledgers(plan: Plan, journal_path: Path, ledgers: Sequence[Ledger],
                          racks: Sequence[Sequence[PhysicalBoard]]) -> list[JobHistory]:
    """Every copy verified, and the journal agrees with what physically happened:

    - each physical board (label) was dealt into exactly as often as the journal started dealing its job,
      which is once plus once for each redeal a fault called for;
    - every dealing into it was of its session's deal of that board (a redeal is never a new deal);
    - the one board of that label holding cards holds exactly that deal, and the verified layout is the
      deal's hash (the same for every copy of the board).
    """
    found = histories(journal_path)
    boards = [b for rack in racks for b in rack if b.card_count]
    for h in found:
        deals: DealSet = plan.deal_set(h.session)
        deal = deals.deals[deals.index_of(h.job.board)]
        label = label_of(h.job)
        assert h.job.state is JobState.VERIFIED, f"{h.session} {label}: {h.job.state}"
        records = [r for ledger in ledgers for r in ledger.for_label(label)]
        assert len(records) == h.dealings == 1 + h.redeals, (h.session, label, len(records), h.dealings, h.redeals)
        assert all(r.deal == bytes(pack(deal)) for r in records), f"{label}: dealt another deal"
        held = [b for b in boards if b.label.decode() == label]
        assert len(held) == 1 and [sorted(p) for p in held[0].hands()] == hands_of(deal), label
        assert h.layouts == [h.job.deal_hash], label
    return found


def journal_counts(journal_path: Path) -> Counter[tuple[str, str | None]]:
    """Jobs of every run by (state, machine), read beside the journal's writer (as a second process
    would); empty while the journal is still being created."""
    db = sqlite3.connect(f"file:{journal_path}?mode=ro", uri=True, timeout=5)
    try:
        rows = db.execute("SELECT state, machine, COUNT(*) FROM jobs GROUP BY state, machine").fetchall()
    except sqlite3.OperationalError:  # no tables yet
        rows = []
    finally:
        db.close()
    return Counter({(state, machine): n for state, machine, n in rows})


def in_state(counts: Counter[tuple[str, str | None]], state: str, machine: str | None = None) -> int:
    """How many jobs are in `state` (on `machine`, if named)."""
    return sum(n for (s, m), n in counts.items() if s == state and (machine is None or m == machine))
