"""The dealing run: a deal set and its copies -> journal jobs -> machines, one station thread each.

`deal_session` is what `dealer deal FILE` does; `execute` deals the jobs of one run or of several (a
congress, `dealer.plan.run`) from one queue; `raise_for` turns a run that did not end well into its error.
What the run shows goes through `RunProgress` to the view of `RunOptions`.
"""

from __future__ import annotations

import math
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, Final

from dealer.core.boards import check_labelled, copy_set_names
from dealer.core.dealset import DealSet
from dealer.core.errors import (
    DealerError,
    Interrupted,
    JournalDamaged,
    JournalError,
    PortInUse,
    PreparedBoards,
    SerialConflict,
    SystemRefused,
    UsageError,
    VerificationError,
)
from dealer.dealing import report_file
from dealer.dealing.context import RunContext, RunLimits
from dealer.dealing.machine import HOST_PROTOCOL, Cancelled, Machine
from dealer.dealing.ports import check_url
from dealer.dealing.progress import ProgressView, RunProgress
from dealer.dealing.station import Station
from dealer.dealing.transport import check_traces
from dealer.journal.database_url import DatabaseURL, JournalPlace, record_folder, record_place
from dealer.journal.events import Released
from dealer.journal.failure import refused, shortage_of
from dealer.journal.history import (
    DealHistory,
    HistoryChoice,
    HistoryPlace,
    check_named,
    check_reuse,
    practice_history,
    practice_note,
    teaching_history,
    teaching_note,
)
from dealer.journal.jobplan import JobPlan
from dealer.journal.lock import JournalLock, lock_path
from dealer.journal.opening import journal_found, open_journal, read_journal
from dealer.journal.store import LOST_ADVICE, Job, JobState, Journal, Run
from dealer.language import N_, _, n_


@dataclass
class RunOptions:
    """How to deal: ports, copies, journal, resume/replay, timeouts, what to show."""

    ports: Sequence[str]
    journal: JournalPlace
    copies: int = 1
    set_name: str = "A"
    resume: bool = False
    replay: bool = False
    report: Path | None = None
    force: bool = False
    show_cards: bool = False
    quiet: bool = False
    limits: RunLimits = RunLimits()
    """How long the run waits for a board and for a deal, how often it deals a board."""
    machine_factory: Callable[[str], Machine] | None = None
    machine_names: Sequence[str] | None = None
    """What the run calls each machine (one per port): in the journal, the progress lines, the report."""
    history: HistoryPlace | None = None
    """The deal history (Law 6D2 beyond this journal) the run is checked against as it starts; None: this
    computer's (`history.default_path`)."""
    practice: bool = False
    """`history` is a practice history, chosen because none was named (`practice`): a simulated machine's
    deals go there, and a machine that says it is real puts its deals into this computer's history."""
    teaching: bool = False
    """A teaching run: it may deal deals made under conditions (prepared boards, Law 6E4), and every machine's deals
    go into the practice history beside the journal (`teaching`), never the club's."""
    out: IO[str] = field(default_factory=lambda: sys.stderr)
    view: ProgressView | None = None
    """How progress is shown (default: one plain line an event on `out`)."""
    title: str = ""
    """What the run deals, for the head of a live view."""
    stop: threading.Event | None = None
    """Set from another thread to stop the run cleanly: each machine finishes its board, then the run ends
    (resumable, like Ctrl-C); None: the run makes its own."""
    give_up: threading.Event | None = None
    """Set from another thread to end the run now: each machine is given up in the middle of its board, as a
    signal gives it up, and its job left for the journal's crash recovery to settle on resume."""


@dataclass
class RunResult:
    """How a run ended."""

    run_id: int
    verified: int
    jobs: int
    unresolved: list[str]
    stopped: list[str]
    errors: list[str]
    summary: str
    run_ids: tuple[int, ...] = ()
    """Every run dealt (one per session in a congress), in dealing order."""
    failures: tuple[tuple[str, DealerError], ...] = ()
    """Each machine that left the run, with the error that stopped it."""
    exhausted: int = 0
    """Boards left FAULTED after every attempt `max_attempts` allows (a resume deals them again only if
    given more)."""
    max_attempts: int = 0

    @property
    def complete(self) -> bool:
        """Every job verified."""
        return self.verified == self.jobs


