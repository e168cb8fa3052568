"""Who may use the console: every request checked before it reaches a page, every answer guarded.

Whatever the address it listens on, the console has an access token, made when it starts and printed in
its address (``http://127.0.0.1:8000/?token=...``, as Jupyter does) or written to a file: on this computer
too, another user or process is a stranger. A request carries it as ``Authorization: Bearer TOKEN``, or
as ``?token=TOKEN`` once (the browser is then given it as a cookie, named after the port so that two
consoles do not take each other's, and sent to the same page without it), or the cookie; any other
request gets 401. A request must name this server in its Host header (a web page elsewhere cannot reach
it by DNS rebinding), and a form or API call that changes something must come from this server's own
pages (its Origin, when the browser sends one, is this server): no other site can start or stop a run.

Every answer, a refusal included, carries `GUARD_HEADERS`: no page of the console may be framed by
another (X-Frame-Options, CSP frame-ancestors), and its pages run only the console's own scripts.

The director's unlock is separate (`dealer.serve.director`): the token lets a person watch the room,
not see a deal.
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie
from typing import Any, Final
from urllib.parse import parse_qsl, urlencode, urlsplit

from dealer.language import _

COOKIE: Final = "dealer_token"
"""The access cookie's name, followed by the console's port."""
CSP: Final = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
              "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
GUARD_HEADERS: Final = ((b"x-frame-options", b"DENY"), (b"content-security-policy", CSP.encode()),
                        (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"same-origin"),
                        (b"cross-origin-opener-policy", b"same-origin"),
                        (b"cross-origin-resource-policy", b"same-origin"))
SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})
Scope = dict[str, Any]


def new_token() -> str:
    """A fresh access token (URL-safe, 256 bits)."""
    return secrets.token_urlsafe(32)


def is_loopback(host: str) -> bool:
    """True for 127.0.0.1, ::1, localhost: addresses only this computer reaches."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Access:
    """The rules of one server: its token and the hosts it answers to."""

    token: str
    hosts: frozenset[str] | None
    """The Host names it answers to; None: any (with a token, a page elsewhere cannot use it)."""

    def token_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())


def cookie_name(scope: Mapping[str, Any], base: str = COOKIE) -> str:
    """The access cookie (or another cookie `base`) of the console serving `scope`: cookies are shared by
    every port of a host, so the name carries the port."""
    server = scope.get("server")
    return f"{base}_{server[1]}" if server and server[1] is not None else base


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


def cookie_value(scope: Scope, base: str = COOKIE) -> str | None:
    """The value of this console's cookie `base` in a request (`cookie_name`), or None (none, or a malformed
    Cookie header)."""
    cookie: SimpleCookie = SimpleCookie()
    with contextlib.suppress(CookieError):
        cookie.load(_headers(scope).get("cookie", ""))
    name = cookie_name(scope, base)
    return cookie[name].value if name in cookie else None


class AccessMiddleware:
    """The ASGI guard in front of every route (pages, API, events, downloads)."""

    def __init__(self, app: Any, access: Access) -> None:
        self.app = app
        self.access = access

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self._checked(scope, receive, _guarded(send))

    async def _checked(self, scope: Scope, receive: Any, send: Any) -> None:
        headers = _headers(scope)
        host = headers.get("host", "")
        hosts = self.access.hosts
        if hosts is not None and host.rsplit(":", 1)[0].strip("[]") not in hosts and host not in hosts:
            await _plain(send, 400, _("this console does not answer to the host {host}").format(host=repr(host)))
            return
        if scope["method"] not in SAFE_METHODS:
            origin = headers.get("origin")
            if origin is not None and urlsplit(origin).netloc != host:
                await _plain(send, 403, _("a change must come from this console's own pages"))
                return
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        given_query = query.get("token")
        if given_query is not None and self.access.token_ok(given_query):
            await _redirect_with_cookie(send, scope, query, given_query)
            return
        bearer = headers.get("authorization", "")
        given = bearer.removeprefix("Bearer ").strip() if bearer.startswith("Bearer ") else cookie_value(scope)
        if not self.access.token_ok(given):
            await _plain(send, 401, _("401: this console needs its access token (the address printed when dealer "
                                      "serve started)"), [(b"www-authenticate", b"Bearer")])
            return
        await self.app(scope, receive, send)


def _guarded(send: Any) -> Any:
    """`send`, with `GUARD_HEADERS` added to the start of every response."""
    async def guarded(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            names = {k.lower() for k, _ in message.get("headers", [])}
            extra = [(k, v) for k, v in GUARD_HEADERS if k not in names]
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return guarded


async def _plain(send: Any, status: int, text: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = (text + "\n").encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()), *(extra or [])]})
    await send({"type": "http.response.body", "body": body})


async def _redirect_with_cookie(send: Any, scope: Scope, query: dict[str, str], token: str) -> None:
    rest = {k: v for k, v in query.items() if k != "token"}
    location = scope.get("path", "/") + (f"?{urlencode(rest)}" if rest else "")
    cookie = f"{cookie_name(scope)}={token}; Path=/; HttpOnly; SameSite=Strict"
    await send({"type": "http.response.start", "status": 303,
                "headers": [(b"location", location.encode()), (b"set-cookie", cookie.encode()),
                            (b"content-length", b"0")]})
    await send({"type": "http.response.body", "body": b""})
