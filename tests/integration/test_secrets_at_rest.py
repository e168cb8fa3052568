"""Secrets at rest, through the commands a user runs: every file that names cards is created 0600 under
the strict umask 077 and under the usual 022; a file with no secret is never looser than the umask asks;
the JSON run report names no card unless asked; and no output or journal is written through a link.

Each `dealer` runs as its own process with the umask given to it; modes are read with `os.stat`, and the
report is read back as plain JSON, its strings searched for cards with patterns written here.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dealer import formats
from dealer.core.dealset import DealSet
from dealer.journal.history import DealHistory
from tests.support import plan_texts
from tests.support.deals import random_deals
from tests.support.processes import dealer

STRICT, USUAL = 0o077, 0o022
SIM = "sim://?speed=200"

CARD_FAULTS = [  # `board` is the k-th dealing (redeals counted): faults whose texts name cards, F1 F2 F3 F5,
    {"kind": "card_falls", "board": 1, "card": 7},
    {"kind": "misfeed", "board": 3, "card": 5},
    {"kind": "swapped_cards", "board": 5, "card": 5},
    {"kind": "foreign_card", "board": 7, "card": 9, "detected": False},
    {"kind": "jam", "board": 9, "card": 5},  # and a machine's own fault, put right
]

SUIT_AND_RANK = re.compile(r"[♠♥♦♣](?:10|[AKQJT98765432])")
"""A card as a director reads it, e.g. ♠A, ♥10."""
TWO_LETTERS = re.compile(r"\b[SHDC][AKQJT98765432]\b")
"""A card by its two-letter name, e.g. SA, H2."""
PBN_HAND = re.compile(r"[AKQJT98765432]*\.[AKQJT98765432]*\.[AKQJT98765432]*\.[AKQJT98765432]*")
"""A hand as PBN writes it (spades.hearts.diamonds.clubs), e.g. AK2.QJT.9876.543."""
CARD_KEYS = frozenset({"cards", "unseen", "message", "text"})
"""Keys whose values are cards or texts naming them."""


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def deal_file(tmp_path: Path) -> Path:
    path = tmp_path / "session.pbn"
    formats.write_file(path, DealSet.from_deals(random_deals(11, 8), list(range(1, 9))))
    return path


@pytest.fixture(autouse=True)
def _own_history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEALER_HISTORY", str(tmp_path / "history.sqlite"))
    DealHistory.open(tmp_path / "history.sqlite", create=True).close()


# --- modes ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("umask", [STRICT, USUAL], ids=["umask077", "umask022"])
def test_files_naming_cards_are_0600_under_any_umask(umask: int, deal_file: Path, tmp_path: Path) -> None:
    made = dealer("generate", "--boards", "1-8", "-o", "s.pbn", cwd=tmp_path, umask=umask)
    assert made.returncode == 0, made.stderr
    converted = dealer("convert", "s.pbn", "s.dup", cwd=tmp_path, umask=umask)
    assert converted.returncode == 0, converted.stderr
    records = dealer("records", "s.pbn", "-o", "records.html", "--no-dd", cwd=tmp_path, umask=umask)
    assert records.returncode == 0, records.stderr
    plan_texts.write(tmp_path, plan_texts.BASE)
    planned = dealer("plan", "congress.toml", "--generate", cwd=tmp_path, umask=umask)
    assert planned.returncode == 0, planned.stderr
    dealt = dealer("deal", str(deal_file), "--port", SIM, "--report", "run.json", "--show-cards", cwd=tmp_path,
                   umask=umask)
    assert dealt.returncode == 0, dealt.stderr
    secret = [tmp_path / name for name in ("s.pbn", "s.dup", "records.html", "deals/MON1.pbn", "deals/MON2.pbn",
                                           "run.json", "session.pbn.journal", "session.pbn.journal.lock",
                                           "history.sqlite")]
    assert {p.name: oct(mode(p)) for p in secret} == {p.name: "0o600" for p in secret}


@pytest.mark.parametrize("umask", [STRICT, USUAL, 0o027], ids=["umask077", "umask022", "umask027"])
def test_files_with_no_secret_are_never_looser_than_the_umask_asks(umask: int, deal_file: Path,
                                                                   tmp_path: Path) -> None:
    dealt = dealer("deal", str(deal_file), "--port", SIM, "--report", "run.json", cwd=tmp_path, umask=umask)
    assert dealt.returncode == 0, dealt.stderr
    reported = dealer("report", "session.pbn.journal", "-o", "again.csv", cwd=tmp_path, umask=umask)
    assert reported.returncode == 0, reported.stderr
    figures = dealer("stats", str(deal_file), "-o", "stats.html", cwd=tmp_path, umask=umask)
    assert figures.returncode == 0, figures.stderr
    public = [tmp_path / name for name in ("run.json", "again.csv", "stats.html")]
    assert {p.name: oct(mode(p)) for p in public} == {p.name: oct(0o666 & ~umask) for p in public}
    assert mode(tmp_path / "session.pbn.journal") == 0o600


# --- the JSON run report ------------------------------------------------------------------------------


def strings_and_keys(value: Any) -> Iterator[tuple[str, str]]:
    """Every (key, string) of a JSON value: each string with the key it sits under (keys too, as strings)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield "", str(key)
            for _, text in strings_and_keys(item):
                yield str(key), text
            if key in CARD_KEYS and item not in (None, "", [], {}):
                yield str(key), "<card key>"
    elif isinstance(value, list):
        for item in value:
            yield from strings_and_keys(item)
    elif isinstance(value, str):
        yield "", value


