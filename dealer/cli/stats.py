"""`dealer stats`: are these deals what a perfect shuffle gives? Figures beside their exact probabilities.

Over deal files, a journal's runs, a plan's sessions or all together, and beside a hand-shuffling model
(``--shuffle-model K``); on screen, and with ``-o`` as a report. Never a deal, on screen or in the report.
"""

from __future__ import annotations

import argparse
import secrets
from pathlib import Path
from typing import Any

from dealer import formats
from dealer.cli.teaching import teach
from dealer.core.errors import UsageError
from dealer.language import _, listed, n_, speaking

DEFAULT_MODEL_DEALS = 1000


def register(sub: Any) -> None:
    p = sub.add_parser("stats", help=_("deal statistics against the exact probabilities of a perfect shuffle"),
                       description=_("Hand patterns, high-card points, suit lengths, longest and shortest suits, the "
                                   "longest fit of each partnership and the wild deals of a set of deals, each "
                                   "beside its exact probability and tested for fit, with the verdict in one "
                                   "sentence. The deals of every FILE, --journal and --plan together make one "
                                   "sample; --shuffle-model adds deals shuffled by hand (a model) beside them."))
    p.add_argument("files", metavar="FILE", nargs="*", help=_("deal files (PBN, DUP, DLM, BRI, ...)"))
    p.add_argument("--format", choices=formats.format_names(), metavar="FMT",
                   help=_("format of the deal files ({formats}; default: from each extension)").format(
                       formats=", ".join(formats.format_names())))
    p.add_argument("--journal", metavar="JOURNAL",
                   help=_("the deals the journal's runs dealt (their deal files, proven by the journal's hashes; "
                        "a plan's sessions with --plan too)"))
    p.add_argument("--plan", metavar="PLAN.toml", help=_("the deals of a congress plan's sessions (or, with --journal, "
                                                       "where its runs' deals come from)"))
    p.add_argument("--shuffle-model", type=int, metavar="K",
                   help=_("also analyse deals made by K riffle shuffles (1-10) of the previous deal's gathered pack"))
    p.add_argument("--deals", type=int, metavar="N",
                   help=_("how many model deals (default: as many as the other deals, else {deals})").format(
                       deals=DEFAULT_MODEL_DEALS))
    p.add_argument("--seed", type=int, metavar="N", help=_("seed of the model's random shuffles (default: fresh)"))
    p.add_argument("-o", "--output", metavar="OUT", help=_("write the report: OUT.html, OUT.pdf or OUT.json"))
    p.add_argument("--title", default=_("Deal statistics"), metavar="TEXT",
                   help=_("report title (default: %(default)s)"))
    p.add_argument("--force", action="store_true", help=_("replace an existing output file"))
    teach(p, [("dealer stats examples/session.pbn", _("the verdict and the figures on the screen")),
              ("dealer stats examples/session.pbn -o stats.html",
               _("bar charts of counted against exact (.pdf, .json)")),
              ("dealer stats --journal club.journal --shuffle-model 3",
               _("every session dealt, beside 3 riffle shuffles")),
              ("dealer stats --plan congress.toml -o congress.pdf", _("a congress's sessions"))],
          _("FILE is a deal file; JOURNAL a dealing journal (its runs' deal files must be at hand); PLAN.toml a "
          "congress plan.\nNo deal is ever shown, only statistics."))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Over deal files (any format we read), the deals a journal's runs dealt, the sessions of a congress
    plan, or all of them together as one sample; with ``--shuffle-model K``, beside deals from K riffle
    shuffles of the gathered pack (what dealing by hand would look like). On screen each sample's verdict
    in one sentence, its wild deals and one line per figure; with ``-o`` also a report, .html or .pdf with
    bar charts, or .json."""
    from dealer.core.outfile import check_writable
    from dealer.stats import SampleStats, analyse

    if not (args.files or args.journal or args.plan or args.shuffle_model is not None):
        raise UsageError(_("dealer stats: give deal files, --journal, --plan or --shuffle-model"))
    if args.shuffle_model is None and (args.deals is not None or args.seed is not None):
        raise UsageError(_("--deals and --seed go with --shuffle-model"))
    if args.shuffle_model is not None:
        _check_model(args.shuffle_model, args.deals)
    kind = _output_kind(args)
    if args.output:
        check_writable(args.output, force=args.force)
    notes: list[str] = []
    samples: list[SampleStats] = []
    with speaking("en" if kind == "json" else None):  # a file for programs keeps its words as they are
        deals, name = _collected(args, notes)
        if deals is not None:
            samples.append(analyse(deals.deals, name))
        if args.shuffle_model is not None:
            count = args.deals if args.deals is not None else len(deals) if deals is not None else DEFAULT_MODEL_DEALS
            samples.append(analyse(_model(args.shuffle_model, count, args.seed), _model_name(args.shuffle_model)))
        from dealer.stats import stats_report as report

        print(report.summary_text(samples, notes), end="")
        if args.output:
            _write(args, kind, samples, notes)
    if args.output:
        print(_("wrote the statistics of {samples} to {file}").format(
            samples=listed(s.name for s in samples), file=args.output))
    return 0


def _output_kind(args: argparse.Namespace) -> str | None:
    """The kind of report -o asks for (json, html, pdf), checked before any work."""
    if not args.output:
        return None
    kind = Path(args.output).suffix.lower().lstrip(".")
    if kind == "json":
        return kind
    from dealer.printing import outputs

    if kind not in outputs.STATS_KINDS:
        raise UsageError(_("{file}: a statistics report is written as .html, .pdf or .json").format(file=args.output))
    return outputs.prepare(args.output, outputs.STATS_KINDS, "statistics reports", force=args.force)


def _write(args: argparse.Namespace, kind: str | None, samples: list[Any], notes: list[str]) -> None:
    model = args.shuffle_model is not None
    if kind == "json":
        from dealer.core.outfile import PUBLIC_MODE, write_text
        from dealer.stats import stats_report as report

        write_text(args.output, report.to_json(samples, notes, model=model), force=args.force, mode=PUBLIC_MODE)
        return
    from dealer.printing.outputs import write_stats

    write_stats(args.output, samples, args.title, notes, model=model, force=args.force)


def _check_model(shuffles: int, count: int | None) -> None:
    from dealer.stats.shuffling import MAX_SHUFFLES

    if not 1 <= shuffles <= MAX_SHUFFLES:
        raise UsageError(_("--shuffle-model takes 1 to {most} riffle shuffles; got {shuffles}").format(
            most=MAX_SHUFFLES, shuffles=shuffles))
    if count is not None and count < 1:
        raise UsageError(_("--deals must be at least 1; got {count}").format(count=count))


def _model(shuffles: int, count: int, seed: int | None) -> Any:
    import numpy as np

    from dealer.stats.shuffling import model_deals

    rng = np.random.default_rng(seed if seed is not None else secrets.randbits(128))
    return model_deals(count, shuffles, rng)


def _model_name(shuffles: int) -> str:
    return n_("hand shuffling model: {shuffles} riffle shuffle a deal",
              "hand shuffling model: {shuffles} riffle shuffles a deal", shuffles).format(shuffles=shuffles)


def _collected(args: argparse.Namespace, notes: list[str]) -> tuple[Any, str]:
    """The deals of the files, journal and plan as one set (each deal once), and what to call them."""
    from dealer.core.dealset import DealSet

    parts: list[DealSet] = []
    names: list[str] = []
    if args.files:
        parts += [formats.read_file(path, args.format) for path in args.files]
        names.append(Path(args.files[0]).name if len(args.files) == 1
                     else n_("{count} deal file", "{count} deal files", len(args.files)).format(count=len(args.files)))
    plan = _plan(args.plan) if args.plan else None
    if args.journal:
        found, name = _journal(args.journal, plan, notes)
        parts += found
        names.append(name)
    elif plan is not None:
        found, name = _plan_sessions(plan, notes)
        parts += found
        names.append(name)
    if not parts:
        if args.journal or args.plan:
            raise UsageError(_("dealer stats: none of the deals asked for are at hand ({why})").format(why=notes[0])
                             if notes else _("dealer stats: none of the deals asked for are at hand"))
        return None, ""
    return _each_once(DealSet.concat(parts), notes), " + ".join(names)


def _plan(path: str) -> Any:
    from dealer.plan import Plan

    return Plan.load(path)


def _plan_sessions(plan: Any, notes: list[str]) -> tuple[list[Any], str]:
    """The deals of every session of the plan whose deals exist; replays (deals dealt before) left out."""
    found = []
    for session in plan.sessions:
        if session.replay:
            notes.append(_("session {session} left out: a replay of deals dealt before").format(session=session.name))
        elif plan.needs_generation(session):
            notes.append(_("session {session} left out: its deals are not generated yet").format(session=session.name))
        else:
            found.append(plan.deal_set(session))
    return found, n_("plan {plan} ({found} of {total} sessions)", "plan {plan} ({found} of {total} sessions)",
                     len(plan.sessions)).format(plan=Path(plan.path).name, found=len(found), total=len(plan.sessions))


def _journal(path: str, plan: Any, notes: list[str]) -> tuple[list[Any], str]:
    """The deals the journal's runs dealt, each proven by the journal's hashes."""
    from dealer.core.errors import JournalError
    from dealer.journal.database_url import is_database_url, record_place
    from dealer.journal.dealt import dealt_deals
    from dealer.journal.opening import journal_found, read_journal
    from dealer.journal.store import Run

    if not journal_found(record_place(path)):
        raise JournalError(_("{journal}: no such journal").format(journal=record_place(path)))

    def from_plan(run: Run) -> Any:
        if plan is None or not run.source.startswith("plan "):
            return None
        session = next((s for s in plan.sessions if s.name == run.name), None)
        if session is None or plan.needs_generation(session):
            return None
        deals = plan.deal_set(session)
        return deals if deals.set_hash() == run.set_hash else None

    with read_journal(record_place(path)) as journal:  # a live run's journal too, undisturbed
        runs = dealt_deals(journal, from_plan)
    for item in runs:
        if item.deals is None:
            notes.append(_("run {run} ({name}) left out: {why}").format(run=item.run.id, name=item.run.name,
                                                                        why=item.reason))
    found = [item.deals for item in runs if item.deals is not None]
    return found, n_("journal {journal} ({found} of {total} runs)", "journal {journal} ({found} of {total} runs)",
                     len(runs)).format(journal=Path(path).name if not is_database_url(path) else record_place(path),
                                      found=len(found), total=len(runs))


def _each_once(deals: Any, notes: list[str]) -> Any:
    """The set with each deal once: a deal found twice (the same file given twice, a file and a run that
    dealt it) is counted once."""
    import numpy as np

    seen: dict[str, int] = {}
    keep = [seen.setdefault(digest, i) == i for i, digest in enumerate(deals.deal_hashes())]
    if all(keep):
        return deals
    notes.append(_("{count} deals found twice (the same deal in two files or runs) are counted once").format(
        count=keep.count(False)))
    index = np.flatnonzero(keep)
    from dealer.core.dealset import DealSet

    return DealSet(deals.boards[index], deals.deals[index], deals.dealers[index], deals.vulnerabilities[index],
                   deals.event, dict(deals.metadata))
