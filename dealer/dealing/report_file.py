"""The report file of a run just dealt: the journal's report (`dealer.journal.run_report`) with what only the
live run knows (its fault details, which name cards, written only when asked with ``--show-cards``).

May import: `dealer.core`, `dealer.journal`, `dealer.dealing.progress`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dealer.core.dealset import DealSet
from dealer.core.outfile import PUBLIC_MODE, SECRET_MODE, write_text
from dealer.dealing.progress import RunProgress
from dealer.journal.run_report import add_deal_statistics, build, summary_text, to_csv, to_dict
from dealer.journal.store import Journal
from dealer.language import _


def fault_text_rows(progress: RunProgress) -> list[tuple[str, str, str, str, str, str]]:
    """The fault texts of a live run, which name cards: only for a report asked for with --show-cards."""
    rows = []
    for entry in progress.fault_log:
        for fault in entry["faults"]:
            text = fault.get("message") or fault.get("text", "")
            rows.append(("fault text", "", str(entry["machine"]), f"board {entry['board']} copy {entry['copy']} "
                         f"({entry['stage']})", str(fault.get("law", "")), f"{fault['code']}: {text}"))
    return rows


def write_run_report(path: str | Path, journal: Journal, run_ids: Sequence[int], progress: RunProgress,
                     run_info: dict[str, Any], *, show_cards: bool = False, deals: DealSet | None = None) -> None:
    """The report file of a run just dealt: CSV or a readable summary (.txt) from the journal; any other
    name gets the JSON of the live run (with its fault details) and the journal's figures. With the run's
    `deals`, the report has their statistics too."""
    rep = build(journal, run_ids)
    if deals is not None:
        add_deal_statistics(rep, deals, _("the deals of this run"))
    suffix = Path(path).suffix.lower()
    if suffix == ".csv":
        text = to_csv(rep, fault_text_rows(progress) if show_cards else ())
    elif suffix == ".txt":
        text = summary_text(rep)
    else:
        text = progress.report({**run_info, "report": to_dict(rep)}, show_cards=show_cards)
    write_text(path, text, force=True, mode=SECRET_MODE if show_cards else PUBLIC_MODE)
