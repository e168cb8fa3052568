"""The director's language, as far as the catalogues go today: the command line's frame (every command's help,
argparse's own words, its refusals and the exit codes) in English and in Russian, chosen by --lang or by the environment
as gettext reads it; the Russian catalogue complete against the code and compiled from its source; a pseudo
language through which nothing of the frame escapes the catalogue."""

from __future__ import annotations

import gettext
import re
import sys
from pathlib import Path

import pytest

from dealer.cli import COMMANDS, main
from dealer.language import LOCALE_DIR, catalogue, n_, speaking
from tests.support.paths import ROOT
from tests.support.processes import ENV, run
from tests.support.spoken import CYRILLIC, dealer


def words_lines(text: str) -> list[str]:
    """The lines of `text` that hold words (three letters or more), commands and options set aside."""
    found = []
    for line in text.splitlines():
        prose = re.sub(r"(?:dealer|--?[\w-]+|[\w./-]+\.(?:pbn|toml|log)|/dev/\S+|COMMAND|LANG\w*|LC_\w+|SIG\w+"
                       r"|SquareDeal|PDF|HTML|SVG|Code|Ctrl-C|\d+\w*|\b(?:" + "|".join(COMMANDS) + r")\b)", " ", line)
        if re.search(r"[^\W\d_]{3,}", prose):
            found.append(line)
    return found


def test_the_russian_catalogue_is_complete_current_and_compiled() -> None:
    """Every message the code marks (argparse's words too) is in the Russian catalogue, translated, none fuzzy,
    none the code no longer says, and its .mo is compiled from its .po."""
    assert list(catalogue.problems("ru")) == []


@pytest.mark.parametrize("how", [["--lang", "ru"], ["--lang=ru_RU"]], ids=["--lang ru", "--lang=ru_RU"])
def test_help_in_russian_by_the_option(how: list[str]) -> None:
    code, out, _ = dealer(*how, "--help")
    assert code == 0
    lines = words_lines(out)
    russian = [line for line in lines if CYRILLIC.search(line)]
    assert len(russian) == len(lines), [line for line in lines if not CYRILLIC.search(line)]
    assert out.startswith("использование: dealer") and "коды выхода (одни и те же у всех команд):" in out
    assert "позиционные аргументы:" in out and "параметры:" in out  # argparse's own words


