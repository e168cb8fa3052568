"""The system's reason for a failed file or port operation (an OSError) is said in the director's language:
the common errno values in the catalogue's words, others in the system's text; a Russian refusal that
carries one holds no English word but the names of files and options."""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

import pytest

from dealer.language import speaking
from dealer.language.system import REASONS, os_error_text, os_reason
from tests.support.spoken import CYRILLIC, dealer

WANTED = ("ENOENT", "EACCES", "EPERM", "EISDIR", "ENOTDIR", "EEXIST", "ENOSPC", "EROFS", "EBUSY", "EMFILE", "ENFILE",
          "ENOMEM", "EFBIG", "ELOOP", "ENAMETOOLONG", "EAGAIN", "EIO", "ENXIO", "ENODEV")


@pytest.mark.parametrize("name", WANTED)
def test_each_common_errno_is_said_in_russian_and_in_english(name: str) -> None:
    code = getattr(errno, name)
    assert code in REASONS
    error = OSError(code, os.strerror(code))
    with speaking("ru"):
        russian = os_reason(error)
    with speaking("en"):
        english = os_reason(error)
    assert CYRILLIC.search(russian) and not re.search(r"[A-Za-z]", russian), russian
    assert english == REASONS[code] and not CYRILLIC.search(english)


def test_another_errno_falls_back_to_the_systems_text_and_a_programs_own_text_is_kept() -> None:
    with speaking("ru"):
        assert os_reason(OSError(errno.EXDEV, os.strerror(errno.EXDEV))) == os.strerror(errno.EXDEV)
        assert os_reason(OSError(errno.ELOOP, "x.journal: a symbolic link")) == "x.journal: a symbolic link"
        assert os_reason(OSError("no errno at all")) == "no errno at all"
        assert os_error_text(FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), "s.pbn")) == \
            "s.pbn: нет такого файла или папки"


def test_the_simulators_words_are_the_same_messages() -> None:
    """hil imports nothing of dealer, so it keeps its own copy of the table: the same English, message by
    message (one catalogue entry each)."""
    from hil.words import os_reason as simulators_reason

    with speaking("en"):
        for code in {*REASONS, errno.EXDEV}:
            error = OSError(code, os.strerror(code))
            assert simulators_reason(error) == os_reason(error), errno.errorcode[code]


def english_words(line: str, *paths: str) -> list[str]:
    """The Latin-letter words of an error line, the program's name, paths, file names, options and acronyms set
    aside."""
    for path in paths:
        line = line.replace(path, " ")
    line = re.sub(r"^dealer: |--[\w-]+|\S+\.(?:pbn|dup|sqd|toml|json|journal|sqlite)\b|/dev/\w+", " ", line)
    return [word for word in re.findall(r"[A-Za-z]{2,}", line) if not word.isupper()]  # TCP, USB: names


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("files")
    (where / "folder").mkdir()
    assert dealer("generate", "--boards", "1-4", "-o", str(where / "s.pbn"))[0] == 0
    return where


REFUSALS = {
    "convert": ["convert", "{d}/missing.pbn", "{d}/out.dup"],
    "deal": ["deal", "{d}/missing.pbn", "--port", "sim://"],
    "records": ["records", "{d}/missing.pbn", "-o", "{d}/r.pdf"],
    "stats": ["stats", "{d}/missing.pbn"],
    "plan": ["plan", "{d}/folder"],
    "squaredeal": ["squaredeal", "verify", "{d}/missing.sqd", "{d}/s.pbn"],
    "history import": ["history", "import", "{d}/folder"],
    "history --history": ["history", "--history", "{d}/folder"],
    "sim --faults": ["sim", "--faults", "{d}/missing.toml"],
    "deal --port": ["deal", "{d}/s.pbn", "--port", "/dev/null", "--journal", "{d}/null.journal"],
}


@pytest.mark.parametrize("argv", REFUSALS.values(), ids=REFUSALS.keys())
def test_a_russian_refusal_holds_no_english_but_names(argv: list[str], files: Path) -> None:
    argv = [arg.format(d=files) for arg in argv]
    paths = sorted((arg for arg in argv if arg.startswith(str(files))), key=len, reverse=True)
    code, out, err = dealer("--lang", "ru", *argv)
    assert code != 0
    line = err.strip().splitlines()[-1]
    assert line.startswith("dealer: ошибка: "), err
    assert english_words(line, *paths) == [], line
    code, _, english = dealer("--lang", "en", *argv)
    assert english_words(english.strip().splitlines()[-1], *paths), english  # the check sees English


@pytest.mark.parametrize("argv", [["serve", "--port", "{port}"], ["sim", "--tcp", "{port}"]], ids=["serve", "sim"])
def test_a_port_another_program_listens_on_is_said_in_russian(argv: list[str]) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        code, _, err = dealer("--lang", "ru", *(arg.format(port=port) for arg in argv))
    line = err.strip().splitlines()[-1]
    assert code == 2 and "адрес занят другой программой" in line, err
    assert english_words(line.replace("127.0.0.1", " ").replace(port, " ")) == [], line