RESUME_ADVICE: Final = N_("continue it with --resume")
"""How a refusal of an unfinished run not resumed names the choice that would change it, on the command line."""
GIVE_UP_LOOK: Final = 0.25
"""Seconds between looks at `RunOptions.give_up` while the stations deal (only when one is given)."""


def copies_plan(deals: DealSet, copies: int, set_name: str) -> list[JobPlan]:
    """Jobs for `copies` copies of every board: copy 1 of every board first (one board set at a time).

    Copy k goes into board set `set_name` + k when there are several copies (A1, A2, ...). Refuses
    (`UsageError`) what no board label can carry: a bad set name, one too long for its copy number, a
    board number past the label's.
    """
    sets = copy_set_names(set_name, copies)
    check_labelled(deals.boards.tolist())
    return [JobPlan(int(b), c, "", sets[c - 1]) for c in range(1, copies + 1) for b in deals.boards]


def deal_session(deals: DealSet, source: str, options: RunOptions, name: str | None = None) -> RunResult:
    """Deal a deal set with its copies on the machines of `options`; resumable through the journal.

    First check what the run is given, before anything is written (`session_problems`: the first problem
    found is raised); then take the journal (refused while another process holds it), open (or resume) the
    run in it, refuse a deal set used before (Law 6D2: in this journal, or on this computer by the deal
    history), put every job left half-way by a crash back where it belongs, `execute`, and end with a
    summary and an optional report.
    """
    refused = conditions_problem(deals, options.teaching, source)  # first: nothing is made for a refused file
    if refused is not None:
        raise refused
    practising = practice(options, options.ports, say=False)
    problems = session_problems(deals, practising, name or Path(source).stem, source=source)
    if problems:
        raise problems[0]
    options = practice(options, options.ports)
    plan = copies_plan(deals, options.copies, options.set_name)
    try:
        journal = open_journal(options.journal, create=not options.resume, command="dealer deal")
    except SystemRefused as exc:
        raise with_advice(exc, None, [deals]) from exc
    with journal:
        try:
            finished = _finished_already(journal, deals, options)
            if finished is not None:
                return finished
            run_id = _open_run(journal, deals, source, plan, options, name or Path(source).stem)
            return execute(journal, [(run_id, deals)], options)
        except SystemRefused as exc:  # before the stations began: what to do depends on whether a run was begun
            raise with_advice(exc, journal, [deals]) from exc
        except KeyboardInterrupt as exc:  # before the machines started: how far the run had got
            if isinstance(exc, Interrupted) and exc.left is not None:
                raise
            run = journal.unfinished_run(deals.set_hash())
            raise interrupted(exc, journal, [run.id] if run is not None else []) from None


@dataclass(frozen=True)
class Advice:
    """How a refusal names the choices that would change it: the command line's options, or another
    front's words for the same choices (the console's boxes)."""

    resume: str = RESUME_ADVICE
    replay: str = N_("if this event is a replay of those deals, say so with --replay")
    teaching: str = N_("to deal them for a lesson, give --teaching (its deals then go into the practice history)")
    """(Each said through the catalogue where a refusal names it.)"""


def conditions_problem(deals: DealSet, teaching: bool, source: str, advice: Advice = Advice()) -> PreparedBoards | None:
    """The refusal of deals made under conditions (`DealSet.conditions`: prepared boards, not wholly random) for a
    run that is not a teaching run (Law 6E4), naming the file `source`; None when the run may deal them."""
    if deals.conditions is None or teaching:
        return None
    condition = deals.conditions if len(deals.conditions) <= 60 else deals.conditions[:57] + "..."
    return PreparedBoards(_("{file}: its deals were made under conditions ({condition}), not wholly at random: Law "
                            "6E4 keeps them out of an event; {advice}").format(
        file=source, condition=condition, advice=_(advice.teaching)))