@pytest.mark.parametrize("variable", ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"])
def test_the_environment_chooses_as_gettext_reads_it(variable: str) -> None:
    """No installed locale is needed: the variable alone chooses (LANGUAGE first, as gettext reads them)."""
    clear = {name: "" for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    code, _, err = dealer("dael", **{**clear, variable: "ru_RU.UTF-8"})
    assert code == 2
    assert err == "dealer: ошибка: «dael» — не команда dealer; может быть, «dealer deal»? (список: dealer --help)\n"
    code, _, err = dealer("dael", **{**clear, variable: "ru_RU.UTF-8", "LANGUAGE": "en"} if variable != "LANGUAGE"
                          else {**clear, "LANGUAGE": "en", "LANG": "ru_RU.UTF-8"})
    assert err.startswith("dealer: error: 'dael' is not a command of dealer")


def test_an_error_in_russian_names_what_and_where_in_one_line() -> None:
    code, _, err = dealer("deal", "s.pbn", "--port", "sim://", "--copies", "0", "--lang", "ru")
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("dealer: ошибка: аргумент --copies: ")  # argparse's words
    assert err.endswith(" (см. dealer deal --help)\n")
    code, _, err = dealer("--lang", "xx", "generate")
    assert code == 2 and err == "dealer: error: --lang xx: not a language of dealer; it speaks en, ru\n"


def test_a_command_in_this_process_leaves_the_language_as_it_found_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--lang", "ru", "dael"]) == 2
    assert capsys.readouterr().err.startswith("dealer: ошибка:")
    assert main(["dael"]) == 2
    assert capsys.readouterr().err.startswith("dealer: error:")


def test_russian_counts_take_the_russian_plural_forms() -> None:
    """One, a few, many: 1 аргумент, 2-4 аргумента, 5-20 аргументов, 21 аргумент, 22 аргумента, 111 аргументов."""
    forms = {}
    with speaking("ru"):
        for n in (1, 2, 4, 5, 11, 12, 14, 20, 21, 22, 25, 101, 111, 112):
            forms[n] = n_("expected %s argument", "expected %s arguments", n) % n
    assert forms == {1: "ожидался 1 аргумент", 2: "ожидалось 2 аргумента", 4: "ожидалось 4 аргумента",
                     5: "ожидалось 5 аргументов", 11: "ожидалось 11 аргументов", 12: "ожидалось 12 аргументов",
                     14: "ожидалось 14 аргументов", 20: "ожидалось 20 аргументов", 21: "ожидался 21 аргумент",
                     22: "ожидалось 22 аргумента", 25: "ожидалось 25 аргументов", 101: "ожидался 101 аргумент",
                     111: "ожидалось 111 аргументов", 112: "ожидалось 112 аргументов"}


def test_nothing_of_the_command_lines_frame_escapes_the_catalogue(tmp_path: Path) -> None:
    """A pseudo language whose every message is marked and lengthened: the top help, every command's summary,
    argparse's words and a refusal come out marked, nothing unmarked but names, options and examples."""
    pseudo = tmp_path / "locale" / "xx" / "LC_MESSAGES"
    pseudo.mkdir(parents=True)
    source = catalogue.read("ru")
    for message in source:
        if message.id:
            message.string = (tuple(f"⟦{m}~~⟧" for m in message.id) if isinstance(message.id, tuple)
                              else f"⟦{message.id}~~⟧")
    (pseudo / "dealer.mo").write_bytes(catalogue.compiled(source))
    code = ("import pathlib, sys, dealer.language as language; "
            f"language.LOCALE_DIR = pathlib.Path({str(tmp_path / 'locale')!r}); language.LANGUAGES['xx'] = 'pseudo'; "
            "from dealer.cli import main; sys.exit(main(sys.argv[1:]))")
    done = run([sys.executable, "-c", code, "--lang", "xx", "--help"], cwd=ROOT, env=ENV)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("⟦") >= len(COMMANDS) + 8  # the summaries, argparse's headings, the epilog, the codes
    unmarked = [line for line in words_lines(re.sub(r"⟦.*?⟧", " ", done.stdout, flags=re.S)) if line.strip()]
    assert unmarked == [], unmarked
    refused = run([sys.executable, "-c", code, "--lang", "xx", "dael"], cwd=ROOT, env=ENV)
    assert refused.returncode == 2 and refused.stderr.startswith("⟦dealer: error: ⟦'dael' is not a command")
    assert gettext.find("dealer", str(LOCALE_DIR), languages=["ru"])


def untranslated_help_lines(text: str) -> list[str]:
    """The lines of a help text with words and no Cyrillic, set aside: usage lines (options and metavars),
    example commands, names of programs, formats and options."""
    found = []
    for line in text.splitlines():
        if line.lstrip().startswith(("dealer ", "[", "python ")) or CYRILLIC.search(line):
            continue
        if re.match(r"\s+-", line):  # an option's names and metavar, then its help after two spaces
            parts = re.split(r"\s{2,}", line.strip(), maxsplit=1)
            line = parts[1] if len(parts) == 2 else ""
        prose = re.sub(r"\b[A-Z][A-Z0-9_.]*\b|\b(?:dealer|bigdealx?|shuffle|squaredeal|sim|pyserial|microbit|QEMU"
                       r"|Duplimate|SquareDeal|Big|Deal|Zürich|cp1252|socket|rfc2217|spy|host|port|file|deals|uploads|firmware"
                       r"|protocol|faults|kind|jam|board|card|speed|token|examples|congress|journal|history|dd|print"
                       r"|misfeed|power|cut|silence|turn|north|edges|Status|Sealed|dupblind|dlmblind|ttyUSB0|dev|temp"
                       r"|duplicate|bridge|Spring|Pairs|other|sqlite|json|txt|csv|html|pdf|svg|pbn|toml|sqd|sqk|goe|log)\b"
                       r"|--?[\w-]+|[\w./:?=#%()'$-]*\d[\w./:?=#%()'$-]*|\W+", " ", line)
        if re.search(r"[^\W\d_]{3,}", prose):
            found.append(line)
    return found


STEPS = [[command] for command in COMMANDS] + [["history", step] for step in ("list", "forget", "export", "import",
                                                                         "init")] \
    + [["squaredeal", step] for step in ("create", "add-phase", "publish", "set-dv", "generate", "verify")]


@pytest.mark.parametrize("command", STEPS, ids=" ".join)
def test_every_commands_help_is_russian_with_lang_ru(command: list[str]) -> None:
    code, out, _ = dealer("--lang", "ru", *command, "--help")
    assert code == 0
    assert out.startswith("использование: dealer " + " ".join(command))
    assert untranslated_help_lines(out) == []


def test_a_run_on_a_port_that_is_not_there_is_told_in_russian(tmp_path: Path) -> None:
    """`dealer deal s.pbn --port /dev/ttyNOPE9` with --lang ru: the machine's line, the summary and the error
    line are Russian, the counts in Russian plural forms; exit 5 as in English."""
    assert dealer("generate", "--boards", "1-8", "-o", str(tmp_path / "s.pbn"))[0] == 0
    code, out, err = dealer("--lang", "ru", "deal", str(tmp_path / "s.pbn"), "--port", "/dev/ttyNOPE9",
                            "--journal", str(tmp_path / "s.journal"))
    assert code == 5
    lines = [line for line in (out + err).splitlines() if line.strip()]
    assert lines and all(CYRILLIC.search(line) for line in lines), lines
    assert "проверено 0 из 8 сдач за " in out
    assert err.endswith("dealer: ошибка: /dev/ttyNOPE9: не удаётся открыть порт: такого порта нет (осталось 8 сдач; "
                        "продолжите с --resume)\n")


def test_hand_records_in_russian_hold_russian_text_in_their_embedded_font(tmp_path: Path) -> None:
    """`dealer records` with --lang ru: every board's heading, dealer and vulnerability in Russian, the compass
    by С В Ю З, honours as Т К Д В, read back from the PDF's text (its embedded font maps Cyrillic) and from
    the HTML; the deals are those of the file (the same cards, in their Russian letters)."""
    from tests.support.printed import pdf_page_texts

    assert dealer("generate", "--boards", "1-4", "-o", str(tmp_path / "s.pbn"))[0] == 0
    for out in ("r.pdf", "r.html"):
        code, _, err = dealer("--lang", "ru", "records", str(tmp_path / "s.pbn"), "-o", str(tmp_path / out), "--no-dd")
        assert code == 0, err
    text = " ".join(pdf_page_texts(tmp_path / "r.pdf"))
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    for said in (text, html):
        for board in range(1, 5):
            assert f"Сдача {board}" in said
        assert "Сдающий: Север" in said and "Зона: никто" in said and "Зона: С-Ю" in said
        assert not re.search(r"\b(?:Board|Dealer|Vul)\b", said)
    assert '<html lang="ru">' in html and re.search(r">С \d+<", html) and re.search(r">Ю \d+<", html)
    english = (tmp_path / "e.html")
    assert dealer("records", str(tmp_path / "s.pbn"), "-o", str(english), "--no-dd")[0] == 0
    honours = {"A": "Т", "K": "К", "Q": "Д", "J": "В"}
    hands = re.findall(r'<div class="hand \w+"[^>]*>(.*?)</div>', english.read_text(encoding="utf-8"), re.S)
    russian = re.findall(r'<div class="hand \w+"[^>]*>(.*?)</div>', html, re.S)
    assert len(hands) == len(russian) == 16
    for mine, theirs in zip(hands, russian, strict=True):
        assert re.sub("[AKQJ]", lambda m: honours[m[0]], mine) == theirs


def test_no_function_says_a_message_where_it_also_names_a_throwaway_underscore() -> None:
    """`_` says a message; a function that also assigns `_` (a loop's or an unpacking's throwaway) makes it a
    local name there, and its `_()` fails. Comprehensions keep their names to themselves."""
    import ast

    found = []
    for path in [*(ROOT / "dealer").rglob("*.py"), *(ROOT / "hil").rglob("*.py")]:
        for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            stores, calls = [], []
            pending: list[tuple[ast.AST, bool]] = [(function, False)]
            while pending:
                node, in_comprehension = pending.pop()
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                        continue
                    inner = in_comprehension or isinstance(child, ast.ListComp | ast.SetComp | ast.DictComp
                                                           | ast.GeneratorExp)
                    if isinstance(child, ast.Name) and child.id == "_" and isinstance(child.ctx, ast.Store) \
                            and not in_comprehension:
                        stores.append(child.lineno)
                    if isinstance(child, ast.Call) and isinstance(child.func, ast.Name) and child.func.id == "_":
                        calls.append(child.lineno)
                    pending.append((child, inner))
            if stores and calls:
                found.append(f"{path.relative_to(ROOT)}:{function.lineno} {function.name}")
    assert found == []


def test_the_demo_in_russian_tells_its_story_and_its_steps_in_russian(tmp_path: Path) -> None:
    """`dealer --lang ru demo`: its story's frame (the sections, the machines and their faults, the summary, the
    checks) and every step of the dealing (a board asked for, dealt, verified) are Russian; what is left in
    English today is the words of the faults themselves (their titles, Laws and actions)."""
    code, out, err = dealer("--lang", "ru", "demo", "--plain", "--speed", "200", "--keep", str(tmp_path / "demo"))
    assert code == 0, err
    story = out.splitlines()
    for heading in ("1. Расклады: 16 сдач", "2. Машины: 2 имитатора раздающих машин", "3. Раздача, каждая сдача",
                    "4. Сводка", "5. Как каждый сбой был обнаружен и устранён", "6. Проверки"):
        assert any(line.startswith(heading) for line in story), heading
    assert "   журнал: согласован" in story
    assert any("проверено 16 из 16 сдач за" in line for line in story)
    russian_step = re.compile(r": (?:сдача \d+: (?:раздача|проверена)|вставьте коробку)")
    english_step = re.compile(r": (?:insert board |board \d+: dealing$|board \d+: verified \()")
    assert len([line for line in err.splitlines() if russian_step.search(line)]) >= 16 * 3
    assert not [line for line in err.splitlines() if english_step.search(line)]


def test_the_machines_display_is_told_in_the_directors_language_in_latin_letters(tmp_path: Path) -> None:
    """A jam and a wrong board dealt in Russian: what the machine's display is sent is ASCII (the protocol's),
    the Russian prompts written in Latin letters by GOST 7.79-2000 B, never as question marks."""
    from dealer.language import choose, in_latin_letters, spoken_while_running
    from hil.loopback import Loopback
    from hil.scenarios import SCENARIOS
    from tests.support.loopback_run import deals_for, run_on_loopback

    shown: list[bytes] = []
    with spoken_while_running():
        choose("ru")
        for number, name in enumerate(("jam", "wrong_board")):
            (scenario,) = [s for s in SCENARIOS if s.name == name]
            with Loopback(scenario.sim_config(seed=3)) as loop:
                told = loop.device.on_display
                loop.device.on_display = lambda msg, t, told=told: (shown.append(msg.text), told(msg, t))[-1]
                result, _lines = run_on_loopback(loop, deals_for(scenario.boards, seed=40 + number),
                                                 tmp_path / f"{name}.journal")
            assert result.complete
    assert shown and all(text.isascii() and b"?" not in text for text in shown), shown
    assert in_latin_letters("освободите тракт карт").encode() in b"\n".join(shown)
    assert any(text.startswith(b"F8 ne ta korobka: vstav`te korobku") for text in shown), shown


def test_a_plans_lang_is_spoken_unless_the_command_line_names_one(tmp_path: Path) -> None:
    """`lang = "ru"` in a plan's [event]: `dealer plan` speaks Russian; `--lang en` goes first; a language dealer
    does not speak is refused naming the plan's line, as every bad field is."""
    from tests.support.plan_texts import BASE

    plan = tmp_path / "congress.toml"
    plan.write_text(BASE.replace('owner = "Test Owner"\n', 'owner = "Test Owner"\nlang = "ru"\n'), encoding="utf-8")
    code, out, err = dealer("plan", str(plan))
    assert code == 0, err
    assert "сессия 1 MON1" in out and "свежие расклады" in out, out
    code, english, err = dealer("--lang", "en", "plan", str(plan))
    assert code == 0 and not CYRILLIC.search(english), english
    plan.write_text(BASE.replace('owner = "Test Owner"\n', 'owner = "Test Owner"\nlang = "xx"\n'), encoding="utf-8")
    code, out, err = dealer("plan", str(plan))
    assert code != 0 and err.count("\n") == 1 and "lang" in err and "'xx' is not a language of dealer" in err, err
