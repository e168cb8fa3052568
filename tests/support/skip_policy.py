"""CI's rule for skipped tests: a skip is allowed only for a reason on the short allow-list below.

Active when ``DEALER_SKIP_POLICY=strict`` (set by ``.ci/run``): at the end of the session every skipped
or xfailed test is listed with its reason, and one whose reason is not allowed fails the run. A
developer's own runs skip as they like (no machine at hand, no optional extra installed).
"""

from __future__ import annotations

import os
import re
from typing import Final

import pytest

ALLOWED: Final = (
    # the bench suite against a real machine: opt-in with --machine-port URL
    re.compile(r"needs a real dealing machine"),
    # the C device library's tests, on a machine without a C compiler (tests/support/c_build.py)
    re.compile(r"^no C compiler \(cc\) on PATH"),
    # the console's browser tests, where no browser could be installed (.ci/run tries the system's Chromium)
    re.compile(r"^no browser: "),
    # the firmware tests, where the cross compiler or QEMU could not be installed (.ci/run tries apt-get;
    # tests/firmware/conftest.py)
    re.compile(r"^no firmware toolchain: "),
)
"""Reasons CI accepts. A missing optional extra is not among them: CI installs every extra the tests use."""


def _reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(getattr(report, "wasxfail", "") or longrepr)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if os.environ.get("DEALER_SKIP_POLICY") != "strict":
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    reports = list(reporter.stats.get("skipped", [])) + list(reporter.stats.get("xfailed", []))
    refused = [(r.nodeid, _reason(r)) for r in reports if not any(p.search(_reason(r)) for p in ALLOWED)]
    allowed = len(reports) - len(refused)
    reporter.ensure_newline()
    reporter.write_line(f"skip policy: {allowed} skipped for an allowed reason, {len(refused)} not allowed")
    for nodeid, reason in refused:
        reporter.write_line(f"skip policy: NOT ALLOWED: {nodeid}: {reason}", red=True)
    if refused and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
