"""The tests that need programs from Debian's packages rather than from pip: the C device library (a C
compiler), the firmware under QEMU (the ARM cross compiler and QEMU), the console's pages in a browser
(Chromium), prepared boards against the C dealer program, and records in PostgreSQL (a throwaway server).
They are chosen by where they live (`TIERS`), left out of the README's test command, which needs
nothing its set-up line does not install, and run alone by ``--system-tools`` (``.ci/run`` installs the
packages first), where a missing program fails the test instead of skipping it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest

from tests.support.paths import TESTS


@dataclass(frozen=True)
class Tier:
    """Tests that need one kind of program, and the Debian packages that bring it."""

    where: str  # a folder or a test module under tests/
    needs: str  # what, in words
    packages: tuple[str, ...]

    def holds(self, path: Path) -> bool:
        place = TESTS / self.where
        return path == place or place in path.parents


TIERS: Final = (
    Tier("c_device", "a C compiler", ("gcc",)),
    Tier("firmware", "the ARM cross compiler and QEMU", ("make", "gcc-arm-none-eabi", "libnewlib-arm-none-eabi",
                                                          "qemu-system-arm")),
    Tier("serve/test_console_states_browser.py", "Chromium", ("chromium",)),
    Tier("serve/test_director_browser.py", "Chromium", ("chromium",)),
    Tier("serve/test_room_browser.py", "Chromium", ("chromium",)),
    Tier("serve/test_pictures_browser.py", "Chromium", ("chromium",)),
    Tier("serve/test_languages_browser.py", "Chromium", ("chromium",)),
    Tier("reference_dealer", "the dealer program", ("dealer",)),
    Tier("postgresql", "PostgreSQL", ("postgresql",)),
)
PACKAGES: Final = tuple(dict.fromkeys(p for tier in TIERS for p in tier.packages))
COMMAND: Final = "python -m pytest -q -n 2 --system-tools"
OPTION: Final = "--system-tools"


def tier_of(path: Path) -> Tier | None:
    return next((tier for tier in TIERS if tier.holds(path)), None)


def missing(what: str, packages: tuple[str, ...]) -> str:
    """The failure of a system-tools test whose program is not installed."""
    return f"{what} is not installed: apt-get install {' '.join(packages)}"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(OPTION, action="store_true",
                     help="run only the tests that need programs from Debian's packages (" + ", ".join(PACKAGES)
                          + "): a missing program fails them")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted = bool(config.getoption(OPTION))
    left_out = [item for item in items if (tier_of(Path(str(item.path))) is not None) != wanted]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if item not in left_out]


def _asked_for(config: pytest.Config) -> list[Path]:
    """The folders and files the run was asked to collect (the test paths when none was named)."""
    named = [Path(arg.split("::")[0]).resolve() for arg in config.args]
    return named or [TESTS]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int,
                            config: pytest.Config) -> None:
    """Without --system-tools, a run over any of their folders says which tests it left out and how to run them
    (told by the main process: under pytest-xdist the workers collect)."""
    if config.getoption(OPTION):
        return
    asked = _asked_for(config)
    left = [tier for tier in TIERS if any(place == TESTS / tier.where or place in (TESTS / tier.where).parents
                                          for place in asked)]
    if left:
        needs = ", ".join(dict.fromkeys(tier.needs for tier in left))
        packages = " ".join(dict.fromkeys(p for tier in left for p in tier.packages))
        terminalreporter.write_line(f"not run here: the tests that need {needs} (Debian's packages); "
                                    f"apt-get install {packages}, then {COMMAND}")
