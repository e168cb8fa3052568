"""The C device library's tests build it once a session, into a temporary folder, with the system C
compiler. They run with ``--system-tools`` (`tests.support.system_tools`): without a compiler they fail,
naming the package to install."""

from __future__ import annotations

import pytest

from tests.support.c_build import NO_COMPILER, CBuilds, compiler


@pytest.fixture(scope="session")
def c_builds(tmp_path_factory: pytest.TempPathFactory) -> CBuilds:
    if compiler() is None:
        pytest.fail(NO_COMPILER)
    return CBuilds(tmp_path_factory.mktemp("c_build"))
