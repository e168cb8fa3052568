"""The bench runbook's rig preparations (tests/hardware/test_machine.py), made on the independent device.

Each scenario of the bench suite names what the rig must be prepared for; the runbook says how a
person prepares a real machine. Here each is the device's options that do the same: the card about
20th from the bottom of board 2's pack jams, the operator puts board 3 in when asked for board 2,
and so on. Where the runbook asks for a service mode or a test firmware, the scenario's name says
what that build does.
"""

from __future__ import annotations

RIGS: dict[str, list[str]] = {
    "clean": [],
    "line_noise": [],  # byte_faults: applied by the test around the port
    "slow_usb": [],
    "jam": ["--fault", "2@19=JAM"],  # a bent card about 20th from the bottom, board 2
    "unreadable_card": ["--fault", "1@8=UNREADABLE_CARD"],  # taped, 9th from the bottom, board 1
    "recount_misread": ["--fault", "1@52=RECOUNT_MISREAD"],  # the taped card put into board 1 after dealing
    "silent_misfeed": ["--fault", "2@20=SILENT_MISFEED"],
    "misfeed": ["--fault", "2@20=MISFEED"],
    "double_feed": ["--fault", "2@20=DOUBLE_FEED"],
    "card_falls": ["--fault", "2@52=CARD_FALLS"],  # a card taken out of board 2 before the recount
    "foreign_card": ["--fault", "1@8=FOREIGN_CARD"],  # in place of the 9th card of board 1
    "foreign_card_unseen": ["--fault", "1@8=FOREIGN_UNSEEN"],
    "duplicate_card": ["--fault", "1@8=DUPLICATE_CARD"],  # the first card's copy as the 9th, board 1
    "duplicate_card_unseen": ["--fault", "1@8=DUPLICATE_UNSEEN"],
    "empty_hopper": ["--fault", "1@39=EMPTY_HOPPER"],  # board 1's last 13 cards held back
    "door_open": ["--fault", "1@20=DOOR_OPEN"],  # the cover opened briefly while board 1 is dealt
    "wrong_board": ["--wrong", "2=1"],  # board 1 (dealt already) when asked for board 2, the first time
    # board 2 turned round the first time, on a machine reading the North edge only (its marker)
    "rotated_board": ["--turn", "2=2"],
    "turned_unread": ["--turn", "2=1"],  # a quarter turn anticlockwise, on a machine reading North only
    "dirty_label": ["--dirty-label", "2"],  # a sticky note, removed when told to take the board out
    "bad_label": ["--bad-label", "3"],  # a board 3 marked with the wrong dealer, and a spare
    "board_removed": ["--fault", "2@26=BOARD_REMOVED"],  # pulled halfway through board 2, put back
    "power_loss": ["--fault", "2@26=POWER_LOSS"],  # switched off halfway through board 2, on again
    "power_loss_kept_job": ["--keeps-job", "--fault", "2@26=POWER_LOSS"],
    "power_loss_on_command": ["--fault", "2@0=POWER_LOSS"],  # off as board 2's dealing is started
    "unplug": ["--fault", "2@26=UNPLUG"],  # the cable pulled halfway through board 2, back within 1 s
    "clumsy_operator": ["--wrong", "3=2", "--turn", "6=2", "--wrong", "7=6"],  # boards dealt already
    "leftover_cards": ["--leftover", "2=3"],  # three cards in board 2 beforehand
    "already_dealt": ["--leftover", "2=52"],  # board 2 holding a whole deal beforehand
    "swap_after_check": ["--swap-after-scan", "2=1"],  # board 2 read, then board 1 (dealt already) put in
    "turned_readable": ["--turn", "2=1"],  # a quarter turn, read from the side the label faces
    "never_readable": ["--no-read", "2=100000"],  # board 2's label covered for the whole scenario
    "double_feed_unseen": ["--fault", "2@20=DOUBLE_FEED_UNSEEN"],
    "crossed_cards": ["--fault", "2@20=CROSSED"],
    "selector_offset": ["--fault", "2@0=SELECTOR_OFFSET"],  # one pocket out for the whole board
    "stale_deal": ["--fault", "2@0=STALE_DEAL"],
    "recount_fifth_pocket": ["--fault", "2@0=RECOUNT_FIFTH_POCKET"],
    "deal_done_other_job": ["--fault", "2@0=DEAL_DONE_OTHER_JOB"],
    "recount_other_job": ["--fault", "2@0=RECOUNT_OTHER_JOB"],
    "deal_done_miscount": ["--fault", "2@0=DEAL_DONE_MISCOUNT"],
    "fault_other_job": ["--fault", "2@20=FAULT_OTHER_JOB"],
}


def machine_of(declared: frozenset[str]) -> frozenset[str]:
    """What the device is, for a scenario whose `machine` marker declares `declared` (the runbook's names).

    A scenario that names no reader gets one reader at the North side, the runbook's default machine.
    """
    readers = {"reader_north", "reader_edges"} & declared
    return frozenset(declared | {"board_sensor"} | (readers or {"reader_north"}))


def rig_options(name: str, declared: frozenset[str]) -> list[str]:
    """The device's command-line options for scenario `name`: its machine, then the rig's preparation."""
    machine = machine_of(declared)
    options = ["--reader", "all" if "reader_edges" in machine else "north"]
    if "keeps_job" in machine:
        options.append("--keeps-job")
    return options + RIGS[name]
