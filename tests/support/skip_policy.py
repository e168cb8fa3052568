"""The rule for skipped tests: a skip is allowed only for a reason on the short allow-list below.

In every run (the README's test command and CI's alike), unless ``DEALER_SKIP_POLICY=off``: at the end of the
session every skipped or xfailed test is listed with its reason, and one whose reason is not allowed fails
the run, so a newcomer's run and CI's judge skips the same way.
"""

from __future__ import annotations

import os
import re
from typing import Final

import pytest

ALLOWED: Final = (
    # the bench suite against a real machine: opt-in with --machine-port URL; against one, the scenarios its rig is
    # not prepared for, those its kind of machine cannot have, and those only a simulated machine can have
    re.compile(r"needs a real dealing machine"),
    re.compile(r"^the rig is not prepared for "),
    re.compile(r"^the machine is not \w+ \(--machine-capabilities says"),
    re.compile(r"^plans faults, which only the simulated machine can have"),
)
"""Reasons CI accepts. A missing optional extra or program is not among them: the README's set-up line installs
every extra the README's test command uses, and the tests that need programs from Debian's packages run apart
(`tests.support.system_tools`), failing where a program is missing."""


def _reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(getattr(report, "wasxfail", "") or longrepr)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if os.environ.get("DEALER_SKIP_POLICY", "strict") == "off":
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    reports = list(reporter.stats.get("skipped", [])) + list(reporter.stats.get("xfailed", []))
    if not reports:
        return
    refused = [(r.nodeid, _reason(r)) for r in reports if not any(p.search(_reason(r)) for p in ALLOWED)]
    allowed = len(reports) - len(refused)
    reporter.ensure_newline()
    reporter.write_line(f"skip policy: {allowed} skipped for an allowed reason, {len(refused)} not allowed")
    for nodeid, reason in refused:
        reporter.write_line(f"skip policy: NOT ALLOWED: {nodeid}: {reason}", red=True)
    if refused and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
