"""Whether a plan can be dealt as it stands: `problems` lists each as the error a run would raise (no
machine, a refused ``sim://`` port, deals dealt before (Law 6D2, also by the deal history), two sessions
needing one physical board, an unfinished run). ``dealer deal --plan`` raises the first; ``dealer plan``
shows them all.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from dealer.core.errors import DealerError, DealReused, JournalError, PreparedBoards, UsageError
from dealer.dealing import ports
from dealer.journal.database_url import JournalPlace
from dealer.journal.history import DealHistory, HistoryPlace, check_reuse, named_target, never_made_practice, own_path
from dealer.journal.opening import journal_found, read_journal
from dealer.journal.store import Run
from dealer.language import N_, _
from dealer.plan.congress import Plan
from dealer.plan.model import PlanError, Session
from dealer.verify import BoardFault

REPLAY_HINT = N_("mark the session replay = true in the plan if it is a replay of those deals")
"""The advice a Law 6D2 refusal of a plan's session gives (said with `_`)."""


def problems(plan: Plan, sessions: Sequence[Session] | None = None, runs: Sequence[Run] = (), *,
             resume: bool = False, journal: str = "", history: HistoryPlace | None = None,
             elsewhere: Collection[int] = ()) -> list[DealerError]:
    """Every reason `dealer deal --plan` would refuse to deal `sessions` (default: all) of `plan`, given
    the runs its journal holds (`runs`; a fresh journal holds none) and the deal history (`history`, None:
    this computer's), in the order the run checks them. `elsewhere`: runs other controllers hold now (a room's
    journal), being dealt, so neither to resume here nor unfinished."""
    chosen = list(plan.sessions if sessions is None else sessions)
    found: list[DealerError] = list(prepared_problems(plan, chosen))
    missing = machines_problem(plan)
    if missing is not None:
        found.append(missing)
    reuse = reuse_problem(plan)
    if reuse is not None:
        found.append(reuse)
    found += history_problems(plan, chosen, runs, history)[0]
    held = {s.name: session_run(plan, s, runs) for s in chosen}
    free = {name: run for name, run in held.items() if run is None or run.id not in elsewhere}
    found += unfinished_problems(free, resume=resume, journal=journal or str(plan.event.journal))
    found += board_clashes([s for s in chosen if not finished(held[s.name])])
    return found


def prepared_problems(plan: Plan, sessions: Sequence[Session]) -> list[PreparedBoards]:
    """Each of `sessions` whose deals were made under conditions (prepared boards, `DealSet.conditions`) in a plan
    that is not a teaching plan: Law 6E4 keeps such deals out of an event. Sessions not generated yet are not
    generated to find out (only a teaching plan makes prepared boards)."""
    if plan.event.teaching:
        return []
    refused = []
    for session in sessions:
        if plan.needs_generation(session):
            continue
        condition = plan.deal_set(session).conditions
        if condition is None:
            continue
        shown = condition if len(condition) <= 60 else condition[:57] + "..."
        refused.append(PreparedBoards(_("session {session}: its deals were made under conditions ({condition}), not "
                                        "wholly at random: Law 6E4 keeps them out of an event; a plan for lessons "
                                        "says kind = \"teaching\" at its top").format(
            session=session.name, condition=shown)))
    return refused


def journal_runs(path: JournalPlace) -> list[Run]:
    """The runs a journal holds; none if there is no journal yet (nothing is created to find out). Read
    without taking the journal: a live run's journal too, undisturbed."""
    if not journal_found(path):
        return []
    with read_journal(path) as journal:
        journal.check_sound()  # as a resume would find it: one advice
        return journal.runs()


def held_elsewhere(path: JournalPlace) -> dict[int, str]:
    """The runs of a room's journal other controllers hold now, with who holds each; none for a journal file, or
    none yet."""
    if not journal_found(path):
        return {}
    with read_journal(path) as journal:
        return journal.held_runs()


