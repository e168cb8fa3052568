"""`dealer demo`: a whole session dealt on simulated machines, with realistic faults injected, then told:
how each fault was caught and resolved, and what the journal and the simulators' ledgers say happened.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import textwrap
from collections import Counter
from pathlib import Path
from typing import IO, Any

from dealer import engines, formats
from dealer.core.dealset import DealSet
from dealer.core.errors import UsageError
from dealer.dealing import sim_ports
from dealer.dealing.context import RunLimits
from dealer.dealing.progress import ProgressView
from dealer.dealing.run import RunOptions, RunResult, deal_session
from dealer.journal.history import PRACTICE_FILE, DealHistory, practice_note
from dealer.journal.lock import lock_path
from dealer.journal.narrative import incidents
from dealer.journal.opening import open_journal, read_journal
from dealer.language import N_, _, decimal, n_

# Faults per machine (hil fault plans): `board` is the k-th dealing on that machine, `insertion` the
# operator's n-th insertion of a board.
DEMO_FAULTS: list[list[dict[str, Any]]] = [
    [{"kind": "jam", "board": 2, "card": 20},
     {"kind": "card_falls", "board": 4, "card": 33},
     {"kind": "wrong_board", "insertion": 6}],
    [{"kind": "misfeed", "board": 2, "card": 11},
     {"kind": "unplug", "board": 4, "card": 25, "seconds": 0.5},
     {"kind": "unreadable_card", "board": 5, "card": 17, "when": "recount"},
     {"kind": "power_loss", "board": 6, "card": 30}],
]
FAULT_STORY = [
    N_("a card jams on its 2nd board; a card falls out of the path on its 4th; the operator inserts a "
       "wrong board at the 6th insertion"),
    N_("a card goes into the wrong pocket unnoticed on its 2nd board; the USB cable is pulled during its "
       "4th; a card is misread at the recount of its 5th; the power goes during its 6th"),
]


def run_demo(*, boards: int = 16, machines: int = 2, speed: float = 25.0, folder: Path | None = None,
             show_cards: bool = False, out: IO[str] | None = None, view: ProgressView | None = None) -> RunResult:
    """Run the demonstration; returns the run's result (complete when every board was verified).

    It generates a session (Big Deal engine, fresh seed from the OS, not kept), starts simulated machines
    in this process (`sim://` ports, each with its own fault plan), deals every board with label checks
    and recounts while showing live progress, then tells how each fault was caught and resolved, checks
    the journal and the simulators' ledgers (what physically happened), and prints the summary.

    `folder`: where to work and what to keep; None works in a temporary folder removed at the end (Ctrl-C
    included). The folder is named on the first line.
    `out`: where the story goes (standard output by default); `view`: how the dealing's progress is shown
    (default: plain lines into the story)."""
    out = out or sys.stdout
    if not 1 <= machines <= len(DEMO_FAULTS) * 4:
        raise UsageError(f"--machines {machines}: the demo runs 1 to {len(DEMO_FAULTS) * 4} machines")
    if folder is not None and folder.exists() and not folder.is_dir():
        raise UsageError(f"--keep {folder}: is a file, not a folder")
    say = _printer(out)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        say(_("dealer demo: working in {folder} (kept)").format(folder=folder))
        return _run(folder, boards, machines, speed, show_cards, out, say, view)
    work = Path(tempfile.mkdtemp(prefix="dealer-demo-"))
    say(_("dealer demo: working in {folder} (removed at the end; --keep DIR keeps the files)").format(folder=work))
    try:
        return _run(work, boards, machines, speed, show_cards, out, say, view)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run(work: Path, boards: int, machines: int, speed: float, show_cards: bool, out: IO[str],
         say: Any, view: ProgressView | None) -> RunResult:
    say(_("A whole session on simulated dealing machines, with faults injected"))
    deals = _session(work, boards, say)
    ports = _machines(work, machines, speed, say)
    say(_("3. Dealing, every board checked by its label before dealing and recounted after:"))
    history = work / PRACTICE_FILE  # always practice: a history named for the club's sessions is not the demo's
    DealHistory.open(history, create=True).close()
    say(f"   {practice_note(history)}")
    try:
        options = RunOptions(ports=ports, machine_names=[f"m{k + 1}" for k in range(len(ports))],
                             journal=work / "session.journal", report=work / "report.json", out=out,
                             show_cards=show_cards, limits=RunLimits(board_timeout=120, deal_timeout=120), view=view,
                             title=n_("dealer demo: {boards} boards on {machines} simulated machine",
                                      "dealer demo: {boards} boards on {machines} simulated machines",
                                      machines).format(boards=boards, machines=machines),
                             history=history, practice=True)
        result = deal_session(deals, str(work / "session.pbn"), options, name="demo")
        say("")
        say(_("4. Summary"))
        say("  " + result.summary.replace("\n", "\n  "))
        _tell_incidents(work / "session.journal", result.run_id, say)
        _checks(work, deals, result, ports, say)
        with open_journal(work / "session.journal", create=False, command="dealer demo") as journal:
            journal.settle()  # a kept journal is one file: no -wal or -shm beside it
        lock_path(work / "session.journal").unlink(missing_ok=True)  # the demo's run is over, its folder its own
        say("   " + _("files: {files}").format(files=", ".join(sorted(p.name for p in work.iterdir()))))
    finally:
        sim_ports.stop_all()
    return result


def _printer(out: IO[str]) -> Any:
    """The story's writer: on a terminal, each line wrapped between words to its width, its indent kept (a
    terminal cuts a long line anywhere, a word included); elsewhere as it is."""
    width = shutil.get_terminal_size().columns if out.isatty() else 0

    def say(text: str) -> None:
        if width > 20:
            lines = []
            for line in text.split("\n"):
                body = line.lstrip(" ")
                indent = " " * (len(line) - len(body) + (2 if body.startswith("- ") else 0))
                lines += textwrap.wrap(line, width - 1, subsequent_indent=indent, break_on_hyphens=False) or [""]
            text = "\n".join(lines)
        out.write(text + "\n")
        out.flush()
    return say


def _session(work: Path, boards: int, say: Any) -> DealSet:
    engine = engines.make_engine("bigdeal", engines.fresh_seed("bigdeal"), "dealer demo")
    deals = DealSet.from_deals(engine.deals(boards), event="dealer demo")
    formats.write_file(work / "session.pbn", deals, force=True)
    say(n_("1. Deals: {boards} board generated with the Big Deal engine (fresh seed from the OS, not kept) -> "
           "session.pbn", "1. Deals: {boards} boards generated with the Big Deal engine (fresh seed from the OS, not "
           "kept) -> session.pbn", boards).format(boards=boards))
    return deals


def _machines(work: Path, count: int, speed: float, say: Any) -> list[str]:
    say(n_("2. Machines: {count} simulated dealing machine (speed x{speed}), each with its own faults:",
           "2. Machines: {count} simulated dealing machines (speed x{speed}), each with its own faults:",
           count).format(count=count, speed=decimal(speed, None)))
    ports = []
    for k in range(count):
        plan = work / f"faults-m{k + 1}.json"
        plan.write_text(json.dumps({"faults": DEMO_FAULTS[k % len(DEMO_FAULTS)]}, indent=1), encoding="utf-8")
        ports.append(f"sim://?speed={speed:g}&seed={k + 1}&faults={plan}")
        say("   " + _("machine {machine}").format(machine=k + 1) + ": " + _(FAULT_STORY[k % len(FAULT_STORY)]))
    return ports


def _tell_incidents(journal_path: Path, run_id: int, say: Any) -> None:
    say("")
    say(_("5. How each fault was caught and resolved"))
    with read_journal(journal_path) as journal:
        found = incidents(journal, run_id)
    for incident in found:
        say(f"   - {incident.text()}")
    if not found:
        say("   " + _("(no fault fired)"))


def _checks(work: Path, deals: DealSet, result: RunResult, ports: list[str], say: Any) -> None:
    say("")
    say(_("6. Checks"))
    with read_journal(work / "session.journal") as journal:
        problems = journal.check_consistency(result.run_id)
        given = journal.dealing_boards(result.run_id)
    say("   " + _("journal: {state}").format(state=_("consistent") if not problems else "; ".join(problems)))
    dealt = _ledger_dealings(deals, ports)
    counts = Counter(board for board, _ in dealt)
    jobs = Counter(job for _, job in dealt)
    extra = len(dealt) - len(counts)
    once = (set(counts) == {int(b) for b in deals.boards} and all(n == 1 for n in jobs.values())
            and all(given.get(job) == board for board, job in dealt))
    say("   " + _("simulators' ledgers: {boards} boards dealt, {extra} extra dealings, each a redeal under a job "
                  "number of its own the journal gave that board: {verdict}").format(
        boards=len(counts), extra=extra,
        verdict=_("every board dealt exactly once otherwise") if once else _("MISMATCH")))


def _ledger_dealings(deals: DealSet, ports: list[str]) -> list[tuple[int, int]]:
    """(board number, job number) of every dealing started into a board of the session, over the demo's
    simulators (`ports`), never another this process runs."""
    boards = {int(b) for b in deals.boards}
    running = sim_ports.simulators()
    found = []
    for sim in (running[port] for port in ports if port in running):
        if sim.device is None:
            continue
        for record in sim.device.ledger.records:
            parts = record.label.split(":")
            if len(parts) > 1 and parts[1].isdigit() and int(parts[1]) in boards:
                found.append((int(parts[1]), record.job))
    return found
