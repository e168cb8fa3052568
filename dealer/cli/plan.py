"""`dealer plan PLAN.toml [--generate]`: check a congress plan and show what it will deal.

Shows per session the boards, the kind of deal source, the sections, copies, board sets and job count,
then the machines and the totals; never a seed or a deal. `--generate` writes the deal files of fresh
sessions that do not exist yet (never over an existing one). A bad plan exits non-zero with one line
naming the file, the line and the field.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from dealer.core.boards import format_board_range
from dealer.plan import DealingOrder, Plan, Session

_ORDER_TEXT = {DealingOrder.SET: "set by set", DealingOrder.BOARD: "all copies of a board, board by board"}


def register(sub: Any) -> None:
    p = sub.add_parser("plan", help="check a congress plan file and show its sessions and jobs",
                       description="Check a congress plan (TOML) and show its sessions, sections, board sets, "
                                   "jobs and machines. Deals and seeds are never shown.")
    p.add_argument("plan", metavar="PLAN.toml", help="the plan file")
    p.add_argument("--generate", action="store_true",
                   help="write the deal files of fresh sessions that do not exist yet (never replaces one)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    plan = Plan.load(args.plan)
    if args.generate:
        for path in plan.generate():
            print(f"generated {_shown(path)}", file=sys.stderr)
    notes = plan.check_reuse()
    print("\n".join(describe(plan)))
    for note in notes:
        print(f"note: {note.text()}")
    return 0


def describe(plan: Plan) -> list[str]:
    """The plan as lines of text for the director: no deal and no seed in them."""
    event = plan.event
    out = [f"plan {plan.path}: {event.name}",
           f"  deal folder {_shown(event.deal_folder)}, journal {_shown(event.journal)}, "
           f"dealing order {_ORDER_TEXT[event.order]}"]
    for session in plan.sessions:
        out.extend(_session_lines(plan, session))
    sets = plan.board_sets()
    out.append(f"board sets ({len(sets)}): "
               + ", ".join(f"{name} {format_board_range(list(boards))}" for name, boards in sets.items()))
    if plan.machines:
        out.append(f"machines ({len(plan.machines)}): "
                   + "; ".join(f"{m.name} {m.url}" for m in plan.machines))
    else:
        out.append("machines: none (a dealing run needs at least one)")
    pending = sum(plan.needs_generation(s) and plan.deal_file(s) is not None for s in plan.sessions)
    out.append(f"total: {len(plan.sessions)} sessions, {plan.board_count} boards, {plan.job_count} jobs, "
               f"{len(plan.machines)} machines"
               + (f"; {pending} deal files to generate (--generate)" if pending else ""))
    return out


def _session_lines(plan: Plan, session: Session) -> list[str]:
    source = session.source.describe()
    path = plan.deal_file(session)
    if path is not None:
        state = "to be generated" if plan.needs_generation(session) else "exists"
        source += f", {_shown(path)} ({state})"
    elif plan.needs_generation(session):
        source += " (to be generated)"
    head = (f"session {session.number} {session.name}: boards {session.board_text} ({len(session.boards)}), "
            f"{source}, {session.job_count} jobs")
    if session.replay:
        head += ", replay"
    if session.order is not plan.event.order:
        head += f", dealt {_ORDER_TEXT[session.order]}"
    lines = [head]
    for section in session.sections:
        copies = f"{section.copies} cop{'y' if section.copies == 1 else 'ies'}"
        line = f"  section {section.name}: {copies}, sets {' '.join(section.sets)}"
        if section.boards is not None:
            line += f", boards {format_board_range(list(section.boards))}"
        lines.append(line)
    return lines


def _shown(path: Path) -> str:
    """A path as short as it can be said from the current folder."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return rel if not rel.startswith("../../") else str(path)
