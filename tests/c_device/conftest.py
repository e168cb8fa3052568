"""The C device library's tests build it once a session, into a temporary folder, with the system C
compiler; where there is none, every test here is skipped and says so."""

from __future__ import annotations

import pytest

from tests.support.c_build import NO_COMPILER, CBuilds, compiler


@pytest.fixture(scope="session")
def c_builds(tmp_path_factory: pytest.TempPathFactory) -> CBuilds:
    if compiler() is None:
        pytest.skip(NO_COMPILER)
    return CBuilds(tmp_path_factory.mktemp("c_build"))
