"""`dealer serve`: the duplication-room console, a live web page of every machine and board.

The console has an access token whatever its address, printed in the address it shows (or written to
--token-file). SIGINT, SIGTERM and SIGHUP all stop it the same way: each machine finishes its board, the
run ends resumable, and the command ends as every command stopped by a signal does (one line, exit 130).
The web stack (Starlette, uvicorn) is imported when the command runs, never by `dealer --help`.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import math
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from dealer.cli.teaching import teach
from dealer.core.errors import UsageError
from dealer.core.outfile import SECRET_MODE, write_text
from dealer.journal.database_url import DatabaseURL, as_url, is_database_url
from dealer.language import N_, _
from dealer.language.system import os_reason

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def register(sub: Any) -> None:
    p = sub.add_parser("serve", help=_("the duplication-room console: a live web page of every machine and board"),
                       description=_("Serve the duplication-room console: the Room (every machine and board, live), "
                                   "Start a run (a deal file or plan on simulated or real machines: checked, "
                                   "started, stopped, resumed), the Report (with charts and downloads) and the "
                                   "Director's page (a board's deal by its label, behind the PIN printed at "
                                   "start). It deals through the same run code and journal as dealer deal, "
                                   "blind: no card reaches a browser unless the director unlocks a finished "
                                   "run's deals. Bound to this computer (127.0.0.1) by default. Every request "
                                   "needs the console's access token, printed in its address (or written to "
                                   "--token-file); another address needs --allow-remote or --token-file. A run "
                                   "deals a file of the work folder (or one uploaded there) on machines the "
                                   "console offers."))
    p.add_argument("--host", default="127.0.0.1", metavar="ADDRESS",
                   help=_("address to listen on (default 127.0.0.1: this computer only)"))
    p.add_argument("--port", type=int, default=8000, metavar="NUMBER",
                   help=_("port to listen on (default 8000; 0: any free port)"))
    p.add_argument("--workdir", "--journal-dir", dest="workdir", default="dealer-serve", metavar="DIR",
                   help=_("the work folder: the deal files and plans the console offers (put them there), "
                        "uploads, journals of its runs, the simulated machines' fault plans (default ./dealer-serve)"))
    p.add_argument("--journal", metavar="URL",
                   help=_("show the record the room's computers share (a postgresql:// URL): the Room shows every run "
                        "of it live, each machine named with its computer; the runs are begun on the dealing "
                        "computers (dealer deal ... --journal URL), not from this console"))
    p.add_argument("--allow-remote", action="store_true",
                   help=_("with a --host beyond this computer: make an access token and print the address with it "
                        "once"))
    p.add_argument("--token-file", metavar="FILE",
                   help=_("make an access token and write it to FILE (mode 0600) instead of printing it; every "
                        "request must then carry it"))
    p.add_argument("--force", action="store_true", help=_("replace an existing --token-file"))
    p.add_argument("--sim-speed", type=float, default=50.0, metavar="X",
                   help=_("speed of the simulated machines the Start page offers (default 50: 50 times a real "
                        "machine)"))
    p.add_argument("--stop-within", type=float, default=30.0, metavar="SECONDS",
                   help=_("seconds a stopping run's machines have to finish their boards before they are given up "
                        "where they stand, for the resume to settle (default 30; from 1 to 3600)"))
    teach(p, [("dealer serve", _("the console at http://127.0.0.1:8000/?token=... (the address printed)")),
              ("dealer serve --port 8080 --workdir congress", _("another port, another work folder")),
              ("dealer serve --host 0.0.0.0 --allow-remote", _("for the room's tablets: address and token printed "
                                                             "once")),
              ("dealer serve --host 0.0.0.0 --token-file token.txt", _("the token written to token.txt only")),
              ("dealer serve --journal postgresql://dealer@desk-1/congress", _("the whole room: every run of the "
                                                                            "congress's record"))],
          _("The address with its token and the director's PIN are printed once when the console starts. Ctrl-C "
          "(or SIGTERM,\nSIGHUP) stops the console; a run dealing stops cleanly (each machine finishes its board) "
          "and resumes from the Start page."))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dealer.serve import auth

    if not (math.isfinite(args.sim_speed) and args.sim_speed > 0):
        raise UsageError(_("--sim-speed {speed:g}: give a finite speed above 0").format(speed=args.sim_speed))
    if not 1 <= args.stop_within <= 3600:
        raise UsageError(_("--stop-within {seconds:g}: give a number of seconds from 1 to 3600").format(
            seconds=args.stop_within))
    if not 0 <= args.port <= 65535:
        raise UsageError(_("--port {port}: give a port from 0 to 65535").format(port=args.port))
    record = _record(args.journal) if args.journal is not None else None
    local = auth.is_loopback(args.host)
    if not local and not (args.allow_remote or args.token_file):
        raise UsageError(_("--host {host}: a console reachable beyond this computer needs an access token: add "
                           "--allow-remote (the token is printed once) or --token-file FILE").format(host=args.host))
    token = auth.new_token()
    try:
        sock = _listen(args.host, args.port)
    except OSError as exc:
        why = os_reason(exc)
        raise UsageError(_("--host {host} --port {port}: cannot listen there ({why})").format(
            host=args.host, port=args.port, why=why)) from None
    try:
        if args.token_file:  # once the address is ours: no token file for a console that never started
            write_text(args.token_file, token + "\n", force=args.force, mode=SECRET_MODE)
        return _serve(args, sock, token, local, record)
    finally:
        sock.close()


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def _record(given: str) -> DatabaseURL:
    """The record `--journal` names: a journal in a database, which answers (a journal to be made there is
    waited for: the Room shows it once its first run is begun)."""
    from dealer.journal.opening import journal_found

    if not is_database_url(given):
        raise UsageError(_("--journal {journal}: give the postgresql:// URL of the record the room's computers share "
                           "(a journal file is shown by the console that deals it)").format(journal=given))
    record = as_url(given)
    journal_found(record)  # (a server that does not answer, or refuses us: one line, now)
    return record


def _serve(args: argparse.Namespace, sock: socket.socket, token: str, local: bool,
           record: DatabaseURL | None) -> int:
    import uvicorn

    from dealer.core.osys import open_files_limit
    from dealer.serve import auth, director, guard
    from dealer.serve.app import build_app

    hosts = frozenset(LOOPBACK_HOSTS | {args.host}) if local else None
    pin = director.new_pin()
    app = build_app(Path(args.workdir).resolve(), auth.Access(token, hosts), pin, args.sim_speed,
                    stop_within=args.stop_within, record=record)
    port = sock.getsockname()[1]
    shown_host = f"[{args.host}]" if ":" in args.host else args.host
    address = f"http://{shown_host}:{port}/"
    out = sys.stderr
    if args.token_file:
        out.write(_("dealer serve: the room at {address} (its access token is in {file})").format(
            address=address, file=args.token_file) + "\n")
    elif local:
        out.write(_("dealer serve: the room at {address} (this computer only; open this address: the token is shown "
                    "once)").format(address=f"{address}?token={token}") + "\n")
    else:
        out.write(_("dealer serve: the room at {address} (the token is shown once; keep it)").format(
            address=f"{address}?token={token}") + "\n")
    out.write(_("dealer serve: the director's PIN is {pin} (shown once; press Enter here for a one-time director's "
                "link)").format(pin=pin) + "\n")
    out.write(_("dealer serve: work folder {folder}; Ctrl-C stops").format(folder=Path(args.workdir).resolve()) + "\n")
    if record is not None:
        out.write(_("dealer serve: the Room shows the record {journal}: every run the room's computers deal on it")
                  .format(journal=record) + "\n")
    out.flush()
    threading.Thread(target=_links_on_request, args=(app, address, out), name="director-links", daemon=True).start()
    door = guard.Door(guard.connection_bound(open_files_limit()), guard.Tally(_to_terminal))
    app.state.door = door
    config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=2,
                            lifespan="on", http=guard.protocol_class(door), backlog=guard.ACCEPT_BATCH,
                            timeout_keep_alive=int(guard.KEEP_ALIVE_SECONDS))
    for name in ("uvicorn.error", "asyncio"):  # a crowd of clients never floods the terminal
        logging.getLogger(name).addFilter(guard.QuietLog())
    server = _Server(config, app)
    server.run_stopped_by_signals([sock])
    return 0


def _to_terminal(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _links_on_request(app: Any, address: str, out: Any) -> None:
    """Each line typed at the console's terminal prints a one-time director's link: it unlocks the Director
    page once, whatever wrong PINs others have sent (ends when the terminal's input ends)."""
    with contextlib.suppress(OSError, ValueError):
        for _line in sys.stdin:
            key = app.state.console.director.one_time()
            out.write(_("dealer serve: the director's one-time link: {link} (opens the Director page once, within 10 "
                        "minutes, in a browser that has opened the room)").format(
                link=f"{address}director/once?key={key}") + "\n")
            out.flush()


SECOND_SIGNAL = N_("a second signal: the run ended at once, each machine given up where it stood; the resume "
                   "recounts those boards before dealing on")


class _Server:
    """uvicorn's server, stopped alike by every signal of `dealer.cli.signals.SIGNALS` (uvicorn's own list
    lacks SIGHUP), closing the console's event streams as soon as it is told to stop (a browser watching
    would otherwise hold the shutdown). Its handler takes the signals before the event loop is made, so a
    signal at any instant only asks the server to stop (one raised inside the loop's making or the server's
    start-up left a half-made loop, or was swallowed there). Once the server has stopped (the run stopped,
    each machine's board finished), the first signal is raised again, for the command to end as every command
    a signal stops."""

    def __new__(cls, config: Any, app: Any) -> Any:
        import asyncio

        import uvicorn

        from dealer.cli.signals import SIGNALS

        class Server(uvicorn.Server):
            def run_stopped_by_signals(self, sockets: list[socket.socket]) -> None:
                if threading.current_thread() is not threading.main_thread():  # signals are not ours there
                    self.run(sockets=sockets)
                    return
                before = {sig: signal.signal(sig, self.handle_exit) for sig in SIGNALS}
                try:
                    self.run(sockets=sockets)
                finally:
                    for sig, handler in before.items():
                        signal.signal(sig, handler)
                if self._captured_signals:
                    signal.raise_signal(self._captured_signals[0])

            @contextlib.contextmanager
            def capture_signals(self) -> Iterator[None]:  # taken already, by run_stopped_by_signals
                yield

            def handle_exit(self, sig: int, frame: Any) -> None:
                # a signal handler takes no lock: the streams are closed by the loop, soon after; a second
                # signal ends a stopping run at once (every machine given up where it stands)
                again = self.should_exit
                with contextlib.suppress(RuntimeError):  # (no loop runs yet: no stream is open)
                    loop = asyncio.get_running_loop()
                    loop.call_soon_threadsafe(app.state.console.hub.close_all)
                    if again:
                        loop.call_soon_threadsafe(app.state.console.runs.give_up, None, _(SECOND_SIGNAL))
                super().handle_exit(sig, frame)

        return Server(config)
