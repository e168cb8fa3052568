"""The Russian catalogue says the Laws' words (dealer.language.glossary): no translation holds a form the
glossary forbids, in any case form; and the check is shown to catch each kind of word it forbids."""

from __future__ import annotations

import io

import pytest
from babel.messages.pofile import read_po, write_po

from dealer.language import catalogue, glossary
from dealer.language.glossary import RUSSIAN


def test_the_russian_catalogue_says_the_laws_words() -> None:
    found = glossary.breaches(glossary.translations(catalogue.read("ru")))
    assert [(b.message, b.translation, b.rule) for b in found] == []


def test_the_glossary_names_the_laws_terms() -> None:
    named = {term.english for term in RUSSIAN}
    assert {"board", "pocket", "deal", "redeal", "dealer", "vulnerability", "irregularity", "director",
            "shuffling"} <= named
    boards = {term.meaning for term in RUSSIAN if term.english == "board"}
    assert len(boards) == 2  # the tray and the numbered deal: коробка and сдача
    assert all(term.laws and term.forbidden and term.caught for term in RUSSIAN)


@pytest.mark.parametrize("term", RUSSIAN, ids=lambda term: f"{term.english}: {term.meaning}")
def test_each_term_catches_its_forbidden_forms_and_lets_the_laws_words_pass(term: glossary.Term) -> None:
    for text in term.caught:
        assert glossary.breaches([("message", text)], [term]), text
    for text in term.laws:
        assert glossary.breaches([("message", text)]) == [], text


SPOILED = {
    "insert board {set} {board}": "вставьте сдачу {set} {board}",
    "pack made whole before a redeal": "колода восстановлена перед ПЕРЕРАЗДАЧЕЙ",
    "perfect shuffle (exact)": "идеальная тасовка (точно)",
    "Faults by type and Law": "Ошибки по видам и Правилам",
    "serve a simulated dealing machine (a pseudo-terminal, or --tcp)": "запустить модель сдающей машины",
}


def test_a_catalogue_with_forbidden_words_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Russian catalogue with five translations spoiled (a tray called сдача, перераздача in capitals,
    тасовка, ошибки for irregularities, the player's word for a machine), written and read back as a .po:
    each spoiled message is caught, and nothing else."""
    spoiled = catalogue.read("ru")
    for message_id, text in SPOILED.items():
        message = spoiled.get(message_id)
        assert message is not None, message_id
        message.string = text
    (plural,) = [m for m in spoiled if isinstance(m.id, tuple) and m.id[0].startswith("hand shuffling model")]
    assert isinstance(plural.string, list | tuple)
    plural.string = (*plural.string[:2], "модель: {shuffles} тасовок врезкой на расклад")
    written = io.BytesIO()
    write_po(written, spoiled)
    found = glossary.breaches(glossary.translations(read_po(io.BytesIO(written.getvalue()), locale="ru")))
    assert {b.message for b in found} == {*SPOILED, plural.id[0]}
    assert {b.term for b in found} >= {"board", "redeal", "shuffling", "irregularity", "dealer"}
    monkeypatch.setattr(catalogue, "read", lambda language: read_po(io.BytesIO(written.getvalue()), locale="ru"))
    said = [problem for problem in catalogue.problems("ru") if "glossary forbids" in problem]
    assert len(said) == len(found) and any("'insert board {set} {board}'" in line for line in said)
