"""Each error class's exit code, as `dealer.core.errors` documents it: scripts that run `dealer` depend on them."""

from __future__ import annotations

import pytest

from dealer.cli import main
from dealer.core import errors

DOCUMENTED: dict[type[errors.DealerError], int] = {
    errors.DealerError: 1,
    errors.UsageError: 2,
    errors.InvalidDealError: 3,
    errors.FormatError: 3,
    errors.OutputError: 4,
    errors.OutputExistsError: 4,
    errors.DeviceTimeout: 5,
    errors.DeviceDisconnected: 6,
    errors.MachineFault: 7,
    errors.VerificationError: 8,
    errors.JournalError: 9,
}


def test_every_error_class_has_its_documented_exit_code() -> None:
    defined = {cls for cls in vars(errors).values()
               if isinstance(cls, type) and issubclass(cls, errors.DealerError)}
    assert defined == set(DOCUMENTED), "an error class without a pinned exit code, or one pinned that is gone"
    assert {cls: cls.exit_code for cls in defined} == DOCUMENTED


@pytest.mark.parametrize("cls", [pytest.param(c, id=c.__name__) for c in DOCUMENTED])
def test_the_command_line_exits_with_the_code_of_the_error_raised(
        cls: type[errors.DealerError], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`dealer.cli.main` turns an error of any class into one line on stderr and that class's exit code."""
    def fail(_args: object) -> int:
        raise cls("boom") if cls is not errors.FormatError else cls("boom", path="f.pbn", line=3)

    from dealer.cli import plan

    monkeypatch.setattr(plan, "run", fail)
    assert main(["plan", "any.toml"]) == DOCUMENTED[cls]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dealer: error: ") and "boom" in err


def test_a_bad_option_exits_2_like_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["generate", "--boards", "1-4", "-o", "x.pbn", "--no-such-option"])
    assert done.value.code == 2
    assert "unrecognized arguments: --no-such-option" in capsys.readouterr().err
