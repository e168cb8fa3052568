"""Nothing escapes the catalogue: a pseudo language whose every message is bracketed (⟦…~~⟧, made here from the
catalogue) is spoken over the demo, a run of every simulator scenario (every fault kind the machine and the
verifier name), its narrative and `dealer report`, the refusals of bad command lines, the console's pages and
the printouts; a line that still holds a word outside the brackets (names, files, ports and numbers set aside)
is a string that did not come from the catalogue."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import dealer.language as language
from dealer.cli import main
from dealer.language import catalogue
from tests.support.paths import ROOT
from tests.support.processes import ENV, run

PSEUDO = "xx"
OPEN, CLOSE = "⟦", "⟧"
INNERMOST = re.compile(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}")
NAMES = re.compile(
    r"\S+://\S*|[\w.~/-]*/[\w.~/-]*|[\w-]+\.(?:pbn|journal|json|sqlite|lock|toml|csv|html|pdf|svg|txt|journal-\w+|db)"
    r"\b|\bF\d+\b|\b\d+[A-Z]\d*\b|\b(?:dealer|demo|Big Deal|USB|scenario|loop|sim|club|session|m\d)\b"
    r"|--[\w-]+|\d+")


def pseudo_catalogue(folder: Path) -> Path:
    """The pseudo language's compiled catalogue under `folder` (a locale folder): every message of the Russian
    catalogue, said as itself in brackets, with English's two plural forms."""
    where = folder / PSEUDO / "LC_MESSAGES"
    where.mkdir(parents=True)
    source = catalogue.read("ru")
    for message in source:
        if message.id:
            message.string = (tuple(f"{OPEN}{m}~~{CLOSE}" for m in (*message.id, message.id[-1]))
                              if isinstance(message.id, list | tuple) else f"{OPEN}{message.id}~~{CLOSE}")
    (where / "dealer.mo").write_bytes(catalogue.compiled(source))
    return folder


def escaped(text: str) -> list[str]:
    """The lines of `text` with a word left once every bracketed message and every name is taken out."""
    bare = text
    while INNERMOST.search(bare):  # a message may hold others, and run over lines
        bare = INNERMOST.sub(lambda said: "\n" * said[0].count("\n") or " ", bare)
    return [line for line, left in zip(text.splitlines(), bare.splitlines(), strict=True)
            if re.search(r"[^\W\d_]{3,}", NAMES.sub(" ", left))]


@pytest.fixture(scope="module")
def locale_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return pseudo_catalogue(tmp_path_factory.mktemp("locale"))