def session_problems(deals: DealSet, options: RunOptions, name: str, advice: Advice = Advice(), *,
                     source: str | None = None) -> list[DealerError]:
    """Every rule a run of `deals` breaks before it starts, in the order `deal_session` meets them: deals made
    under conditions outside a teaching run (Law 6E4: `conditions_problem`, naming `source`, else `name`), the
    board sets of every copy and the boards by the label rule (`copies_plan`), the options (`check_run_options`),
    wire traces, a journal another controller holds, an unfinished run not resumed (or a resume with none),
    a deal dealt before in another run `name` is not a replay of (Law 6D2). The one check of `dealer deal`, the
    console's Check and its Start; it reads the journal and the history and writes neither."""
    refused = conditions_problem(deals, options.teaching, source or name, advice)
    if refused is not None:
        return [refused]
    found: list[DealerError] = []
    for rule in (lambda: copies_plan(deals, options.copies, options.set_name), lambda: check_run_options(options),
                 lambda: check_traces(options.ports)):
        try:
            rule()
        except DealerError as exc:
            found.append(exc)
    if found:
        return found
    journal = record_place(options.journal)  # (a caller's str too)
    held = journal_held(journal)
    if held is not None:
        return [held]
    try:
        unfinished, finished, began, uid = _runs_of(journal, deals)
    except DealerError as exc:
        return [exc]
    if unfinished is not None and not options.resume and began:  # one that never began is taken up again
        return [JournalError(_("{journal}: run {run} of this deal set is unfinished; {advice}").format(
            journal=journal, run=unfinished, advice=_(advice.resume)))]
    if options.resume:
        if isinstance(journal, Path) and not journal.exists():  # said as the journal says it, with its advice
            return [JournalError(_("{journal}: no such journal, so no run to resume{advice}").format(
                journal=journal, advice=_(LOST_ADVICE)))]
        if unfinished is None and not finished:
            return [JournalError(_("{journal}: no unfinished run of this deal set to resume").format(journal=journal))]
        return []  # a resume is checked against the history as it starts (its own entries apart)
    try:  # a run that never began, taken up again, is checked without its own entries (it is the same run)
        with DealHistory.open(options.history) as history:
            check_reuse(history, deals, name=name, replay=options.replay, hint=_(advice.replay), run_uid=uid)
    except DealerError as exc:
        return [exc]
    return []


def with_advice(exc: SystemRefused, journal: Journal | None, deals: Sequence[DealSet]) -> SystemRefused:
    """`exc` with the one thing to do once the system allows it: ``--resume`` if the journal holds an unfinished
    run of `deals`, else the same command again (nothing was dealt). As it stands if it says so already."""
    if "--resume" in str(exc):
        return exc
    try:
        begun = journal is not None and any(journal.unfinished_run(d.set_hash()) is not None for d in deals)
    except (JournalError, MemoryError):
        begun = False
    if begun:
        return SystemRefused(_("{error}: once the system allows it, continue with --resume").format(error=exc))
    return SystemRefused(_("{error}: once the system allows it, run the same command again").format(error=exc))


def journal_held(journal: JournalPlace) -> DealerError | None:
    """The error of a journal another controller holds now (one controller per journal file), else None. A
    journal never locked has no lock file: none is made to find out. A journal in a database is held run by
    run (`_runs_of` finds a run held)."""
    if isinstance(journal, DatabaseURL) or not lock_path(journal).is_file():
        return None
    try:
        JournalLock.acquire(journal, "dealer (a check before dealing)").release()
    except JournalError as exc:
        return exc
    return None


def _runs_of(journal: JournalPlace, deals: DealSet) -> tuple[int | None, bool, bool, str | None]:
    """The unfinished run of `deals` in the journal (its id, or None), whether one of them finished, whether the
    unfinished one began (a machine took up a job of it), and its uid (None for none). `JournalBusy` if another
    controller holds that run (a journal in a database)."""
    if not journal_found(journal):
        return None, False, False, None
    with read_journal(journal) as held:
        held.check_sound()  # what a resume would find, so that both give one advice
        run = held.unfinished_run(deals.set_hash())
        if run is not None:
            held.refuse_held(run.id)
        finished = any(r.set_hash == deals.set_hash() and r.finished for r in held.runs())
        began = run is not None and not held.never_began(run.id)
    return (None if run is None else run.id), finished, began, (None if run is None else run.uid)


