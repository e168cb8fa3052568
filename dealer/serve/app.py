"""The console's web application: its routes, over the run manager, the hub and the journals.

Pages: the Room (``/``, live through ``/events``), Start a run (``/start``, with ``/api/check``,
``/api/start``, ``/api/stop``, ``/api/resume``, ``/api/upload``), the Report (``/report``, downloads at
``/report/download``) and the Director (``/director``). Every request passes `auth.AccessMiddleware`
first. A run request names a file of the work folder and machines by the ids the console offers
(`dealer.serve.given`, `dealer.serve.machines`), never a path or a port's URL.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from dealer.core.digits import TooManyDigits, whole
from dealer.core.errors import DealerError, UsageError
from dealer.core.structured import StructureError, load_json
from dealer.journal import run_report as report
from dealer.journal.database_url import DatabaseURL
from dealer.journal.dealt import dealt_deals
from dealer.journal.events import title_said
from dealer.journal.opening import read_journal
from dealer.language import _, speaking
from dealer.printing.code128 import bar_widths
from dealer.printing.handview import board_views
from dealer.printing.labels_layout import STOCKS, label_pages
from dealer.printing.records_html import BOARD_CSS, records_html
from dealer.printing.svg import svg_document
from dealer.serve import auth, charts, director, given, machines, pages
from dealer.serve.auth import Access, AccessMiddleware
from dealer.serve.hub import MAX_STREAMS, EventHub, TooManyStreams, said_json
from dealer.serve.languages import LanguageMiddleware
from dealer.serve.record import RecordRoom
from dealer.serve.runs import STOP_WITHIN, RunManager
from dealer.serve.sources import RunRequest, check
from dealer.serve.uploads import TooLarge, UploadLimits, Uploads, upload_name
from dealer.verify.fault_table import law_said
from firmware_protocol.labels import BoardLabel

HEARTBEAT_SECONDS: Final = 15.0
MAX_FORM: Final = 4096
"""Bytes of the director's small forms read."""


@dataclass
class Console:
    """What the routes share: the hub, the run manager, the director's lock, the work folder, the
    machines offered, the uploads."""

    hub: EventHub
    runs: RunManager
    director: director.DirectorLock
    workdir: Path
    offer: machines.Offer
    uploads: Uploads
    record: RecordRoom | None = None
    """The record the room's computers share, when the console shows it (it then deals nothing itself)."""

    def snapshot(self) -> dict[str, Any]:
        """The room as a browser opening it sees it: the record's, or the console's own run."""
        return self.record.snapshot() if self.record is not None else self.runs.snapshot()

    def journals(self) -> list[Path | DatabaseURL]:
        """The journals the Report and the Director read: the record, or those the console has dealt on."""
        return [self.record.place] if self.record is not None else list(self.runs.journals())

    def refuse_runs(self) -> None:
        """`UsageError` when the console shows a record: its runs are begun by the dealing computers."""
        if self.record is not None:
            raise UsageError(_("this console shows the record {journal}: its runs are dealt by the room's computers "
                               "(dealer deal ... --journal URL there), not from this page").format(
                journal=self.record.place))


