"""A record kept in PostgreSQL, named by a ``postgresql://`` URL: the URL as a value that never shows its
password (`DatabaseURL`: its text, its repr and every message give it without one), and the connection to it
through psycopg, libpq's own settings honoured (``PGPASSFILE``, ``PGHOST``, ``sslmode`` ...), its failures one
line that names the server, never the password.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final
from urllib.parse import urlsplit, urlunsplit

from dealer.core.errors import JournalError, UsageError
from dealer.language import _

if TYPE_CHECKING:
    import psycopg

SCHEMES: Final = ("postgresql://", "postgres://")
KEEPALIVES: Final = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5, "keepalives_count": 3}
"""libpq's TCP keepalives, unless the URL sets its own: a silent server is given up in about 25 s."""
CONNECT_TIMEOUT: Final = 10
"""Seconds to wait for the server to answer a connection, unless the URL's connect_timeout says otherwise."""


def is_database_url(text: str | object) -> bool:
    """Whether `text` names a record in PostgreSQL rather than a file."""
    return isinstance(text, str | DatabaseURL) and str(text).lower().startswith(SCHEMES)


def as_url(place: object) -> DatabaseURL:
    """`place` (a URL's text, or one already made) as a `DatabaseURL`."""
    return place if isinstance(place, DatabaseURL) else DatabaseURL(str(place))


@dataclass(frozen=True)
class DatabaseURL:
    """A ``postgresql://`` URL. `str()` and `repr()` give it without its password; only `connect` uses it."""

    _text: str = field(repr=False)

    def __post_init__(self) -> None:
        if not is_database_url(self._text):
            raise UsageError(_("{url}: not a PostgreSQL URL (postgresql://...)").format(url=_without_password(
                self._text)))

    def __str__(self) -> str:
        return _without_password(self._text)

    def __repr__(self) -> str:
        return f"DatabaseURL({str(self)!r})"

    @property
    def name(self) -> str:
        """The database's name, or '' when libpq's defaults choose it."""
        return urlsplit(self._text).path.lstrip("/")

    def connect(self, *, autocommit: bool = True,
                application_name: str | None = None) -> psycopg.Connection[tuple[object, ...]]:
        """A connection to the database; `JournalError`, one line without the password, if there is none.
        `application_name`: who this is, as the server shows it to others (who holds a run)."""
        try:
            import psycopg
        except ImportError:
            raise UsageError(_("{url}: a record in PostgreSQL needs psycopg: pip install "
                               "'duplicate-bridge-dealer[postgresql]'").format(url=self)) from None
        options: dict[str, object] = {} if "connect_timeout=" in self._text else {"connect_timeout": CONNECT_TIMEOUT}
        if application_name is not None:
            options["application_name"] = application_name[:63]
        if "keepalives" not in self._text:  # a server gone silent (its computer off, a cable out) is found out
            options.update(KEEPALIVES)
        try:
            return psycopg.connect(self._text, autocommit=autocommit, **options)  # type: ignore[arg-type]
        except psycopg.Error as exc:
            raise JournalError(_("{url}: the PostgreSQL server cannot be reached: {cause}").format(
                url=self, cause=server_reason(exc, self._text))) from None


JournalPlace = Path | DatabaseURL
"""Where a record (a journal, a deal history) is: a file, or a PostgreSQL database by its URL."""


def record_place(text: str | Path | DatabaseURL) -> JournalPlace:
    """The record `text` names: a database by its ``postgresql://`` URL, else a file."""
    if isinstance(text, Path | DatabaseURL):
        return text
    return DatabaseURL(text) if is_database_url(text) else Path(text)


def record_folder(place: JournalPlace | str) -> Path:
    """The folder of this computer where what is kept beside a record goes (a practice history): the journal's
    own folder, or the current folder for a record in a database."""
    return Path.cwd() if isinstance(place, DatabaseURL) or is_database_url(place) else Path(place).absolute().parent


def hide_passwords(argv: Sequence[str]) -> None:
    """If a PostgreSQL URL of the command line holds a password, show the process to the computer's other users
    (``ps``, /proc) with that URL without it, as far as the system allows (setproctitle; the few moments before
    this runs cannot be helped, hence the advice to keep the password in libpq's password file)."""
    if not any(is_database_url(arg) and urlsplit(arg).password for arg in argv):
        return
    try:
        import setproctitle
    except ImportError:
        return
    setproctitle.setproctitle(" ".join(_without_password(arg) if is_database_url(arg) else arg for arg in argv))


def server_reason(exc: BaseException, secret: str = "") -> str:
    """A server's error as one line, with any password of `secret` taken out."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    password = urlsplit(secret).password if secret else None
    if password:
        text = text.replace(password, "***")
    return text


def _without_password(text: str) -> str:
    """The URL with its password (and any password= option) left out."""
    parts = urlsplit(text)
    netloc = parts.netloc
    if "@" in netloc:
        credentials, host = netloc.rsplit("@", 1)
        user = credentials.split(":", 1)[0]
        netloc = f"{user}@{host}" if user else host
    query = "&".join(p for p in parts.query.split("&") if p and not p.lower().startswith("password="))
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