def history_problems(plan: Plan, sessions: Sequence[Session], runs: Sequence[Run] = (),
                     history: HistoryPlace | None = None) -> tuple[list[DealReused], list[BoardFault]]:
    """Law 6D2 against the deal history for each of `sessions` with its deals at hand and not dealt already
    (its own run in the journal, `runs`, excepted): the refusals, and the F10 notes of replay sessions.
    Reads only: without this user's own history there is nothing to find; a named one that does not exist
    is refused, as the run would refuse it."""
    if (history is None and named_target() is None and not own_path().is_file()) or never_made_practice(history):
        return [], []
    refused: list[DealReused] = []
    notes: list[BoardFault] = []
    with DealHistory.open(history) as found:
        for session in sessions:
            mine = session_run(plan, session, runs)
            if plan.needs_generation(session) or finished(mine):
                continue
            try:
                notes += check_reuse(found, plan.deal_set(session), name=session.name, replay=session.replay,
                                     run_uid=mine.uid if mine else None, hint=_(REPLAY_HINT))
            except DealReused as exc:
                refused.append(exc)
    return refused, notes


def machines_problem(plan: Plan) -> PlanError | None:
    """A plan without machines cannot be dealt, nor one with a ``sim://`` port the simulator refuses: the
    plan is not valid (exit 3), as the README's table says of a plan."""
    if not plan.machines:
        return PlanError(_("the plan names no machines ([[machines]] with name and port)"), plan.path)
    for machine in plan.machines:
        try:
            ports.check_url(machine.url)
        except UsageError as exc:
            return PlanError(_("machine {machine}: {problem}").format(machine=machine.name, problem=exc), plan.path)
    return None


def reuse_problem(plan: Plan) -> PlanError | None:
    """Law 6D2 across the plan's sessions (`Plan.check_reuse`), as an error instead of raised."""
    try:
        plan.check_reuse()
    except PlanError as exc:
        return exc
    return None


def board_clashes(sessions: Sequence[Session]) -> list[PlanError]:
    """Each pair of sessions of one run that deal into the same physical board (set and number), with the
    boards they share: a plan that cannot be dealt as it is (exit 3)."""
    owner: dict[tuple[str, int], str] = {}
    shared: dict[tuple[str, str], dict[str, list[int]]] = {}
    for session in sessions:
        for set_name, board in sorted({(job.set_name, job.board) for job in session.jobs()}):
            other = owner.setdefault((set_name, board), session.name)
            if other != session.name:
                shared.setdefault((other, session.name), {}).setdefault(set_name, []).append(board)
    out = []
    for (first, later), boards in shared.items():
        set_name, numbers = next(iter(boards.items()))
        also = sum(len(b) for b in boards.values()) - 1
        if also:
            said = _("sessions {first} and {later} both deal into board {board} of set {set} (and {more} more boards "
                     "of sets {sets}): one run cannot deal both (the board is needed again only after {first} is "
                     "played); deal them one at a time with --session, or give the sessions different board sets")
        else:
            said = _("sessions {first} and {later} both deal into board {board} of set {set}: one run cannot deal both "
                     "(the board is needed again only after {first} is played); deal them one at a time with "
                     "--session, or give the sessions different board sets")
        out.append(PlanError(said.format(first=first, later=later, board=numbers[0], set=set_name, more=also,
                                         sets=", ".join(boards))))
    return out


def unfinished_problems(held: dict[str, Run | None], *, resume: bool, journal: str) -> list[JournalError]:
    """Sessions whose run in the journal is unfinished, when the run does not resume; with resume, a
    journal with no unfinished run of these sessions."""
    unfinished = [(name, run) for name, run in held.items() if run is not None and not run.finished]
    if resume:
        return [] if unfinished else [JournalError(_("{journal}: no unfinished run of this plan's sessions to "
                                                     "resume").format(journal=journal))]
    return [JournalError(_("{journal}: run {run} of session {session} is unfinished; continue it with --resume").format(
        journal=journal, run=run.id, session=name)) for name, run in unfinished]


def session_run(plan: Plan, session: Session, runs: Sequence[Run]) -> Run | None:
    """The newest of a journal's `runs` that dealt this session (its name and its deals), if any. A session
    whose fresh deals are not generated yet has none (and is not generated to find out)."""
    mine = [r for r in runs if r.name == session.name]
    if not mine or plan.needs_generation(session):
        return None
    set_hash = plan.deal_set(session).set_hash()
    mine = [r for r in mine if r.set_hash == set_hash]
    return mine[-1] if mine else None


def finished(run: Run | None) -> bool:
    return run is not None and run.finished
