"""`python -m dealer.language.catalogue init LANG` starts a language: its dealer.po holds every message the code
marks, untranslated, with the language's plural rules; an existing one is never replaced."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from dealer.language import LOCALE_DIR, catalogue


@pytest.fixture
def locale_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    copy = tmp_path / "locale"
    shutil.copytree(LOCALE_DIR, copy)
    monkeypatch.setattr(catalogue, "LOCALE_DIR", copy)
    return copy


def test_init_makes_a_new_languages_catalogue_of_every_message(locale_copy: Path, capsys: pytest.CaptureFixture[str]) \
        -> None:
    assert catalogue.main(["init", "pl"]) == 0
    made = locale_copy / "pl" / "LC_MESSAGES" / "dealer.po"
    assert capsys.readouterr().out == f"made {made}\n"
    with made.open("rb") as f:
        po = read_po(f, locale="pl")
    ids = {(m.id if isinstance(m.id, str) else tuple(m.id), m.context) for m in po if m.id}
    assert ids == set(catalogue.extracted())
    assert all(not (any(m.string) if isinstance(m.string, tuple) else m.string) for m in po if m.id)
    assert po.num_plurals == 3 and "n%10>=2" in po.plural_expr.replace(" ", "")
    assert not (LOCALE_DIR / "pl").exists()


def test_init_never_replaces_a_catalogue(locale_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (locale_copy / "ru" / "LC_MESSAGES" / "dealer.po").read_bytes()
    assert catalogue.main(["init", "ru"]) == 1
    assert "exists already" in capsys.readouterr().err
    assert (locale_copy / "ru" / "LC_MESSAGES" / "dealer.po").read_bytes() == before
    assert catalogue.main(["init", "zz_nowhere"]) == 1
