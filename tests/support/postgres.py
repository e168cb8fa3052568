"""A throwaway PostgreSQL server for the tests: `initdb` in a new temporary folder, run as an unprivileged user
(``nobody`` when the tests run as root), listening on 127.0.0.1 only at a free port, with a password; stopped and
its folder removed at the end. Debian's ``postgresql`` package brings the programs (/usr/lib/postgresql/N/bin).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Final

USER: Final = "dealer"
"""The server's superuser, the tests' user."""


def programs() -> Path | None:
    """The folder of the server's programs (initdb, pg_ctl, postgres), None if PostgreSQL is not installed."""
    found = shutil.which("pg_ctl")
    if found and (Path(found).parent / "initdb").exists():
        return Path(found).resolve().parent
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    return versions[-1].parent if versions else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ThrowawayServer:
    """One server in a folder of its own; `url` names a database on it (with the password unless told not)."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin = bin_dir
        self.folder = Path(tempfile.mkdtemp(prefix="dealer-postgres-"))
        self.data = self.folder / "data"
        self.log = self.folder / "server.log"
        self.password = secrets.token_hex(12)
        self.port = _free_port()
        self._as: dict[str, Any] = {}
        if os.geteuid() == 0:  # initdb refuses root: the server runs as nobody, in a folder it owns
            self._as = {"user": "nobody", "group": "nogroup"}
            shutil.chown(self.folder, "nobody", "nogroup")
        self._databases = 0

    @classmethod
    def started(cls) -> ThrowawayServer:
        """A new server, started (`RuntimeError` if PostgreSQL is not installed)."""
        bin_dir = programs()
        if bin_dir is None:
            raise RuntimeError("PostgreSQL is not installed: apt-get install postgresql")
        return cls(bin_dir).start()

    def _run(self, *args: str) -> None:
        done = subprocess.run([str(self.bin / args[0]), *args[1:]], capture_output=True, text=True, timeout=120,
                              cwd=self.folder, **self._as)
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"{args[0]} failed: {done.stderr.strip()[-2000:]}\n{log}")

    def start(self) -> ThrowawayServer:
        if not self.data.exists():
            secret = self.folder / "password"
            secret.write_text(self.password + "\n")
            if self._as:
                shutil.chown(secret, "nobody", "nogroup")
            self._run("initdb", "-D", str(self.data), "-U", USER, "--pwfile", str(secret), "-A", "scram-sha-256",
                      "-E", "UTF8", "--locale", "C", "--no-sync")
            secret.unlink()
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "-o",
                  f"-c listen_addresses=127.0.0.1 -p {self.port} -c unix_socket_directories=''", "start")
        return self

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (`mode`: fast, or immediate as a crash would)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def url(self, database: str = "postgres", *, password: bool = True) -> str:
        secret = f":{self.password}" if password else ""
        return f"postgresql://{USER}{secret}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A new, empty database; its URL (with the password)."""
        import psycopg

        self._databases += 1
        name = f"record_{os.getpid()}_{self._databases}"
        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f'CREATE DATABASE "{name}"')  # type: ignore[arg-type]
        return self.url(name)

    def remove(self) -> None:
        with contextlib.suppress(RuntimeError):  # stopped already
            self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)