def interrupted(exc: KeyboardInterrupt, journal: Journal, run_ids: Sequence[int]) -> Interrupted:
    """What a signal that stopped a dealing run raises: the signal, and how many boards of `run_ids` are
    left to deal (none begun: no count)."""
    name = exc.signal_name if isinstance(exc, Interrupted) else "SIGINT"
    if not run_ids:
        return Interrupted(name)
    try:
        jobs = [job for run in run_ids for job in journal.jobs(run)]
    except JournalError:
        return Interrupted(name)
    left = sum(1 for job in jobs if job.state is not JobState.VERIFIED)
    return Interrupted(name, left=left, total=len(jobs))


def practice(options: RunOptions, ports: Sequence[str], say: bool = True) -> RunOptions:
    """`options`, with the practice history beside the journal when no history is given and every machine
    of `ports` is simulated (`practice_history`), or when the run is a teaching run, whatever history is given
    (`teaching_history`, unless the practice history is given already); said once on `options.out` when `say`."""
    if options.teaching:
        given = options.history if options.practice else None
        kept = given if given is not None else teaching_history(record_folder(options.journal))
        if say:
            options.out.write(teaching_note(kept) + "\n")
            options.out.flush()
        return replace(options, history=kept, practice=True)
    if options.history is not None:
        return options
    path = practice_history(ports, record_folder(options.journal))
    if path is None:
        return options
    if say:
        options.out.write(practice_note(path) + "\n")
        options.out.flush()
    return replace(options, history=path, practice=True)


def check_run_options(options: RunOptions) -> None:
    """Refuse, before a journal is opened, what would stop the run only once begun: a timeout or attempt
    count that cannot be, a ``sim://`` port the simulator refuses, a port given twice (`UsageError`). A port
    that cannot be opened is not refused here: the other machines deal the run, and it resumes. A deal history
    named but not there is refused too (`JournalError`), never made."""
    limits = options.limits
    for name, value in (("--board-timeout", limits.board_timeout), ("--deal-timeout", limits.deal_timeout)):
        if not (math.isfinite(value) and value > 0):
            raise UsageError(_("{option} must be a number of seconds above 0; got {value}").format(
                option=name, value=value))
    if limits.max_attempts < 1:
        raise UsageError(_("--max-attempts must be at least 1; got {value}").format(value=limits.max_attempts))
    if options.machine_factory is None:
        for url in options.ports:
            check_url(url)
    if len(set(options.ports)) < len(options.ports):
        raise UsageError(_("--port {port} is given twice: one machine a port").format(
            port=next(u for u in options.ports if options.ports.count(u) > 1)))
    check_named(options.history)


def _finished_already(journal: Journal, deals: DealSet, options: RunOptions) -> RunResult | None:
    """A resume of a deal set whose run is finished (every board verified; another machine may have dealt
    the last ones after this one was lost) has nothing left to do: that run, told so, with no machine opened."""
    if not options.resume or journal.unfinished_run(deals.set_hash()) is not None:
        return None
    done = [run for run in journal.runs() if run.set_hash == deals.set_hash() and run.finished]
    if not done:
        return None
    run = done[-1]
    jobs = len(journal.jobs(run.id))
    return RunResult(run.id, jobs, jobs, [], [], [], n_(
        "every board of run {run} ({name}) was verified already ({count} board): nothing left to resume",
        "every board of run {run} ({name}) was verified already ({count} boards): nothing left to resume",
        jobs).format(run=run.id, name=run.name, count=jobs), (run.id,))


def _open_run(journal: Journal, deals: DealSet, source: str, plan: list[JobPlan], options: RunOptions,
              name: str) -> int:
    unfinished = journal.unfinished_run(deals.set_hash())
    if options.resume:
        if unfinished is None:
            raise JournalError(_("{journal}: no unfinished run of this deal set to resume").format(
                journal=journal.path))
        journal.hold(unfinished.id)
        with DealHistory.open(options.history) as history:
            remember(history, journal, unfinished, deals, options)
        release_loaded(journal, unfinished.id)
        return unfinished.id
    if unfinished is not None and journal.never_began(unfinished.id):  # refused before anything: taken up again
        journal.hold(unfinished.id)
        release_loaded(journal, unfinished.id)
        return unfinished.id
    if unfinished is not None:  # this process holds the journal: no other controller is dealing it
        raise JournalError(_("{journal}: run {run} of this deal set is unfinished; {advice}").format(
            journal=journal.path, run=unfinished.id, advice=_(RESUME_ADVICE)))
    with DealHistory.open(options.history) as history:
        _tell(options, check_reuse(history, deals, name=name, replay=options.replay))
    run = journal.begin_run(name, source, deals, plan, replay=options.replay)
    return run.id  # its deals go into the history one by one, as each one's dealing begins


