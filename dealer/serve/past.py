"""The faults of runs no longer dealing, read back from the journal: what the room shows after the
console was started again (the live list, with the stations' own words, lives only as long as its run).

The journal keeps each fault's code, not its words: a recount's faults by their F-code (with the Law of
the fault table), a machine's stop by its name, a board refused by its label's F-code. No card is named.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from dealer.journal.store import Journal
from dealer.verify import FaultCategory


def _law(code: str) -> tuple[str, str]:
    """(title, Law) of an F-code; the code itself and no Law if it is not one."""
    try:
        category = FaultCategory(code)
    except ValueError:
        return code, ""
    return f"{code} {category.title}", category.law


def journal_faults(path: Path, run_ids: Sequence[int] | None = None) -> list[dict[str, Any]]:
    """The faults of the runs (default: every run of the journal) in the order they happened."""
    found: list[dict[str, Any]] = []
    with Journal.open_read_only(path) as journal:
        runs = {r.id: r for r in journal.runs()}
        for run_id in run_ids if run_ids is not None else list(runs):
            jobs = {job.id: job for job in journal.jobs(run_id)}
            for event in journal.events(run_id):
                job = jobs.get(event["job_id"]) if event["job_id"] is not None else None
                where = None if job is None else {"session": runs[run_id].name, "set": job.set_name or "A",
                                                  "board": job.board, "copy": job.copy, "attempt": job.attempt}
                for text, law, action in _faults_of(event["kind"], event["detail"]):
                    found.append({"machine": event["machine"] or "", "job": where, "text": text, "law": law,
                                  "action": action, "t": datetime.fromisoformat(event["at"]).timestamp()})
    found.sort(key=lambda f: f["t"])
    for n, fault in enumerate(found, start=1):
        fault["n"] = n
    return found


def _faults_of(kind: str, detail: dict[str, Any]) -> list[tuple[str, str, str]]:
    if kind in ("recount-fault", "recount-unverified"):
        action = "redeal the same deal" if kind == "recount-fault" else "recounted"
        return [(f"{title} (recount)", law, action) for title, law in map(_law, detail.get("faults", []))]
    if kind == "machine-fault-resumed":
        return [(f"machine fault {detail.get('name', '?')}", "", "put right, going on")]
    if kind == "machine-fault":
        return [(f"machine fault {detail.get('name', '?')}", "", "the board will be redealt")]
    if kind == "board-refused":
        title, law = _law(str(detail.get("code", "F8")))
        return [(f"{title} (board refused)", law, "board taken out; the right board asked for")]
    return []
