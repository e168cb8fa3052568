"""The console speaks its browser's language: every page asked for with Accept-Language ru is Russian (its
`lang`, its words, the words its script shows), the switch on every page chooses and is remembered, and
English stays the language of a browser that asks for none the console speaks."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from dealer.dealing import sim_ports
from dealer.serve.app import build_app
from dealer.serve.auth import Access
from dealer.serve.languages import accepted
from tests.support.serve_room import make_session

TOKEN = "the-operators-token"
OPERATOR = {"Authorization": f"Bearer {TOKEN}"}
CYRILLIC = re.compile(r"[А-Яа-яЁё]")
TAG = re.compile(r"<script.*?</script>|<[^>]+>", re.S)
NAMES = re.compile(r"\b(?:dealer|English|PIN|CSV|JSON|SVG|HTML|USB|session\.pbn|toml|Law|A:7:SN:X|sim-\d|dev|tty\w*)\b"
                   r"|[\w./-]*\d[\w./-]*")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = build_app(tmp_path / "work", Access(TOKEN, frozenset({"testserver"})), "24681357")
    try:
        with TestClient(app, headers=OPERATOR) as running:
            make_session(tmp_path / "work")
            yield running
    finally:
        sim_ports.stop_all()


def english_lines(html: str) -> list[str]:
    """The lines of a page's text with a Latin word of three letters or more and no Cyrillic, names set aside."""
    text = TAG.sub("\n", html)
    return [line.strip() for line in text.splitlines()
            if not CYRILLIC.search(line) and re.search(r"[A-Za-z]{3,}", NAMES.sub(" ", line))]


@pytest.mark.parametrize("page", ["/", "/start", "/report", "/director"])
def test_every_page_asked_for_in_russian_is_russian(client: TestClient, page: str) -> None:
    html = client.get(page, headers={"Accept-Language": "ru-RU,ru;q=0.9,en;q=0.8"}).text
    assert '<html lang="ru">' in html
    assert english_lines(html) == []
    english = client.get(page, headers={"Accept-Language": "de-DE,fr;q=0.5"}).text  # none spoken: English
    assert '<html lang="en">' in english and not CYRILLIC.search(TAG.sub(" ", english).replace("Русский", ""))


def test_the_words_a_script_shows_come_with_its_page_in_its_language(client: TestClient) -> None:
    html = client.get("/", headers={"Accept-Language": "ru"}).text
    words = json.loads(re.search(r'<script type="application/json" id="words">(.*?)</script>', html, re.S)[1])
    assert words["{verified}/{total} boards verified"] == "проверено сдач: {verified}/{total}"
    assert words["label checked"] == "этикетка проверена" and words["reconnecting..."] == "переподключение..."
    assert all(CYRILLIC.search(said) for message, said in words.items() if re.search(r"[a-z]{3,}", message))


def test_the_switch_chooses_and_is_remembered_over_the_browsers_language(client: TestClient) -> None:
    russian_browser = {"Accept-Language": "ru"}
    switched = client.get("/start?lang=en", headers=russian_browser)
    assert '<html lang="en">' in switched.text and "dealer_lang" in switched.headers["set-cookie"]
    assert '<html lang="en">' in client.get("/", headers=russian_browser).text  # remembered
    assert '<html lang="ru">' in client.get("/?lang=ru").text
    assert '<html lang="ru">' in client.get("/report", headers={"Accept-Language": "en"}).text


@pytest.mark.parametrize(("header", "language"), [
    ("ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7", "ru"), ("en-GB,ru;q=0.5", "en"), ("de,ru;q=0.3", "ru"),
    ("ru;q=0.2,en;q=0.9", "en"), ("*", None), ("", None), ("ru;q=0", None), ("RU", "ru"), ("ru;q=abc,en", "en"),
])
def test_accept_language_is_read_by_its_preferences(header: str, language: str | None) -> None:
    assert accepted(header) == language