def remember(history: DealHistory, journal: Journal, run: Run, deals: DealSet, options: RunOptions,
             hint: str | None = None) -> None:
    """A run to resume: checked against the deal history (its own entries excepted); the deals whose dealing
    began by the journal are recorded in it (again, if they were: a controller killed between its journal's
    step into DEALING and the history's record has them recorded now)."""
    replay = run.replay or options.replay
    _tell(options, check_reuse(history, deals, name=run.name, replay=replay, run_uid=run.uid, hint=hint))
    history.record(deals, run_uid=run.uid, run_name=run.name, journal=journal.path, replay=replay,
                   boards=journal.boards_dealing_began(run.id))


def _tell(options: RunOptions, warnings: Sequence[Any]) -> None:
    for fault in warnings:
        options.out.write(_("note: {fault}").format(fault=fault.text()) + "\n")


def release_loaded(journal: Journal, run_id: int) -> None:
    """Jobs only loaded or scanned when the controller stopped: nothing was dealt; plan them again."""
    for job in journal.jobs(run_id, {JobState.LOADED, JobState.SCANNED}):
        journal.advance(job.id, JobState.PLANNED, Released(why="resumed"))


def execute(journal: Journal, runs: Sequence[tuple[int, DealSet]], options: RunOptions,
            extra: dict[str, Any] | None = None, *, reported_with: Sequence[int] = ()) -> RunResult:
    """Deal the jobs of `runs` (run id, its deal set), in that order, from one queue on every machine of
    `options`; finish each run whose jobs are all verified; write the report file if one is asked for (of
    `reported_with` too: runs this command dealt before).

    One `Station` thread per machine; each tells the run which job it holds (`JobInHand`: session, board
    set, board, copy, attempt). A machine that is lost stops its station; the others go on, and its
    unsettled jobs wait for a resume: the summary names the machine, its port and why. A journal that
    cannot be written (a full disk, a read-only file, a limit on a file's size) stops every station at
    once, since nothing may be done that the journal cannot record first: each job is left as a crash at
    that instant would leave it (a board dealt whose result could not be recorded is recounted on resume).
    A signal stops the run the same way (`Interrupted`, with the boards left). Station threads never print
    a traceback: what stops one (a machine, the journal, a bug) is reported through the run.
    """
    run_ids = [run for run, _ in runs]
    jobs = [j for run in run_ids for j in journal.jobs(run)]
    names = list(options.machine_names or options.ports)
    progress = RunProgress(total_jobs=len(jobs), out=options.out, show_cards=options.show_cards,
                           quiet=options.quiet, view=options.view, ports=dict(zip(names, options.ports, strict=True)),
                           title=options.title, host_protocol=HOST_PROTOCOL)
    stop_following = progress.follow(journal, run_ids)
    ctx = RunContext(journal, run_ids[0], runs[0][1], progress, default_set=options.set_name,
                     limits=options.limits, machine_names=set(names), later_runs=tuple(runs[1:]),
                     stop=options.stop if options.stop is not None else threading.Event(),
                     histories=HistoryChoice.of_run(options.history, options.practice, options.journal,
                                                    options.teaching))
    sessions = {run: journal.run(run).name for run in run_ids}
    errors: list[tuple[str, DealerError]] = []
    progress.open()
    try:
        if options.resume:
            verified = progress.verified
            progress.note(lambda: _resuming_text(sessions, verified, len(jobs)))
        machines = ctx.machines = _machines(options, names)
        stations = [StationThread(Station(m, ctx), errors) for m in machines]
        try:
            for s in stations:
                s.start()
            for s in stations:
                while not s.wait(None if options.give_up is None else GIVE_UP_LOOK):
                    if options.give_up is not None and options.give_up.is_set():
                        ctx.abandon()  # the stations end at once (`Cancelled`), each job left as a crash leaves it
        except KeyboardInterrupt as exc:  # a signal: every station stops now, each job left resumable
            ctx.abandon()
            for s in stations:
                s.wait(timeout=30)
            raise interrupted(exc, journal, run_ids) from None
        finally:
            ctx.stop.set()
            for s in stations:
                s.wait(timeout=30)
            for m in machines:
                m.close()
    finally:
        stop_following()
        progress.close()
    try:
        journal.check_file()  # at the end too: a journal damaged after its last checkpoint is no success
    except JournalError as exc:  # what the run saw is all that is known: the journal is not read again
        errors.append(("journal", exc))
        return RunResult(run_ids[0], progress.verified, len(jobs), [], list(ctx.stop_reason),
                         [f"{name}: {error}" for name, error in errors], "", tuple(run_ids), tuple(errors))
    dealt = DealSet.concat(deals for _, deals in runs)
    result = _result(journal, run_ids, ctx, errors, options, extra or {}, dealt, reported_with)
    try:  # what the run calls verified is on disk: the journal opened again by its path holds it
        journal.confirm_on_disk({run: sum(1 for job in journal.jobs(run) if job.state is JobState.VERIFIED)
                                 for run in run_ids})
    except JournalError as exc:
        errors.append(("journal", exc))  # damage, or a look the system refused: each said as what it is
        return RunResult(run_ids[0], progress.verified, len(jobs), [], list(ctx.stop_reason),
                         [f"{name}: {error}" for name, error in errors], "", tuple(run_ids), tuple(errors))
    return result


