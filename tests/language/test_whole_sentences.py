"""Lists said as the language joins them (Babel's list patterns), and messages that are whole: no catalogue
message of the modules that tell a run (the narrative, the run report) or join lists is a glued fragment."""

from __future__ import annotations

from pathlib import Path

import pytest

from dealer.language import ListStyle, catalogue, listed, speaking
from tests.support.spoken import dealer


@pytest.mark.parametrize(("language", "items", "style", "said"), [
    ("en", ["a"], "standard", "a"),
    ("en", ["a", "b"], "standard", "a and b"),
    ("en", ["a", "b", "c"], "standard", "a, b, and c"),
    ("ru", ["a", "b"], "standard", "a и b"),
    ("ru", ["a", "b", "c"], "standard", "a, b и c"),
    ("en", [".pdf", ".html"], "or", ".pdf or .html"),
    ("ru", [".pdf", ".html"], "or", ".pdf или .html"),
])
def test_a_list_is_joined_as_the_language_joins_it(language: str, items: list[str], style: ListStyle,
                                                   said: str) -> None:
    with speaking(language):
        assert listed(items, style) == said


GLUED = (" and ", " or ", " and {count} more", ", then ", ", simulated", "; ")
"""Pieces that were glued to other messages: a conjunction, a clause's tail."""

WHOLE_NOW = ("dealer/journal/narrative.py", "dealer/journal/run_report.py", "dealer/cli/generate.py",
             "dealer/cli/stats.py", "dealer/cli/ports.py", "dealer/cli/plan.py", "dealer/formats/__init__.py",
             "dealer/dealing/machine.py", "dealer/printing/outputs.py", "dealer/verify/board_check.py",
             "dealer/journal/events.py", "dealer/dealing/progress.py")


def test_no_glued_fragment_is_a_message_of_these_modules() -> None:
    found = []
    for (message, _context), places in catalogue.extracted().items():
        text = message if isinstance(message, str) else message[0]
        files = {file for file, _line in places}
        if files & set(WHOLE_NOW) and (text in GLUED or text.endswith("; ") or text.startswith((", ", " ("))):
            found.append((text, sorted(files)))
    assert found == []


def test_the_narrative_tells_what_was_done_and_the_outcome_in_whole_clauses() -> None:
    """A board refused, then dealt: the clause of what was done and the outcome are one message's fields."""
    from types import SimpleNamespace

    from dealer.journal import narrative
    from dealer.journal.store import JobState
    from dealer.language import _ as say

    job = SimpleNamespace(state=JobState.VERIFIED, attempt=2)
    with speaking("ru"):
        done = say("the right board, checked straight and empty, was dealt")
        said = narrative._outcome(job, done)  # type: ignore[arg-type]
    assert said == ("сдача роздана в нужную коробку (проверено: стоит ровно, пуста); проверена после пересдачи той "
                    "же сдачи (попытка 2)")


def test_generate_says_what_it_wrote_in_one_russian_sentence(tmp_path: Path) -> None:
    code, out, err = dealer("--lang", "ru", "generate", "--boards", "1-2", "-o", str(tmp_path / "a.pbn"), "-o",
                            str(tmp_path / "b.dup"))
    assert code == 0, err
    assert out == f"записаны 2 сдачи (1-2) в {tmp_path / 'a.pbn'} и {tmp_path / 'b.dup'}, генератор bigdeal\n"
    code, out, err = dealer("--lang", "ru", "generate", "--boards", "1-5", "-o", str(tmp_path / "c.pbn"))
    assert out == f"записано 5 сдач (1-5) в {tmp_path / 'c.pbn'}, генератор bigdeal\n"
