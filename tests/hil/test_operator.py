"""The operator: prompts carried out, no board put in unasked, the rack, the pack."""

from __future__ import annotations

from firmware_protocol import (
    Ack,
    BoardChanged,
    BoardScanned,
    DealDone,
    Eject,
    Prompt,
    ScanBoard,
    ScanResult,
    StartDeal,
)
from hil.config import SimConfig
from hil.fault_plan import FaultPlan
from hil.physical import Card, Rack, label_of
from tests.support.sim_bench import Bench


def slot_label(bench: Bench) -> bytes | None:
    slot = bench.device.room.slot
    return slot.board.label if slot else None


def test_without_a_prompt_no_board_goes_in_and_the_first_one_asked_for_does() -> None:
    bench = Bench(SimConfig(set_name="RED", boards=(5, 6, 7)))
    bench.hello()
    bench.run(60.0)
    assert not bench.device.room.board_present  # the operator waits to be told which board
    assert len(bench.device.room.hopper) == 52
    bench.prompt(Prompt.INSERT_BOARD, board=6)
    bench.run(30.0, lambda: bench.device.room.board_present)
    assert slot_label(bench) == label_of("RED", 6)


def test_insert_board_takes_out_the_other_board_first() -> None:
    bench = Bench()
    bench.hello()
    bench.board_in()
    bench.take(BoardChanged)
    assert bench.prompt(Prompt.INSERT_BOARD, label_of("A", 7)) == Ack()
    bench.run(30.0, lambda: slot_label(bench) == label_of("A", 7))
    assert slot_label(bench) == label_of("A", 7)
    assert bench.take(BoardChanged) == [BoardChanged(0), BoardChanged(1)]


def test_insert_board_of_the_board_already_in_does_nothing() -> None:
    bench = Bench()
    bench.hello()
    bench.board_in()
    bench.take(BoardChanged)
    bench.prompt(Prompt.INSERT_BOARD, label_of("A", 1))
    bench.run(30.0)
    assert bench.take(BoardChanged) == []


def test_insert_board_by_number_uses_the_set_in_use() -> None:
    bench = Bench(SimConfig(set_name="C1", boards=(1, 2, 3)))
    bench.hello()
    bench.board_in()
    bench.prompt(Prompt.INSERT_BOARD, board=3)
    bench.run(30.0, lambda: slot_label(bench) == label_of("C1", 3))
    assert slot_label(bench) == label_of("C1", 3)


def test_an_open_rack_fetches_any_board_asked_for_and_a_closed_one_does_not() -> None:
    for set_name, expected in ((None, label_of("BLUE", 40)), ("A", label_of("A", 1))):
        bench = Bench(SimConfig(set_name=set_name, boards=(1, 2)))
        bench.hello()
        bench.board_in()
        bench.prompt(Prompt.INSERT_BOARD, label_of("BLUE", 40))
        bench.run(30.0)
        assert slot_label(bench) == expected
    assert "cannot find the board asked for" in bench.device.operator.log[-1]


def test_a_loaded_deal_brings_no_board_in_until_its_board_is_asked_for() -> None:
    bench = Bench()
    bench.hello()
    bench.board_in()
    bench.prompt(Prompt.REMOVE_BOARD)
    bench.run(30.0, lambda: not bench.device.room.board_present)
    bench.load(board=9)
    bench.run(60.0)
    assert not bench.device.room.board_present
    bench.prompt(Prompt.INSERT_BOARD, board=9)
    bench.run(30.0, lambda: bench.device.room.board_present)
    assert slot_label(bench) == label_of("A", 9)


def test_after_an_eject_no_board_goes_in_until_the_next_is_asked_for_and_the_hopper_is_refilled() -> None:
    """The race a busy host once lost: the operator put the rack's next board in before the host's prompt
    named the board it deals next (here board 5, not the rack's next, board 2)."""
    bench = Bench()
    bench.hello()
    bench.board_in()
    bench.read_label()
    bench.load()
    bench.cmd(StartDeal(1))
    bench.wait_for(DealDone)
    assert len(bench.device.room.hopper) == 52  # a fresh pack, loaded as the dealing ended
    bench.cmd(Eject())
    bench.run(60.0)
    assert not bench.device.room.board_present
    bench.prompt(Prompt.INSERT_BOARD, label_of("A", 5))
    bench.run(30.0, lambda: bench.device.room.board_present)
    assert slot_label(bench) == label_of("A", 5)


