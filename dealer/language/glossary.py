"""The words of the Laws in each language dealer speaks, and the forms not to use: a catalogue's messages are
checked against them (`breaches`). Russian follows the Russian text of the Laws («Правило»): коробка for the
tray, сдача for the numbered deal, пересдача, нарушение, судья, тасование.

Each rule is a regular expression, matched case-insensitively from a word's start in every translation, written
for every case form (ошибка ... ошибок); `caught` holds texts it must catch, `laws` the words it must let pass.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Term:
    """One English term, the Laws' words for it in a language, and the forms forbidden there."""

    english: str
    meaning: str
    laws: tuple[str, ...]
    forbidden: tuple[str, ...]
    caught: tuple[str, ...]
    """Texts the forbidden forms catch (every rule at least one)."""

    def rules(self) -> Iterator[re.Pattern[str]]:
        for rule in self.forbidden:
            yield re.compile(rule, re.IGNORECASE)


_W: Final = r"[\w-]+"
"""A word, in a rule."""

RUSSIAN: Final = (
    Term("board", "the tray with four pockets", ("коробка", "вставьте коробку A 6", "этикетка коробки"),
         (rf"\bвстав\w*\s+(?:(?!коробк|коробок){_W}\s+){{0,4}}сдач\w*", r"\bэтикетк\w*\s+сдач\w*",
          r"\bне\s+ту\s+сдач\w*", r"\bвын\w*\s+сдач\w*", r"\bчуж\w*\s+сдач\w*", r"\bотверг\w*\s+сдач\w*"),
         ("вставьте сдачу A 6", "оператор вставит сдачу", "Этикетки сдач", "этикетку сдачи", "вставляет не ту сдачу",
          "вставьте любую ещё не розданную сдачу", "выньте сдачу", "отвергает чужую сдачу", "отвергнуто сдач 2")),
    Term("board", "the numbered deal (board 5)", ("сдача", "сдача 5"), (r"\bборд\w*",), ("борд 5",)),
    Term("pocket", "a hand's place in the board", ("карман",), (r"\bяче(?:йк\w*|ек)\b", r"\bотсек\w*"),
         ("ячейка Севера", "в отсеке С", "четыре ячеек")),
    Term("deal", "the cards' layout", ("расклад",), (r"\bсдел(?:к\w*|ок)\b",), ("сделка 5", "сделок")),
    Term("redeal", "dealing the same deal again", ("пересдача", "пересдать", "пересдайте ту же сдачу"),
         (r"\bперераз\w*", rf"\bраздать\s+(?:{_W}\s+){{0,4}}заново\b"),
         ("перераздача", "после перераздачи", "Перераздачей", "раздать ту же сдачу заново")),
    Term("dealer", "the player who deals", ("сдающий", "Сдающий: Север"),
         (r"\bсдающ(?:ая|ей|ую|ие|их|ими|им)\s+машин\w*", r"\bдилер\w*"),
         ("сдающая машина", "на сдающих машинах", "дилер")),
    Term("dealing machine", "a machine that deals", ("раздающая машина", "машина для раздачи"),
         (rf"\bмодел\w*\s+(?:{_W}\s+)?машин\w*",), ("модель машины", "на моделях сдающих машин")),
    Term("vulnerability", "vulnerable, not vulnerable", ("зона", "в зоне", "до зоны", "зональность", "Зона: обе"),
         (r"\bуязвим\w*",), ("уязвимость", "уязвимы")),
    Term("irregularity", "an irregularity by Law (the program's failure is an ошибка, a machine's a сбой)",
         ("нарушение", "нарушения и сбои по видам и Правилам", "НАРУШЕНИЕ: F1"),
         (r"\bошиб(?:к\w*|ок)\s+по\s+(?:видам|правилам)", r"\bошиб(?:к\w*|ок)\s+пересч[её]т\w*", r"\bпойман\w*",
          r"\bс\s+ошибк(?:ой|ами)\b", r"(?-i:ОШИБКА):\s"),
         ("Ошибки по видам и Правилам", "ошибок пересчёта 2", "пойманные ошибки", "сдача с ошибкой",
          "оставлена С ОШИБКОЙ", "ОШИБКА: F1")),
    Term("director", "the tournament director", ("судья", "страница судьи"), (r"\bдиректор\w*",),
         ("директор турнира",)),
    Term("shuffling", "shuffle, shuffling", ("тасование", "тасовать", "тасование врезкой"),
         (r"\b(?:пере)?тасов(?:к\w*|ок)\b",), ("тасовка", "идеальной тасовки", "перетасовки", "3 тасовок")),
    Term("instruction", "what the operator is asked to do: an imperative", ("выньте карты из коробки",),
         (r"->\s*[а-яё]+(?:ть|ти|чь)(?:ся)?\b", r"\bопустошить\b", r"\bвызов:"),
         ("-> опустошить коробку", "-> найти отсутствующие карты", "вызов: dealer")),
)
"""The Russian terms, from the Russian text of the Laws."""

TERMS: Final = {"ru": RUSSIAN}
"""Each language's terms (English is the source: it has none)."""


@dataclass(frozen=True)
class Breach:
    message: str
    translation: str
    term: str
    rule: str


def breaches(messages: Iterable[tuple[str, str]], terms: Iterable[Term] = RUSSIAN) -> list[Breach]:
    """Every (message, translation) whose translation holds a form a term forbids."""
    rules = [(term, rule) for term in terms for rule in term.rules()]
    return [Breach(message, translation, term.english, rule.pattern)
            for message, translation in messages for term, rule in rules if rule.search(translation)]


def translations(catalogue: Iterable[object]) -> Iterator[tuple[str, str]]:
    """(message, translation) for every translation of a Babel catalogue's messages (each plural form)."""
    for message in catalogue:
        message_id, string = getattr(message, "id", None), getattr(message, "string", None)
        if not message_id or not string:
            continue
        name = message_id if isinstance(message_id, str) else message_id[0]
        for text in (string,) if isinstance(string, str) else string:
            if text:
                yield name, text