def _to_terminal(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def build_app(workdir: Path, access: Access, director_pin: str, sim_speed: float = machines.SIM_SPEED, *,
              extra_machines: Mapping[str, str] | None = None, limits: UploadLimits | None = None,
              clock: Callable[[], float] = time.monotonic, tell: Callable[[str], None] = _to_terminal,
              stop_within: float = STOP_WITHIN, record: DatabaseURL | None = None) -> Starlette:
    """The application for a work folder, its access rules and the director's PIN; the simulated machines
    the Start page offers run at `sim_speed`, and the operator may offer more (`extra_machines`: id ->
    port URL). `tell` writes a line to the console's terminal (a PIN being guessed); `clock` times the
    director's tries. With a `record` (a journal in a database), the Room shows every run of it, as the room's
    computers deal them, and the console starts none."""
    workdir.mkdir(mode=0o700, parents=True, exist_ok=True)
    hub = EventHub()
    offer = machines.Offer(workdir, sim_speed, extra_machines)
    runs = RunManager(hub, workdir, offer, stop_within)
    console = Console(hub, runs, director.DirectorLock(director_pin, clock, tell), workdir,
                      offer, Uploads(workdir / given.UPLOADS, limits),
                      RecordRoom(hub, record) if record is not None else None)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if console.record is not None:
            console.record.start()
        yield
        hub.close_all()
        if console.record is not None:
            await asyncio.to_thread(console.record.stop)
        if console.runs.stop_for_shutdown():
            sys.stderr.write(_("dealer serve: stopping the run: each machine finishes its board (resume it from the "
                               "Start page; a second signal ends it at once)") + "\n")
        await asyncio.to_thread(console.runs.wait)

    routes = [
        Route("/", lambda r: HTMLResponse(pages.room_page())),
        Route("/events", _events),
        Route("/api/room", lambda r: SaidJSONResponse(_console(r).snapshot())),
        Route("/start", lambda r: HTMLResponse(pages.start_page(
            [(m.id, m.text) for m in offer.machines()], list(given.offered_files(workdir)))
            if console.record is None else pages.record_start_page(str(console.record.place)))),
        Route("/api/sources", lambda r: JSONResponse({"files": list(given.offered_files(workdir))})),
        Route("/api/check", _check, methods=["POST"]),
        Route("/api/start", _start, methods=["POST"]),
        Route("/api/stop", _stop, methods=["POST"]),
        Route("/api/resume", _resume, methods=["POST"]),
        Route("/api/upload", _upload, methods=["POST"]),
        Route("/report", _report),
        Route("/report/download", _download),
        Route("/director", _director),
        Route("/director/unlock", _unlock, methods=["POST"]),
        Route("/director/board", _board, methods=["POST"]),
        Route("/director/lock", _lock, methods=["POST"]),
        Route("/director/once", _once),
        Route("/records.css", _records_css),
        Mount("/static", StaticFiles(directory=Path(__file__).parent / "static"), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.console = console
    app.add_middleware(LanguageMiddleware)  # inside the access check: a stranger is refused in no language
    app.add_middleware(AccessMiddleware, access=access)
    return app


class SaidJSONResponse(JSONResponse):
    """JSON whose `Later` words are said in the request's language."""

    def render(self, content: Any) -> bytes:
        return said_json(content).encode("utf-8")


def _console(request: Request) -> Console:
    console: Console = request.app.state.console
    return console


# --- the room ------------------------------------------------------------------------------------


async def _events(request: Request) -> Response:
    """Server-sent events: the room's snapshot, then batches of messages as they are published;
    ``?until=end`` ends the stream when the run ends (for scripts)."""
    console = _console(request)
    if console.hub.subscribers >= MAX_STREAMS:
        return JSONResponse({"error": _("the console has {most} event streams open, the most it serves: close a page "
                                        "or a script that watches the room, then reload").format(most=MAX_STREAMS)},
                            status_code=503, headers={"Retry-After": "10"})
    until_end = request.query_params.get("until") == "end"

    async def stream() -> AsyncIterator[str]:
        # subscribed here, not before the response: a client gone before its stream began leaves nothing behind
        try:
            sub = console.hub.subscribe(asyncio.get_running_loop())
        except TooManyStreams:  # others took the last places meanwhile
            return
        try:
            snap = await asyncio.to_thread(console.snapshot)
            yield f"data: [{said_json(snap)}]\n\n"
            if until_end and snap["status"] not in ("starting", "dealing", "stopping"):
                return
            while not sub.closed:
                batch = await sub.next_batch(HEARTBEAT_SECONDS)
                if sub.lagging:  # too far behind: the room as it stands now, then on from there
                    sub.catch_up()
                    snap = await asyncio.to_thread(console.snapshot)
                    yield f"data: [{said_json(snap)}]\n\n"
                    if until_end and snap["status"] not in ("starting", "dealing", "stopping"):
                        return
                    continue
                if not batch:
                    yield ": still here\n\n"
                    continue
                yield "data: [" + ",".join(m.said() for m in batch) + "]\n\n"
                if until_end and any(m.kind == "ended" for m in batch):
                    return
        finally:
            console.hub.unsubscribe(sub)

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


# --- start, stop, resume -------------------------------------------------------------------------


def _request_of(body: dict[str, Any], console: Console) -> RunRequest:
    """The run a client asks for: a file of the work folder by its name, machines by their ids."""
    source = str(body.get("source", "")).strip()
    if not source:
        raise UsageError(_("give a deal file or a plan of the console's work folder (or upload one)"))
    path = given.chosen_file(console.workdir, source)
    try:
        given_copies = body.get("copies", 1)
        copies = given_copies if isinstance(given_copies, int) else whole(str(given_copies), "copies")
    except TooManyDigits as exc:
        raise UsageError(str(exc)) from None
    except (TypeError, ValueError):
        raise UsageError(_("copies: {value} is not a number").format(value=repr(str(body.get("copies"))[:20]))) \
            from None
    set_name = str(body.get("set", "A")).strip().upper()[:40] or "A"  # (checked by the label rule)
    chosen = body.get("machines", body.get("ports", []))
    ids = tuple(str(m).strip() for m in (chosen if isinstance(chosen, list) else [chosen]) if str(m).strip())
    return RunRequest(path, console.offer.resolve(ids), copies, set_name, body.get("resume") is True, ids,
                      replay=body.get("replay") is True,  # (only a JSON true: "false" is no replay)
                      teaching=body.get("teaching") is True)


async def _json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object ({} for none); a body past a bound (`dealer.core.structured`) is refused."""
    try:
        body = load_json(await request.body())
    except StructureError as exc:
        raise UsageError(_("the request: {problem}").format(problem=exc)) from None
    except ValueError:
        body = {}
    return body if isinstance(body, dict) else {}


def _refused(exc: DealerError, workdir: Path) -> JSONResponse:
    return JSONResponse({"ok": False, "lines": [], "problems": [given.shown(str(exc), workdir)]}, status_code=400)


async def _check(request: Request) -> Response:
    console = _console(request)
    try:
        console.refuse_runs()
        run_request = _request_of(await _json_body(request), console)
    except DealerError as exc:
        return _refused(exc, console.workdir)
    checked = await asyncio.to_thread(check, run_request, console.workdir, console.offer)
    return JSONResponse(checked.to_dict())


async def _start(request: Request) -> Response:
    console = _console(request)
    try:
        console.refuse_runs()
        run_request = _request_of(await _json_body(request), console)
        live = await asyncio.to_thread(console.runs.start, run_request)
    except DealerError as exc:
        return _refused(exc, console.workdir)
    return JSONResponse({"ok": True, "run": live.key, "title": live.title,
                         "journal": given.shown(str(live.journal), console.workdir)})


async def _stop(request: Request) -> Response:
    try:
        live = _console(request).runs.stop()
    except DealerError as exc:
        return _refused(exc, _console(request).workdir)
    return JSONResponse({"ok": True, "run": live.key, "lines": [_("stopping: each machine finishes its board")],
                         "problems": []})


async def _resume(request: Request) -> Response:
    console = _console(request)
    last = console.runs.current
    try:
        console.refuse_runs()
        if last is None:
            raise UsageError(_("no run of this console to resume: check the file with 'resume' ticked"))
        live = await asyncio.to_thread(console.runs.start, replace(last.request, resume=True))
    except DealerError as exc:
        return _refused(exc, console.workdir)
    return JSONResponse({"ok": True, "run": live.key, "title": live.title})


async def _upload(request: Request) -> Response:
    """A deal file or plan sent as the request's body (``?name=FILE``), kept in the work folder's uploads."""
    console = _console(request)
    try:
        name = upload_name(request.query_params.get("name", ""))
        declared = request.headers.get("content-length")
        size = whole(declared, "content-length") if declared and declared.isdigit() else None
        kept = await console.uploads.receive(name, size, request.stream())
    except (TooLarge, TooManyDigits) as exc:
        return JSONResponse({"error": str(exc)}, status_code=413, headers={"Connection": "close"})
    except DealerError as exc:
        return JSONResponse({"error": str(exc)}, status_code=400)
    return JSONResponse({"source": f"{given.UPLOADS}/{kept.name}", "files": list(given.offered_files(console.workdir))})


# --- the report ----------------------------------------------------------------------------------


def _runs_listed(console: Console) -> list[dict[str, Any]]:
    listed = []
    for j, path in enumerate(console.journals()):
        with read_journal(path) as journal:
            listed += [{"j": j, "journal": path.name, "id": r.id, "name": r.name, "finished": r.finished}
                       for r in journal.runs()]
    return listed


def _chosen(console: Console, request: Request) -> tuple[Path | DatabaseURL, int] | None:
    try:
        j, run = whole(request.query_params["j"]), whole(request.query_params["run"])
        return console.journals()[j], run
    except (KeyError, ValueError, IndexError):
        return None


def _report_data(path: Path | DatabaseURL, run: int, workdir: Path) -> dict[str, Any]:
    with read_journal(path) as journal:
        rep = report.build(journal, [run])
        rates = charts.rate_series(journal.each_event(run))
        name = journal.run(run).name
    by_law: dict[str, int] = {}
    for (kind, law), n in rep.fault_totals().items():
        key = f"{law_said(law)}: {title_said(kind)}" if law else title_said(kind)
        by_law[key] = by_law.get(key, 0) + n
    actions = sorted(((m, str(a), n) for (_, m, a), n in rep.actions.items()), key=lambda t: (t[0], t[1]))
    return {"name": _("{journal} run {run}: {name}").format(journal=path.name, run=run, name=name),
            "summary": given.shown(report.summary_text(rep), workdir),
            "rate_chart": charts.rate_chart(rates), "law_chart": charts.law_chart(by_law),
            "actions": actions}


async def _report(request: Request) -> Response:
    console = _console(request)
    listed = await asyncio.to_thread(_runs_listed, console)
    chosen = _chosen(console, request)
    if chosen is None and listed:
        chosen = console.journals()[listed[-1]["j"]], listed[-1]["id"]
    data = None
    if chosen is not None:
        data = await asyncio.to_thread(_report_data, *chosen, console.workdir)
        data.update(j=console.journals().index(chosen[0]), id=chosen[1])
    return HTMLResponse(pages.report_page(listed, data))


def _download_body(path: Path | DatabaseURL, run: int, kind: str, unlocked: bool) -> tuple[bytes, str, str]:
    with read_journal(path) as journal:
        held = journal.run(run)
        stem = f"{Path(held.name).stem or 'run'}-run{run}"
        if kind == "csv":
            return report.to_csv(report.build(journal, [run])).encode(), "text/csv", f"{stem}-report.csv"
        if kind == "json":
            return report.to_json(report.build(journal, [run])).encode(), "application/json", f"{stem}-report.json"
        if kind == "labels":
            jobs = journal.jobs(run)
            labels = [BoardLabel.for_board(j.set_name or "A", j.board) for j in jobs]
            svg = svg_document(label_pages(labels, STOCKS["l7160"], bar_widths), "Board labels")
            return svg.encode(), "image/svg+xml", f"{stem}-labels.svg"
        if kind == "records":
            if not unlocked:
                raise PermissionError(_("hand records show the deals: unlock the director's page first"))
            if not held.finished:
                raise PermissionError(_("hand records of a run still dealing stay locked"))
            found = next((rd for rd in dealt_deals(journal) if rd.run.id == run), None)
            if found is None or found.deals is None:
                raise UsageError(_("the deals of run {run} are not at hand: {why}").format(
                    run=run, why=found.reason if found else _("no such run")))
            html = records_html(board_views(found.deals), held.name)
            return html.encode(), "text/html", f"{stem}-records.html"
    raise UsageError(_("no download {kind}").format(kind=repr(kind)))


async def _download(request: Request) -> Response:
    console = _console(request)
    chosen = _chosen(console, request)
    if chosen is None:
        return Response(_("no such run") + "\n", status_code=404, media_type="text/plain")
    unlocked = console.director.unlocked(request.cookies.get(director.COOKIE))
    try:
        body, media, filename = await asyncio.to_thread(_download_body, *chosen, request.query_params.get("as", ""),
                                                        unlocked)
    except PermissionError as exc:
        return Response(f"{exc}\n", status_code=403, media_type="text/plain")
    except DealerError as exc:
        return Response(f"{exc}\n", status_code=404, media_type="text/plain")
    headers = {"Content-Disposition": f'attachment; filename="{filename}"', "Cache-Control": "no-store"}
    return Response(body, media_type=media, headers=headers)


# --- the director --------------------------------------------------------------------------------


def _unlocked(request: Request) -> bool:
    return _console(request).director.unlocked(request.cookies.get(director.COOKIE))


async def _director(request: Request) -> Response:
    lock = _console(request).director
    response = HTMLResponse(pages.director_page(_unlocked(request), lock.waiting(_client(request))),
                            headers={"Cache-Control": "no-store"})
    if lock.session(request.cookies.get(_session_cookie(request))) is None:
        response.set_cookie(_session_cookie(request), lock.new_session(), httponly=True, samesite="strict")
    return response


def _session_cookie(request: Request) -> str:
    """The director's page's browser-session cookie of this console (named after its port, as the token's)."""
    return auth.cookie_name(request.scope, director.SESSION_COOKIE)


def _client(request: Request) -> str:
    """Who asks, as far as the PIN's limits go: the browser session the director's page gave it, else
    (a client that keeps no cookie) its address. Said in the console's language, not the request's: the
    console's terminal names it, and a client is counted by it in whatever language it asks."""
    session = _console(request).director.session(request.cookies.get(_session_cookie(request)))
    with speaking(None):
        address = request.client.host if request.client is not None else _("a client")
        return _("browser session {session} at {address}").format(session=session, address=address) if session \
            else address


async def _unlock(request: Request) -> Response:
    console = _console(request)
    form = await _form(request)
    attempt = console.director.unlock(form.get("pin", "")[:64], _client(request))
    if attempt.key is None:
        if attempt.wait > 0:
            return HTMLResponse(pages.director_page(False, attempt.wait, _("wrong PIN")), status_code=429,
                                headers={"Retry-After": f"{attempt.wait:.0f}"})
        return HTMLResponse(pages.director_page(False, 0.0, _("wrong PIN")), status_code=403)
    response = RedirectResponse("/director", status_code=303)
    response.set_cookie(director.COOKIE, attempt.key, max_age=director.UNLOCK_SECONDS, httponly=True,
                        samesite="strict")
    return response


async def _once(request: Request) -> Response:
    """The one-time link the console's terminal printed: the director's cookie, without a PIN."""
    attempt = _console(request).director.use_once(request.query_params.get("key", "")[:64])
    if attempt.key is None:
        return HTMLResponse(pages.director_page(False, 0.0, _("that link was used or is too old: ask the console's "
                                                              "terminal for another (press Enter there)")),
                            status_code=403)
    response = RedirectResponse("/director", status_code=303)
    response.set_cookie(director.COOKIE, attempt.key, max_age=director.UNLOCK_SECONDS, httponly=True,
                        samesite="strict")
    return response


async def _lock(request: Request) -> Response:
    _console(request).director.lock(request.cookies.get(director.COOKIE))
    response = RedirectResponse("/director", status_code=303)
    response.delete_cookie(director.COOKIE)
    return response


async def _board(request: Request) -> Response:
    console = _console(request)
    if not _unlocked(request):
        return HTMLResponse(pages.director_page(False, console.director.waiting(_client(request)), _("unlock first")),
                            status_code=403)
    label = (await _form(request)).get("label", "")
    try:
        set_name, board = director.parse_label(label)
    except ValueError as exc:
        return HTMLResponse(pages.director_page(True, 0.0, str(exc), label=label), status_code=400)
    dealings = await asyncio.to_thread(director.find_board, console.journals(), set_name, board,
                                       console.workdir)
    if not dealings:
        return HTMLResponse(pages.director_page(True, 0.0, _("set {set} board {board}: no run of this console dealt "
                                                             "into it").format(set=set_name, board=board), label=label),
                            status_code=404, headers={"Cache-Control": "no-store"})
    return HTMLResponse(pages.director_page(True, 0.0, "", director.dealings_html(dealings), label),
                        headers={"Cache-Control": "no-store"})


async def _records_css(request: Request) -> Response:
    """The hand records' board styles (`dealer.printing.records_html.BOARD_CSS`), for the director's board."""
    return Response(BOARD_CSS, media_type="text/css", headers={"Cache-Control": "no-cache"})


async def _form(request: Request) -> dict[str, str]:
    """A url-encoded form's fields (the director's two small forms)."""
    from urllib.parse import parse_qsl

    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM:
            break
    return dict(parse_qsl(bytes(body[:MAX_FORM]).decode("utf-8", "replace")))