def test_empty_board_takes_the_cards_out_and_puts_the_board_back() -> None:
    bench = Bench()
    bench.hello()
    bench.board_in()
    bench.read_label()
    bench.load()
    bench.cmd(StartDeal(1))
    bench.wait_for(DealDone)
    bench.take(BoardChanged)
    bench.prompt(Prompt.EMPTY_BOARD)
    bench.run(60.0, lambda: len(bench.take(BoardChanged)) > 0 and bench.device.room.board_present)
    bench.run(30.0, lambda: bench.device.room.board_present)
    board = bench.device.room.slot.board  # type: ignore[union-attr]
    assert board.card_count == 0 and bench.device.ledger.emptied == [(board.ident, 52)]


def test_copies_are_separate_boards_and_an_empty_copy_is_taken_first() -> None:
    rack = Rack("A", (1, 2), copies=2)
    first = rack.find_label(label_of("A", 1))
    assert first is not None and first.ident == "A:1#1"
    first.pockets[0].append(Card(0, "P001"))
    second = rack.find_label(label_of("A", 1))
    assert second is not None and second.ident == "A:1#2"


def test_mistakes_follow_the_seed() -> None:
    def insertions(seed: int) -> list[str]:
        plan = FaultPlan.of({"kind": "wrong_board", "rate": 0.4}, {"kind": "rotated_board", "rate": 0.3})
        bench = Bench(SimConfig(seed=seed, faults=plan))
        bench.hello()
        for n in range(1, 7):
            bench.prompt(Prompt.INSERT_BOARD, label_of("A", n))
            bench.run(20.0)
        return [line for line in bench.device.operator.log if line.startswith("inserted")]

    first = insertions(5)
    assert first == insertions(5)
    assert first != [f"inserted A:{n}#1" for n in range(1, 7)]  # some went in wrong or turned
    assert first != insertions(6)


def test_a_pulled_board_comes_back_even_if_a_prompt_arrives_meanwhile() -> None:
    bench = Bench(None, {"kind": "board_removed", "board": 1, "card": 10, "seconds": 4.0})
    bench.hello()
    bench.board_in()
    bench.load()
    bench.cmd(StartDeal(1))
    bench.run(60.0, lambda: not bench.device.room.board_present)
    bench.prompt(Prompt.CLEAR_PATH)
    bench.board_in()
    assert slot_label(bench) == label_of("A", 1)


def test_empty_board_after_an_eject_empties_the_board_that_came_out_and_puts_it_in() -> None:
    bench = Bench()
    bench.hello()
    bench.board_in()
    bench.read_label()
    bench.load()
    bench.cmd(StartDeal(1))
    bench.wait_for(DealDone)
    board = bench.device.room.slot.board  # type: ignore[union-attr]
    bench.prompt(Prompt.REMOVE_BOARD)  # nothing else for the operator to do: the slot stays empty
    bench.run(30.0, lambda: not bench.device.room.board_present)
    bench.prompt(Prompt.EMPTY_BOARD)
    bench.board_in(60.0)
    assert bench.device.room.slot.board is board and board.card_count == 0  # type: ignore[union-attr]


def test_a_dirty_label_is_wiped_when_the_board_goes_in_again_even_after_an_eject() -> None:
    bench = Bench(None, {"kind": "unreadable_label", "board_number": 1})
    bench.hello()
    bench.board_in()
    bench.cmd(ScanBoard())
    assert bench.wait_for(BoardScanned).result == ScanResult.NO_READ
    bench.prompt(Prompt.INSERT_BOARD, label_of("A", 1))  # the board asked for is in: nothing to do
    bench.cmd(Eject())
    bench.run(30.0, lambda: not bench.device.room.board_present)
    bench.board_in(60.0)
    bench.cmd(ScanBoard())
    assert bench.wait_for(BoardScanned) == BoardScanned(ScanResult.OK, 0, label_of("A", 1))