def cards_named(report: Path) -> list[str]:
    """Each string of the report that names a card (or a key that holds cards), as found."""
    found = []
    for key, text in strings_and_keys(json.loads(report.read_text(encoding="utf-8"))):
        if text == "<card key>" or SUIT_AND_RANK.search(text) or TWO_LETTERS.search(text) or (
                PBN_HAND.search(text) and len(PBN_HAND.search(text).group()) > 3):  # type: ignore[union-attr]
            found.append(f"{key}: {text}")
    return found


def test_the_json_run_report_names_cards_only_with_show_cards(deal_file: Path, tmp_path: Path) -> None:
    plan = tmp_path / "faults.json"
    plan.write_text(json.dumps({"faults": CARD_FAULTS}))
    for name, extra in (("blind", []), ("shown", ["--show-cards"])):
        dealt = dealer("deal", str(deal_file), "--port", f"sim://?speed=200&faults={plan}", "--journal",
                       f"{name}.journal", "--replay", "--report", f"{name}.json", *extra, cwd=tmp_path, umask=USUAL)
        assert dealt.returncode == 0, dealt.stderr
    shown, blind = tmp_path / "shown.json", tmp_path / "blind.json"
    assert len(cards_named(shown)) >= len(CARD_FAULTS)  # the reader finds the cards where they are
    assert cards_named(blind) == []
    faults = [f for entry in json.loads(blind.read_text())["faults"] for f in entry["faults"]]
    codes = {f["code"] for f in faults}
    assert codes == {"F1", "F2", "F3", "F5", "machine"}, codes  # every fault is still there, by code, Law, action
    assert all(f["law"].startswith("Law") and f["action"] for f in faults if f["code"] != "machine")
    assert (mode(blind), mode(shown)) == (0o644, 0o600)  # under umask 022: only the report naming cards is private
    rebuilt = dealer("report", "shown.journal", "-o", "rebuilt.json", cwd=tmp_path)  # from the journal alone
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "F1" in (tmp_path / "rebuilt.json").read_text() and cards_named(tmp_path / "rebuilt.json") == []


# --- never through a link -------------------------------------------------------------------------------


def test_an_output_that_is_a_link_is_refused_with_or_without_force(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = tmp_path / "s.pbn"
    link.symlink_to(elsewhere / "deals.pbn")
    for force in ([], ["--force"]):
        made = dealer("generate", "--boards", "1-8", "-o", str(link), *force, cwd=tmp_path)
        assert made.returncode == 4, made.stderr
        assert made.stderr.splitlines() == [f"dealer: error: {link}: is a symbolic link (to "
                                            f"{elsewhere / 'deals.pbn'}); dealer does not write through a link: "
                                            "name the file itself, or remove the link"]
        assert list(elsewhere.iterdir()) == [] and link.is_symlink()
    (elsewhere / "deals.pbn").write_text("keep me")
    replaced = dealer("generate", "--boards", "1-8", "-o", str(link), "--force", cwd=tmp_path)
    assert replaced.returncode == 4 and "is a symbolic link" in replaced.stderr
    assert (elsewhere / "deals.pbn").read_text() == "keep me" and link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "history.sqlite", "s.pbn"]  # no temporary file


@pytest.mark.parametrize("side", ["", "-wal", ".lock"])
def test_a_journal_that_is_a_link_is_refused_and_nothing_made_at_its_target(side: str, deal_file: Path,
                                                                           tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    journal = tmp_path / "run.journal"
    link = Path(f"{journal}{side}")
    link.symlink_to(elsewhere / "target")
    dealt = dealer("deal", str(deal_file), "--port", SIM, "--journal", str(journal), cwd=tmp_path)
    assert dealt.returncode == 9, dealt.stderr
    assert dealt.stderr.splitlines()[-1] == (f"dealer: error: {link}: is a symbolic link (to {elsewhere / 'target'}); "
                                             "dealer does not write through a link: name the file itself, or "
                                             "remove the link")
    assert list(elsewhere.iterdir()) == [] and link.is_symlink()
    link.unlink()
    again = dealer("deal", str(deal_file), "--port", SIM, "--journal", str(journal), cwd=tmp_path)
    assert again.returncode == 0, again.stderr  # nothing left behind that blocks the next run
    assert mode(journal) == 0o600


def test_a_card_read_twice_is_not_named_on_screen_in_the_report_or_in_the_journal(deal_file: Path,
                                                                                  tmp_path: Path) -> None:
    plan = tmp_path / "faults.json"
    plan.write_text(json.dumps({"faults": [{"kind": "duplicate_card", "board": 2, "card": 9}]}))
    dealt = dealer("deal", str(deal_file), "--port", f"sim://?speed=200&faults={plan}", "--journal", "j.db",
                   "--report", "run.json", cwd=tmp_path)
    assert dealt.returncode == 0, dealt.stderr
    lines = [line for line in dealt.stderr.splitlines() if "card read twice" in line]
    assert lines == [line.split(" while dealing")[0] + " while dealing: clear the card path, going on"
                     for line in lines]  # nothing between the fault's words and 'while dealing': not the card
    assert lines and not any("detail" in line for line in lines), lines  # the machine's detail is the card
    assert "card read twice" in (tmp_path / "run.json").read_text() and cards_named(tmp_path / "run.json") == []
    with contextlib.closing(sqlite3.connect(tmp_path / "j.db")) as db:
        rows = db.execute("SELECT detail FROM events WHERE kind LIKE 'machine-fault%'").fetchall()
    details = [json.loads(row[0]) for row in rows]
    assert details and all(d.get("name") == "DUPLICATE_CARD" and d.get("detail") is None for d in details), details