def _resuming_text(sessions: dict[int, str], verified: int, total: int) -> str:
    """The line a resumed run begins with: its runs, and how many of their boards were verified already."""
    if len(sessions) == 1:
        ((run, name),) = sessions.items()
        return n_("resuming run {run} ({name}): {verified} of {total} boards verified already",  # (English: a ratio)
                  "resuming run {run} ({name}): {verified} of {total} boards verified already", total).format(
            run=run, name=name, verified=verified, total=total)
    return n_("resuming runs {runs}: {verified} of {total} boards verified already",
              "resuming runs {runs}: {verified} of {total} boards verified already", total).format(
        runs=", ".join(f"{run} ({name})" for run, name in sessions.items()), verified=verified, total=total)


def _machines(options: RunOptions, names: list[str]) -> list[Machine]:
    """One `Machine` per port, named as the run calls it (its port, or the name the plan gives it)."""
    factory = options.machine_factory or (lambda url: Machine(url))
    machines = []
    for url, name in zip(options.ports, names, strict=True):
        machine = factory(url)
        machine.name = name
        machines.append(machine)
    return machines


class StationThread:
    """One station's thread, and whether it has ended. The end is an event of its own, not `threading.Thread.join`: a
    join cut short by a signal (CPython 3.11, bpo-45274) takes the thread for ended while it still deals, so a
    run stopped by a signal would go on printing after its last line."""

    def __init__(self, station: Station, errors: list[tuple[str, DealerError]]) -> None:
        self.ended = threading.Event()
        self._gate = threading.Lock()
        self._started = False  # start() returned: the thread runs, or has run
        self._running = False  # the thread has begun the station
        self._given_up = False  # a wait found it not begun and start() not returned: it never will begin
        self.thread = threading.Thread(target=self._run, args=(station, errors), name=station.name, daemon=True)

    def _run(self, station: Station, errors: list[tuple[str, DealerError]]) -> None:
        with self._gate:
            if self._given_up:
                return
            self._running = True
        try:
            _station_thread(station, errors)
        finally:
            self.ended.set()

    def start(self) -> None:
        self.thread.start()
        self._started = True

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the station has ended (at most `timeout` seconds); True if it has. At once if it never
        began: never started, or a signal cut its start short before the thread began the station (the thread,
        if made, then ends without beginning it)."""
        if not self._started:
            with self._gate:
                if not self._running:
                    self._given_up = True
                    return True
        return self.ended.wait(timeout)


def _station_thread(station: Station, errors: list[tuple[str, DealerError]]) -> None:
    """Run one station to its end; whatever stops it is put in `errors` for the run to report, never left
    to the thread (which would print a traceback)."""
    ctx = station.ctx
    try:
        station.run()
    except Cancelled:  # the run abandoned the machine (a signal, or another station's journal failure)
        _release(station, errors, "run stopped")
    except JournalError as exc:  # nothing more may be done that the journal cannot record: stop every station
        errors.append((station.name, exc))
        ctx.abandon()
    except DealerError as exc:
        errors.append((station.name, exc))
        ctx.machine_lost(station.name)
        ctx.progress.machine_lost(station.name, str(exc).removeprefix(f"{station.name}: "))
        _release(station, errors)
    except (MemoryError, OSError) as exc:  # the system refused memory or a descriptor: resumable, never a bug
        shortage = shortage_of(exc)
        if shortage is None:
            failure = DealerError(_("{machine}: unexpected error: {kind}: {error}").format(
                machine=station.name, kind=type(exc).__name__, error=exc))
            failure.__cause__ = exc
        else:
            failure = refused(ctx.journal.path, shortage)
        errors.append((station.name, failure))
        ctx.abandon()
    except Exception as exc:  # a bug: the run stops and reports it (its traceback with --debug)
        failure = DealerError(_("{machine}: unexpected error: {kind}: {error}").format(
            machine=station.name, kind=type(exc).__name__, error=exc))
        failure.__cause__ = exc
        errors.append((station.name, failure))
        ctx.abandon()


def _release(station: Station, errors: list[tuple[str, DealerError]], why: str = "machine lost") -> None:
    """Give back the stopped station's job if it was only loaded or scanned (a resume would do it too)."""
    try:
        station.release_current(why)
    except JournalError as exc:
        if not any(isinstance(e, JournalError) for _, e in errors):
            errors.append((station.name, exc))
        station.ctx.abandon()


