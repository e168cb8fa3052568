"""CI's skip policy (tests/support/skip_policy.py) run on a small suite of its own."""

from __future__ import annotations

import pytest

pytest_plugins = ("pytester",)

SUITE = '''
import pytest

def test_runs() -> None:
    pass

def test_on_the_bench() -> None:
    pytest.skip("needs a real dealing machine: --machine-port URL")

def test_hidden() -> None:
    pytest.skip("shared reference data not present")
'''


@pytest.mark.parametrize(("policy", "outcome"), [("strict", 1), (None, 1), ("off", 0)])
def test_a_skip_outside_the_allow_list_fails_a_run_unless_the_policy_is_off(pytester: pytest.Pytester,
                                                                            monkeypatch: pytest.MonkeyPatch,
                                                                            policy: str | None, outcome: int) -> None:
    if policy is None:
        monkeypatch.delenv("DEALER_SKIP_POLICY", raising=False)
    else:
        monkeypatch.setenv("DEALER_SKIP_POLICY", policy)
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest("-p", "tests.support.skip_policy")
    result.assert_outcomes(passed=1, skipped=2)
    assert result.ret == outcome
    if policy != "off":
        result.stdout.fnmatch_lines(["skip policy: 1 skipped for an allowed reason, 1 not allowed",
                                     "*NOT ALLOWED: test_suite.py::test_hidden: shared reference data not present"])


def test_an_allowed_skip_passes_a_strict_run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEALER_SKIP_POLICY", "strict")
    pytester.makepyfile(test_suite=SUITE.split("def test_hidden")[0])
    result = pytester.runpytest("-p", "tests.support.skip_policy")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["skip policy: 1 skipped for an allowed reason, 0 not allowed"])
