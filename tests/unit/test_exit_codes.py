"""Each error class's exit code, as `dealer.core.errors` documents it: scripts that run `dealer` depend on them.

One code per class of outcome, the same in every command. `DeviceDisconnected` went from 6 to 5, the code of
`DeviceTimeout`: both mean "a machine could not be reached" (a dead port was 1 in `deal`, 5 or 6 in `check`,
depending on whether the device was missing or silent; it is 5 in both now). 6 is no longer used.
"""

from __future__ import annotations

import pytest

from dealer.cli import main
from dealer.core import errors
from tests.support.paths import ROOT

DOCUMENTED: dict[type[errors.DealerError], int] = {
    errors.DealerError: 1,
    errors.UsageError: 2,
    errors.InvalidDealError: 3,
    errors.FormatError: 3,
    errors.OutputError: 4,
    errors.OutputExistsError: 4,
    errors.DeviceTimeout: 5,
    errors.DeviceDisconnected: 5,
    errors.MachineReplaced: 5,
    errors.PortInUse: 5,
    errors.SerialConflict: 5,
    errors.MachineFaultError: 7,
    errors.VerificationError: 8,
    errors.DealReused: 8,
    errors.PreparedBoards: 8,
    errors.JournalError: 9,
    errors.JournalDamaged: 9,
    errors.JournalBusy: 10,
    errors.SystemRefused: 11,
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


def test_a_bad_option_is_a_usage_error_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "--boards", "1-4", "-o", "x.pbn", "--no-such-option"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dealer: error: unrecognized arguments: --no-such-option")


def test_a_mistyped_command_is_named_once_with_the_nearest_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dael", "s.pbn"]) == 2
    assert capsys.readouterr().err == ("dealer: error: 'dael' is not a command of dealer; did you mean 'dealer "
                                       "deal'? (dealer --help lists them)\n")
    assert main(["zzz"]) == 2
    said = capsys.readouterr().err
    assert said.startswith("dealer: error: 'zzz' is not a command of dealer; its commands: generate, ")
    assert main(["generate", "--boards", "1-4", "--bogus"]) == 2
    assert capsys.readouterr().err.endswith("(see dealer generate --help)\n")


def test_a_value_an_option_cannot_take_is_a_usage_error_naming_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["deal", "s.pbn", "--port", "sim://", "--copies", "0"]) == 2
    assert capsys.readouterr().err == ("dealer: error: argument --copies: must be at least 1; got 0 "
                                       "(see dealer deal --help)\n")


def test_every_exit_code_is_in_the_table_help_and_the_readme_show() -> None:
    table = dict(errors.EXIT_CODES)
    assert set(DOCUMENTED.values()) | {0, 130} <= set(table), "an exit code the table does not explain"
    assert 6 not in table


def test_dealer_help_and_the_readme_show_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    table = errors.exit_code_table()
    assert table in capsys.readouterr().out
    assert table in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_every_stopping_signal_exits_130_with_one_line_and_the_handlers_are_put_back(
        sig: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """One code for "interrupted", whichever signal: 130 (128 + SIGINT, what a shell shows for Ctrl-C)."""
    import os
    import signal

    number = getattr(signal, sig)
    before = signal.getsignal(number)

    def signalled(_args: object) -> int:
        os.kill(os.getpid(), number)
        for _ in range(10_000_000):  # the handler runs at once; never reached the end of
            pass
        raise AssertionError("the signal did not stop the command")

    from dealer.cli import plan

    monkeypatch.setattr(plan, "run", signalled)
    assert main(["plan", "any.toml"]) == 130
    assert "interrupted (Ctrl-C, SIGTERM or SIGHUP)" in dict(errors.EXIT_CODES)[130]
    assert capsys.readouterr().err == f"dealer: interrupted ({sig})\n"
    assert signal.getsignal(number) is before


def test_an_interrupted_dealing_run_names_the_boards_left_and_the_exact_command_that_resumes_it(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(_args: object) -> int:
        raise errors.Interrupted("SIGHUP", left=5, total=8)

    from dealer.cli import deal

    monkeypatch.setattr(deal, "run_deal", interrupted)
    assert main(["deal", "my session.pbn", "--port", "sim://?speed=50", "--journal", "j"]) == 130
    assert capsys.readouterr().err == ("dealer: interrupted (SIGHUP): 5 of 8 boards left; resume with: dealer deal "
                                       "'my session.pbn' --port 'sim://?speed=50' --journal j --resume\n")


def test_a_command_that_cannot_resume_offers_no_resume_command(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`dealer demo` deals through the same run but removes its work at the end: no --resume to offer."""
    def interrupted(_args: object) -> int:
        raise errors.Interrupted("SIGTERM", left=3, total=8)

    from dealer.cli import demo

    monkeypatch.setattr(demo, "run", interrupted)
    assert main(["demo"]) == 130
    assert capsys.readouterr().err == "dealer: interrupted (SIGTERM)\n"


def test_a_machine_that_restarted_or_reconnected_is_a_lost_link_not_a_bug() -> None:
    """Where a restart or a reconnection ends a command (the run's resynchronising gave up), the exit code
    is the lost link's (5), not the bug's (1)."""
    from dealer.dealing.machine import DeviceRestarted, Reconnected

    assert DeviceRestarted("m1 restarted").exit_code == errors.DeviceDisconnected.exit_code == 5
    assert Reconnected("m1 reconnected").exit_code == 5
