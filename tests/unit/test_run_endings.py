"""How a run that did not end well is told (`dealer.dealing.run.raise_for`): the error of the machine that
left it keeps its class and exit code whatever that class's constructor takes, named once, with what is left."""

from __future__ import annotations

import pytest

from dealer.core.errors import DealerError, DeviceDisconnected, DeviceTimeout, MachineFault
from dealer.dealing.machine import CommandRefused, DealingFault
from dealer.dealing.run import RunResult, raise_for


def ended(failure: DealerError, *, verified: int = 3) -> RunResult:
    return RunResult(run_id=1, verified=verified, jobs=4, unresolved=["board 4: planned"] if verified < 4 else [],
                     stopped=[], errors=[], summary="", failures=(("m2", failure),))


@pytest.mark.parametrize("failure", [
    CommandRefused("LoadDeal", 2, 0, board=4),
    DeviceTimeout("m2: no answer for 30 s"),
    DeviceDisconnected("the port was closed"),
    MachineFault("m2: jammed for good", code=19, board=4),
], ids=lambda e: type(e).__name__)
def test_the_machine_s_error_keeps_its_class_and_code_and_says_what_is_left(failure: DealerError) -> None:
    with pytest.raises(type(failure)) as raised:
        raise_for(ended(failure))
    told = raised.value
    assert told.exit_code == failure.exit_code and str(told).count("m2") == 1, told
    assert str(told).endswith("(1 board left; continue with --resume)"), told
    assert vars(told) == vars(failure)  # its fields (code, board, reason ...) as the machine gave them


def test_a_refused_command_is_exit_7_in_one_line() -> None:
    with pytest.raises(CommandRefused) as raised:
        raise_for(ended(CommandRefused("StartDeal", 1, 0, board=4)))
    assert raised.value.exit_code == 7 and "\n" not in str(raised.value)
    assert isinstance(raised.value, MachineFault) and not isinstance(raised.value, DealingFault)
