"""Who may use the console: every request checked before it reaches a page.

Bound to a loopback address the console needs no token: only this computer can reach it. Bound to any
other address it needs one (`dealer serve` refuses to start without it): a request carries it as
``Authorization: Bearer TOKEN``, or as ``?token=TOKEN`` once (the browser is then given it as a cookie
and sent to the same page without it), or the cookie; any other request gets 401. Whatever the address,
a request must name this server in its Host header (a web page elsewhere cannot reach it by DNS
rebinding), and a form or API call that changes something must come from this server's own pages
(its Origin, when the browser sends one, is this server): no other site can start or stop a run.

The director's unlock is separate (`dealer.serve.director`): the token lets a person watch the room,
not see a deal.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from dataclasses import dataclass
from http.cookies import SimpleCookie
from typing import Any, Final
from urllib.parse import parse_qsl, urlencode, urlsplit

COOKIE: Final = "dealer_token"
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
    """The rules of one server: its token (None: loopback, no token) and the hosts it answers to."""

    token: str | None
    hosts: frozenset[str] | None
    """The Host names it answers to; None: any (with a token, a page elsewhere cannot use it)."""

    def token_ok(self, given: str | None) -> bool:
        return self.token is None or (given is not None and hmac.compare_digest(given.encode(), self.token.encode()))


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


class AccessMiddleware:
    """The ASGI guard in front of every route (pages, API, events, downloads)."""

    def __init__(self, app: Any, access: Access) -> None:
        self.app = app
        self.access = access

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        host = headers.get("host", "")
        hosts = self.access.hosts
        if hosts is not None and host.rsplit(":", 1)[0].strip("[]") not in hosts and host not in hosts:
            await _plain(send, 400, f"this console does not answer to the host {host!r}")
            return
        if scope["method"] not in SAFE_METHODS:
            origin = headers.get("origin")
            if origin is not None and urlsplit(origin).netloc != host:
                await _plain(send, 403, "a change must come from this console's own pages")
                return
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        if self.access.token is not None:
            given_query = query.get("token")
            if given_query is not None and self.access.token_ok(given_query):
                await _redirect_with_cookie(send, scope, query, given_query)
                return
            bearer = headers.get("authorization", "")
            cookie = SimpleCookie()
            cookie.load(headers.get("cookie", ""))
            given = (bearer.removeprefix("Bearer ").strip() if bearer.startswith("Bearer ")
                     else cookie[COOKIE].value if COOKIE in cookie else None)
            if not self.access.token_ok(given):
                await _plain(send, 401, "401: this console needs its access token (the address printed when "
                                        "dealer serve started)", [(b"www-authenticate", b"Bearer")])
                return
        await self.app(scope, receive, send)


async def _plain(send: Any, status: int, text: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = (text + "\n").encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()), *(extra or [])]})
    await send({"type": "http.response.body", "body": body})


async def _redirect_with_cookie(send: Any, scope: Scope, query: dict[str, str], token: str) -> None:
    rest = {k: v for k, v in query.items() if k != "token"}
    location = scope.get("path", "/") + (f"?{urlencode(rest)}" if rest else "")
    cookie = f"{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict"
    await send({"type": "http.response.start", "status": 303,
                "headers": [(b"location", location.encode()), (b"set-cookie", cookie.encode()),
                            (b"content-length", b"0")]})
    await send({"type": "http.response.body", "body": b""})