def _result(journal: Journal, run_ids: list[int], ctx: RunContext, errors: list[tuple[str, DealerError]],
            options: RunOptions, extra: dict[str, Any], deals: DealSet, reported_with: Sequence[int] = ()) -> RunResult:
    several = len(run_ids) > 1
    verified = total = exhausted = 0
    unresolved: list[str] = []
    for run_id in run_ids:
        jobs = journal.jobs(run_id)
        done = sum(1 for j in jobs if j.state is JobState.VERIFIED)
        verified, total = verified + done, total + len(jobs)
        session = journal.run(run_id).name if several else None
        unresolved += [_unresolved_text(session, j) for j in jobs if j.state is not JobState.VERIFIED]
        exhausted += sum(1 for j in jobs if j.state is JobState.FAULTED and j.attempt >= options.limits.max_attempts)
        if done == len(jobs) and not journal.run(run_id).finished:
            journal.finish_run(run_id)
    summary = ctx.progress.summary()
    if options.report is not None:
        run_info = {"run": run_ids[0] if not several else run_ids, "journal": str(options.journal),
                    "unresolved": unresolved, "stopped": ctx.stop_reason,
                    "errors": [f"{name}: {exc}" for name, exc in errors], **extra}
        report_file.write_run_report(options.report, journal, [*reported_with, *run_ids], ctx.progress, run_info,
                                show_cards=options.show_cards, deals=deals)
    return RunResult(run_ids[0], verified, total, unresolved, list(ctx.stop_reason),
                     [f"{name}: {exc}" for name, exc in errors], summary, tuple(run_ids), tuple(errors),
                     exhausted, options.limits.max_attempts)


_STATE_WORDS: Final = {JobState.PLANNED: N_("planned"), JobState.LOADED: N_("loaded"),
                       JobState.SCANNED: N_("scanned"), JobState.DEALING: N_("dealing"), JobState.DEALT: N_("dealt"),
                       JobState.VERIFIED: N_("verified"), JobState.FAULTED: N_("faulted")}
"""A job's state as a board left unverified names it."""


def _unresolved_text(session: str | None, job: Job) -> str:
    """A board a run left unverified and where it is: 'board 2 copy 1: faulted' (its session first in a congress)."""
    state = _(_STATE_WORDS[job.state])
    if session is None:
        return _("board {board} copy {copy}: {state}").format(board=job.board, copy=job.copy, state=state)
    return _("{session} board {board} copy {copy}: {state}").format(session=session, board=job.board, copy=job.copy,
                                                                    state=state)


