"""Write the printed outputs to files: the kind follows the extension, writes are atomic and refuse
to replace a file unless forced. Hand records and curtain cards show deals, so they are created
private (mode 0600) like any other secret file."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from dealer.core.dealset import DealSet
from dealer.core.errors import UsageError
from dealer.core.extras import require
from dealer.core.outfile import PUBLIC_MODE, SECRET_MODE, atomic_output, check_writable
from dealer.language import N_, _, listed
from dealer.printing import curtains_layout, doubledummy, labels_layout, records_html, records_layout, stats_layout, svg
from dealer.printing.code128 import bar_widths
from dealer.printing.drawing import Page
from dealer.printing.handview import BoardView, board_views
from dealer.printing.pdf import write_pdf
from dealer.stats import SampleStats
from firmware_protocol.labels import BoardLabel

MAX_PER_PAGE: Final = 12

# output kind (the file extension) -> whether it needs reportlab (extra ``print``)
RECORD_KINDS: Final = {"pdf": True, "html": False}
LABEL_KINDS: Final = {"pdf": True, "svg": True}  # SVG bars come from reportlab's Code 128 encoder too
STATS_KINDS: Final = {"pdf": True, "html": False}
HAND_RECORDS: Final = N_("hand records")
CURTAIN_CARDS: Final = N_("curtain cards")
BOARD_LABELS: Final = N_("board labels")
STATISTICS_REPORTS: Final = N_("statistics reports")
"""What each output is, as its messages name it (said through `_`)."""


def prepare(path: str | Path, kinds: Mapping[str, bool], purpose: str, *, force: bool) -> str:
    """The output kind from the extension, once it is known that `path` can be written and the kind's
    extra is installed: commands call this before any work."""
    kind = Path(path).suffix.lower().lstrip(".")
    if kind not in kinds:
        raise UsageError(_("{path}: {purpose} are written as {kinds}").format(
            path=path, purpose=_(purpose), kinds=listed(("." + k for k in kinds), style="or")))
    if kinds[kind]:
        require("reportlab", "print", _("{purpose} as {kind}").format(purpose=_(purpose), kind=kind.upper()))
    check_writable(path, force=force)
    return kind


def views_for(deals: DealSet, ten: str, dd: bool | None, *,
              progress: doubledummy.Progress | None = None) -> list[BoardView]:
    """Board views, with double-dummy analysis if `dd` (required), or if the solver is there (None);
    `progress` hears how many boards the analysis has done."""
    analyse = doubledummy.solver_available() if dd is None else dd
    results = (doubledummy.analyse(deals.deals, deals.dealers, deals.vulnerabilities, progress=progress)
               if analyse else None)
    return board_views(deals, ten, results)


def write_records(path: str | Path, views: Sequence[BoardView], title: str, *, per_page: int = 6,
                  force: bool = False) -> None:
    """A hand-record sheet as PDF or HTML."""
    if not 1 <= per_page <= MAX_PER_PAGE:
        raise UsageError(_("--per-page must be 1 to {most}; got {given}").format(most=MAX_PER_PAGE, given=per_page))
    kind = prepare(path, RECORD_KINDS, HAND_RECORDS, force=force)
    if kind == "html":
        _write_text(path, records_html.records_html(views, title, per_page), force, SECRET_MODE)
    else:
        _write_pdf(path, records_layout.record_pages(views, title, per_page), title, HAND_RECORDS, force)


def write_curtains(path: str | Path, views: Sequence[BoardView], title: str, *, force: bool = False) -> None:
    """Curtain cards as PDF or HTML."""
    kind = prepare(path, RECORD_KINDS, CURTAIN_CARDS, force=force)
    if kind == "html":
        _write_text(path, records_html.curtains_html(views, title), force, SECRET_MODE)
    else:
        _write_pdf(path, curtains_layout.curtain_pages(views, title), title, CURTAIN_CARDS, force)


def write_labels(path: str | Path, labels: Sequence[BoardLabel], stock: labels_layout.LabelStock, *,
                 force: bool = False) -> None:
    """Board labels as PDF or SVG (one SVG canvas with the sheets one under another)."""
    kind = prepare(path, LABEL_KINDS, BOARD_LABELS, force=force)
    pages = labels_layout.label_pages(labels, stock, bar_widths)
    title = _("Board labels")
    if kind == "svg":
        _write_text(path, svg.svg_document(pages, title), force, PUBLIC_MODE)
    else:
        _write_pdf(path, pages, title, BOARD_LABELS, force, PUBLIC_MODE)


def write_stats(path: str | Path, samples: Sequence[SampleStats], title: str, notes: Sequence[str] = (), *,
                model: bool = False, force: bool = False) -> None:
    """A statistics report (charts and tests, no deal) as HTML or PDF; public (0644 under umask 022)."""
    kind = prepare(path, STATS_KINDS, STATISTICS_REPORTS, force=force)
    if kind == "html":
        _write_text(path, stats_layout.stats_html(samples, title, notes, model=model), force, PUBLIC_MODE)
    else:
        _write_pdf(path, stats_layout.stats_pages(samples, title, notes, model=model), title, STATISTICS_REPORTS,
                   force, PUBLIC_MODE)


def _write_text(path: str | Path, text: str, force: bool, mode: int) -> None:
    with atomic_output(path, force=force, mode=mode) as out:
        out.write(text.encode("utf-8"))


def _write_pdf(path: str | Path, pages: Sequence[Page], title: str, purpose: str, force: bool,
               mode: int = SECRET_MODE) -> None:
    with atomic_output(path, force=force, mode=mode) as out:
        write_pdf(pages, out, title, _(purpose))
