"""What happened on a dealing run, told from its journal: each incident, how it was caught, how it ended.

Read-only over `dealer.journal.store`. An incident is a journal event that is not a plain step: a board
refused before dealing (its label, turned, not empty), a machine fault put right, a report of the machine
that did not match its request, a double feed, a recount that found faults, an interrupted deal, a
reconnection, a restart or a stretch of silence. Each line names the board, the machine, the fault code or machine fault
and its Law, and the outcome of the board (verified on attempt k, or still open). No card is named.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dealer.journal.store import Job, JobState, Journal
from dealer.verify.check import FaultCategory

_FAULT_TITLES = {code.name: f"{code.name} {code.title} ({code.law})" for code in FaultCategory}
_BEFORE_DEALING = {"F8": "board label", "F6": "board turned", "F4": "cards in the board",
                   "F7": "another board's deal in the board"}
"""What a check before dealing found, by the code it named."""


@dataclass(frozen=True)
class Incident:
    """One thing that went wrong on a board and what came of it."""

    board: int
    copy: int
    machine: str
    caught: str
    resolved: str

    def text(self) -> str:
        copy = f" copy {self.copy}" if self.copy > 1 else ""
        return f"board {self.board}{copy} on {self.machine}: {self.caught} -> {self.resolved}"


def incidents(journal: Journal, run_id: int) -> list[Incident]:
    """Every incident of a run, in the order they happened."""
    jobs = {job.id: job for job in journal.jobs(run_id)}
    out = []
    for ev in journal.events(run_id):
        job = jobs.get(ev["job_id"]) if ev["job_id"] is not None else None
        if job is None:
            continue
        caught = _caught(ev["kind"], ev["detail"])
        if caught is not None:
            out.append(Incident(job.board, job.copy, ev["machine"] or "?", caught, _outcome(job, ev["kind"])))
    return out


def _caught(kind: str, detail: dict[str, Any]) -> str | None:
    if kind == "board-refused":
        problem = detail.get("problem") or "wrong board"
        code = str(detail.get("code") or "F8")
        law = FaultCategory[code].law if code in FaultCategory.__members__ else "Law 2"
        return f"{code} {_BEFORE_DEALING.get(code, 'board')} ({problem}; {law}) caught before dealing"
    if kind == "board-given-up":
        return f"the board failed its checks before dealing {detail.get('checks')} times: not dealt"
    if kind == "protocol-fault":
        return f"the machine's report did not match the request ({detail.get('problem')}): nothing verified on it"
    if kind == "double-feed":
        return (f"the pack ran out after {detail.get('cards_dealt')} cards with {detail.get('in_board')} in the "
                "board: a double feed, recounted")
    if kind == "machine-fault-resumed":
        return f"machine fault {detail.get('name')} reported by the machine while dealing"
    if kind == "machine-fault":
        return f"machine fault {detail.get('name')} stopped dealing after {detail.get('cards_dealt')} cards"
    if kind == "recount-fault":
        return "recount found " + ", ".join(_FAULT_TITLES.get(f, f) for f in detail.get("faults", []))
    if kind == "recount-unverified":
        return "recount could not identify every card: " + ", ".join(
            _FAULT_TITLES.get(f, f) for f in detail.get("faults", []))
    if kind == "interrupted-deal":
        return f"dealing interrupted after {detail.get('cards')} cards (the machine lost its job)"
    if kind == "link-resync":
        if detail.get("why") == "reconnected":
            return ("the cable was unplugged during the board; the port was opened again and the board taken up "
                    "where it stood")
        if detail.get("why") == "silent":
            return ("the machine was not heard for a while during the board (a noisy or broken line); the "
                    "connection was started again and the board taken up where it stood")
        return ("the machine restarted during the board; the controller connected to it again and took the board "
                "up where it stood")
    return None


def _outcome(job: Job, kind: str) -> str:
    if job.state is JobState.VERIFIED:
        redealt = " after a redeal of the same deal" if job.attempt > 1 else ""
        fixed = {"board-refused": "the right board, checked straight and empty, was dealt; ",
                 "machine-fault-resumed": "the operator put it right and dealing went on; ",
                 "recount-unverified": "recounted again; "}.get(kind, "")
        return f"{fixed}verified{redealt} (attempt {job.attempt})"
    return f"still {job.state.value}: the director must see to it"