def raise_for(result: RunResult) -> None:
    """Turn a run that did not end well into the error its cause calls for: a stop on a fault (F7), then a
    machine that left the run (its own error, so a port that never answered exits as it does in every
    command, even when the other machines dealt every board), then boards left unverified. A journal that
    could not be written comes before all of them: the run stopped for it, and its error names the file
    and the cause. A run that lost a machine is no success even if the others dealt every board."""
    journal_failures = [exc for _name, exc in result.failures if isinstance(exc, JournalError)]
    damaged = [exc for exc in journal_failures if isinstance(exc, JournalDamaged)]
    if damaged:
        raise JournalDamaged(n_(
            "{error}; {verified} of {count} board had been verified; it cannot be resumed: recount the boards with "
            "dealer check (the deal file and --port) to see what each holds",
            "{error}; {verified} of {count} boards had been verified; it cannot be resumed: recount the boards with "
            "dealer check (the deal file and --port) to see what each holds", result.jobs).format(
            error=damaged[0], verified=result.verified, count=result.jobs)) from damaged[0]
    refusals = [exc for exc in journal_failures if isinstance(exc, SystemRefused)]
    if refusals:
        raise SystemRefused(n_(
            "{error}; the run stopped with {left} of {count} board left: once the system allows it, continue with "
            "--resume",
            "{error}; the run stopped with {left} of {count} boards left: once the system allows it, continue with "
            "--resume", result.jobs).format(error=refusals[0], left=result.jobs - result.verified,
                                            count=result.jobs)) from refusals[0]
    if journal_failures and "--resume" in str(journal_failures[0]):  # it says what to do (a server lost) already
        raise journal_failures[0]
    if journal_failures:
        raise JournalError(n_(
            "{error}; the run stopped with {left} of {count} board left: once it can be written, continue with "
            "--resume",
            "{error}; the run stopped with {left} of {count} boards left: once it can be written, continue with "
            "--resume", result.jobs).format(error=journal_failures[0], left=len(result.unresolved),
                                            count=result.jobs)) from journal_failures[0]
    if result.stopped:
        raise VerificationError(_("the run stopped: {reasons}").format(reasons="; ".join(result.stopped)))
    if result.failures:
        name, exc = result.failures[0]
        others = len(result.failures) - 1
        more = " " + n_("(and {n} more machine)", "(and {n} more machines)", others).format(n=others) if others else ""
        unresolved = len(result.unresolved)
        left = (n_("{n} board left; continue with --resume", "{n} boards left; continue with --resume",
                   unresolved).format(n=unresolved) if not result.complete
                else _("the other machines dealt every board"))
        if isinstance(exc, PortInUse | SerialConflict) and result.verified == 0:  # nothing began: nothing to resume
            left = n_("{n} board left", "{n} boards left", unresolved).format(n=unresolved)
        text = str(exc) if name in str(exc) else f"{name}: {exc}"  # the machine named once
        raise _retold(exc, f"{text}{more} ({left})") from exc
    if not result.complete:
        unverified = len(result.unresolved)
        boards = "; ".join(["; ".join(result.unresolved[:5]), *_what_next(result)])
        raise VerificationError(n_("{count} board not verified: {boards}", "{count} boards not verified: {boards}",
                                   unverified).format(count=unverified, boards=boards))


def _retold(exc: DealerError, text: str) -> DealerError:
    """`exc` (its class, exit code and fields) told in other words: whatever its constructor takes."""
    told = type(exc).__new__(type(exc))
    told.__dict__.update(vars(exc))
    told.args = (text,)
    return told


def _what_next(result: RunResult) -> list[str]:
    """What the director does about the boards a run left unverified: a resume deals again those with
    attempts left; those out of attempts need the director, then more attempts."""
    left = len(result.unresolved) - result.exhausted
    if not result.exhausted:
        return [_("continue with --resume")]
    more = f"--resume --max-attempts {result.max_attempts + 1}"
    times = n_("{count} time", "{count} times", result.max_attempts).format(count=result.max_attempts)
    tried = n_("{count} board was dealt {times}, all --max-attempts allows: see to it (the report names the faults), "
               "then deal it again with {option}",
               "{count} boards were dealt {times}, all --max-attempts allows: see to them (the report names the "
               "faults), then deal them again with {option}", result.exhausted).format(
        count=result.exhausted, times=times, option=more)
    if not left:
        return [tried]
    return [tried, n_("the other {count} board continue with --resume",
                      "the other {count} boards continue with --resume", left).format(count=left)]
