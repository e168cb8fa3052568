"""Which language a request of the console is answered in: the one its page's switch chose (``?lang=ru``,
then remembered in a cookie), else the browser's Accept-Language, else English. Every page, answer and line
of the request is said in it (`dealer.language.speaking`).
"""

from __future__ import annotations

from typing import Any, Final
from urllib.parse import parse_qs

from dealer.language import LANGUAGES, language_of, speaking
from dealer.serve.auth import cookie_name, cookie_value

COOKIE: Final = "dealer_lang"
"""The cookie that remembers the page's language switch, followed by the console's port."""
Scope = dict[str, Any]


def accepted(header: str) -> str | None:
    """The language of an Accept-Language header the console speaks, by the header's preference: 'ru' for
    'ru-RU,ru;q=0.9,en;q=0.8'; None if it names none of them."""
    ranked = []
    for k, part in enumerate(header.split(",")[:32]):
        name, _, params = part.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                weight = 0.0
        code = language_of(name) if name.strip() != "*" else None
        if code is not None and weight > 0:
            ranked.append((-weight, k, code))
    return min(ranked)[2] if ranked else None


def chosen(scope: Scope) -> tuple[str, bool]:
    """The language of a request, and whether its switch chose it now (to be remembered)."""
    asked = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("lang", [""])[-1]
    if asked and language_of(asked) is not None:
        return str(language_of(asked)), True
    remembered = cookie_value(scope, COOKIE)
    if remembered in LANGUAGES:
        return str(remembered), False
    accept = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k.lower() == b"accept-language"), "")
    return accepted(accept) or "en", False


class LanguageMiddleware:
    """Answers each HTTP request in its language; a switch's choice is remembered in the cookie."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        language, switched = chosen(scope)

        async def remembering(message: dict[str, Any]) -> None:
            if switched and message["type"] == "http.response.start":
                cookie = f"{cookie_name(scope, COOKIE)}={language}; Path=/; Max-Age=31536000; SameSite=Strict"
                message["headers"] = [*message.get("headers", []), (b"set-cookie", cookie.encode("latin-1"))]
            await send(message)

        with speaking(language):
            await self.app(scope, receive, remembering)