@pytest.fixture
def pseudo(locale_folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This process speaks the pseudo language for the test, and gives its language back after."""
    monkeypatch.setattr(language, "LOCALE_DIR", locale_folder)
    monkeypatch.setitem(language.LANGUAGES, PSEUDO, "pseudo")
    with language.spoken_while_running():
        language.choose(PSEUDO)
        yield


def pseudo_command(locale_folder: Path, *argv: str, cwd: Path = ROOT) -> tuple[int, str, str]:
    """`dealer --lang xx ARGV` in its own process, the pseudo catalogue in place of the shipped ones."""
    code = ("import pathlib, sys, dealer.language as language; "
            f"language.LOCALE_DIR = pathlib.Path({str(locale_folder)!r}); language.LANGUAGES['xx'] = 'pseudo'; "
            "from dealer.cli import main; sys.exit(main(sys.argv[1:]))")
    done = run([sys.executable, "-c", code, "--lang", PSEUDO, *argv], cwd=cwd, env=ENV)
    return done.returncode, done.stdout, done.stderr


def test_the_demo_says_nothing_the_catalogue_does_not(locale_folder: Path, tmp_path: Path) -> None:
    code, out, err = pseudo_command(locale_folder, "demo", "--plain", "--speed", "200", "--keep", str(tmp_path / "d"))
    assert code == 0, err
    assert out.count(OPEN) > 40 and err.count(OPEN) > 60
    assert escaped(out + err) == []


def test_every_scenarios_lines_summary_narrative_and_report_come_from_the_catalogue(
        pseudo: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every scenario of the simulator (jams, a short pack, misfeeds, a turned or wrong board, a power cut, a
    pulled cable, a silent machine, an unreadable card, a double feed, ...) dealt on a machine in memory: its
    progress lines, its summary, the story of its incidents and `dealer report` of its journal."""
    from dealer.journal.narrative import incidents
    from dealer.journal.store import Journal
    from hil.loopback import Loopback
    from hil.scenarios import SCENARIOS
    from tests.support.loopback_run import deals_for, run_on_loopback

    said = []
    for number, scenario in enumerate(SCENARIOS):
        journal = tmp_path / f"{scenario.name}.journal"
        with Loopback(scenario.sim_config(seed=3)) as loop:
            result, lines = run_on_loopback(loop, deals_for(scenario.boards, seed=100 + number), journal)
        said += [lines, result.summary]
        with Journal.open_read_only(journal) as opened:
            said += [incident.text() for run in opened.runs() for incident in incidents(opened, run.id)]
        capsys.readouterr()
        assert main(["report", str(journal)]) == 0
        said.append(capsys.readouterr().out)
    text = "\n".join(said)
    assert text.count(OPEN) > 500
    assert escaped(text) == []


REFUSALS = [
    ["deal", "nothing-here.pbn", "--port", "sim://"],
    ["deal", "{pbn}", "--port", "/dev/ttyNOPE9", "--journal", "{tmp}/j.journal"],
    ["deal", "{pbn}", "--port", "sim://?faults=nope.json"],
    ["deal", "{pbn}", "--port", "sim://", "--set", "bad set!"],
    ["generate", "--boards", "0-3"],
    ["convert", "{tmp}/nothing.pbn", "-o", "{tmp}/x.dup"],
    ["report", "{tmp}/nothing.journal"],
    ["plan", "check", "{tmp}/nothing.toml"],
    ["history", "--history", "{tmp}/h.sqlite", "forget", "NOSUCH"],
]


@pytest.mark.parametrize("argv", REFUSALS, ids=lambda argv: " ".join(argv[:2]))
def test_a_refusal_is_the_catalogues(argv: list[str], locale_folder: Path, tmp_path: Path) -> None:
    pbn = tmp_path / "s.pbn"
    assert main(["generate", "--boards", "1-4", "-o", str(pbn)]) == 0
    code, out, err = pseudo_command(locale_folder, *[a.format(pbn=pbn, tmp=tmp_path) for a in argv])
    assert code != 0
    assert escaped(out + err) == [], out + err


def test_the_printouts_words_come_from_the_catalogue(locale_folder: Path, tmp_path: Path) -> None:
    """Hand records, curtain cards and the deals' statistics (HTML) and board labels (SVG): their text as a
    person reads it."""
    pbn = tmp_path / "s.pbn"
    assert main(["generate", "--boards", "1-4", "-o", str(pbn)]) == 0
    tags = re.compile(r"<style.*?</style>|<script.*?</script>|<[^>]+>", re.S)
    for command, kind in ((["records", str(pbn), "--no-dd"], "html"), (["curtains", str(pbn)], "html"),
                          (["labels", "--set", "A", "--boards", "1-4"], "svg"), (["stats", str(pbn)], "html")):
        out = tmp_path / f"{command[0]}.{kind}"
        code, _out, err = pseudo_command(locale_folder, *command, "-o", str(out))
        assert code == 0, err
        shown = tags.sub("\n", out.read_text(encoding="utf-8")).replace("&nbsp;", " ")
        shown = re.sub(r"(?m)^\s*[♠♥♦♣]?\s*[AKQJT2-9 —-]*$", "", shown)  # the hands' cards
        assert OPEN in shown
        assert escaped(shown) == [], command[0]


@pytest.mark.parametrize("page", ["/", "/start", "/report", "/director"])
def test_the_consoles_pages_words_come_from_the_catalogue(page: str, locale_folder: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from starlette.testclient import TestClient

    from dealer.dealing import sim_ports
    from dealer.serve.app import build_app
    from dealer.serve.auth import Access
    from tests.support.serve_room import make_session

    monkeypatch.setattr(language, "LOCALE_DIR", locale_folder)
    monkeypatch.setitem(language.LANGUAGES, PSEUDO, "pseudo")
    token = "the-operators-token"
    app = build_app(tmp_path / "work", Access(token, frozenset({"testserver"})), "24681357")
    try:
        with TestClient(app, headers={"Authorization": f"Bearer {token}"}) as client:
            make_session(tmp_path / "work")
            html = client.get(page + "?lang=xx").text
    finally:
        sim_ports.stop_all()
    words = re.search(r'<script type="application/json" id="words">(.*?)</script>', html, re.S)
    shown = re.sub(r"<style.*?</style>|<script.*?</script>|<[^>]+>", "\n", html, flags=re.S)
    assert OPEN in shown
    assert escaped(shown.replace("English", "").replace("Русский", "").replace("pseudo", "")) == []  # the switch
    if words:  # the words the page's script shows: English keys, said values
        assert escaped("\n".join(json.loads(words.group(1)).values())) == []
