"""Named scenarios: a fault plan, the boards to deal, what the host must end with, and what the rig needs.

One list, `SCENARIOS`, is run alike against the simulator (the plan injected) and, with ``--machine-port``,
against a real machine (the same fault prepared by hand, as the hardware test module's runbook says).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from hil.config import SimConfig
from hil.fault_plan import FaultPlan

CAPABILITIES: Final = {
    "byte_faults": "line noise injected between host and machine (a fault proxy on a real rig)",
    "jam": "a card that jams (a bent card placed in the pack)",
    "unreadable_card": "a card the reader cannot read while dealing (a smudged card)",
    "recount_misread": "a card misread at the recount",
    "misfeed": "a card that goes into the wrong pocket",
    "double_feed": "two cards fed at once (two cards glued lightly)",
    "card_falls": "a card that falls out of the card path",
    "foreign_card": "a card of another pack in the pack",
    "duplicate_card": "a second copy of a card in the pack",
    "empty_hopper": "a pack short of cards",
    "door": "opening the door while dealing",
    "wrong_board": "the operator inserting the wrong board",
    "rotated_board": "the operator inserting a board turned round",
    "dirty_label": "a board label that does not read until wiped",
    "bad_label": "a board labelled against Law 2, and a spare",
    "board_removed": "the operator pulling the board out while dealing",
    "power_loss": "cutting the machine's power while dealing",
    "keeps_job": "a machine that keeps its job over a power loss",
    "unplug": "pulling the USB cable while dealing",
    "leftover_cards": "cards left in a board before it is dealt (three cards put into board 2 beforehand, or "
                      "board 2 dealt fully beforehand)",
    "swap_board": "the operator swapping the board just after its label is read (board 2 out, board 1, dealt "
                  "already, in)",
    "turned_readable": "a board put in turned whose label the machine still reads (a reader on every side)",
    "damaged_label": "a board label that never reads (covered for the whole scenario)",
    "swapped_cards": "two cards crossing into each other's pockets (a service mode that forces it)",
    "firmware_faults": "a test firmware that misreports (a stale deal, another job in a report, a fifth pocket)",
}
"""What the rig can be made to do (faults and mistakes prepared by hand): ``--machine-needs``."""

MACHINE_CAPABILITIES: Final = {
    "reader_north": "one label reader, at the machine's North side: a board put in turned is not read (NO_READ)",
    "reader_edges": "a label reader on every side (or one that sees every side): a turned board's turn is "
                    "reported (PROTOCOL.md 12.1)",
    "board_sensor": "a board sensor (BOARD_SENSOR: BoardChanged events, NOT_SCANNED refusals)",
    "keeps_job": "a machine that keeps its job over a power loss (KEEPS_JOB_OVER_POWER_LOSS)",
}
"""What the machine is, whatever the rig prepares: ``--machine-capabilities``. A scenario needs at most one
of the two readers; the simulator is built as each scenario needs."""


@dataclass(frozen=True)
class Expect:
    """What the host must end with.

    Written in the terms a host's verifier uses: the machine's fault codes (FaultCode names
    from the Fault events or Status; PROTOCOL for a report that does not match what was asked), the
    fault-table codes F1..F12 of `dealer.verify.board_check` the host names before the board is put right (before
    dealing too: a board refused), and counts of refused boards, extra dealings, device restarts and
    reconnections; `verified` is False where the host must stop (another board's deal) or leave a board to
    the director. Against the simulator the sets must match exactly and the counts be at least those
    given; against a real machine everything is "at least" (a real machine may misread a card of its own
    accord).
    """

    verified: bool = True
    machine_faults: frozenset[str] = frozenset()
    verifier_faults: frozenset[str] = frozenset()
    refused_labels: int = 0
    redeals: int = 0
    restarts: int = 0
    reconnects: int = 0

    def mismatches(self, seen: Mapping[str, Any], boards: int, exact: bool) -> list[str]:
        """What in a run's summary differs from this expectation (empty: as expected).

        `seen` holds "verified", "machine_faults", "verifier_faults" (collections), "refused_labels",
        "dealings", "restarts", "reconnects" (numbers).
        """
        out = []
        if bool(seen["verified"]) != self.verified:
            out.append(f"verified: expected {self.verified}, got {seen['verified']}")
        for name in ("machine_faults", "verifier_faults"):
            want, got = set(getattr(self, name)), set(seen[name])
            if (got != want) if exact else not want <= got:
                out.append(f"{name}: expected {sorted(want)}, got {sorted(got)}")
        counts = {"refused_labels": self.refused_labels, "redeals": self.redeals, "restarts": self.restarts,
                  "reconnects": self.reconnects}
        got_counts = {**{k: seen[k] for k in ("refused_labels", "restarts", "reconnects")},
                      "redeals": seen["dealings"] - boards}
        for name, want_n in counts.items():
            if got_counts[name] < want_n:
                out.append(f"{name}: expected at least {want_n}, got {got_counts[name]}")
        return out


@dataclass(frozen=True)
class Scenario:
    """A named fault plan with its expected outcome. A scenario `needs` capabilities of the rig
    (`CAPABILITIES`), declared with ``--machine-needs``, and a `machine` (`MACHINE_CAPABILITIES`), declared
    with ``--machine-capabilities``; the simulator is built as each scenario asks. Some scenarios try a
    defence a minimal host lacks (`defence` says which): the project's host (`dealer.dealing`) has them all;
    the script host of the simulator's own tests does not."""

    name: str
    summary: str
    plan: FaultPlan = field(default_factory=FaultPlan)
    expect: Expect = field(default_factory=Expect)
    needs: frozenset[str] = frozenset()
    boards: tuple[int, ...] = (1, 2, 3)
    machine: frozenset[str] = frozenset()
    """What the machine must be (`MACHINE_CAPABILITIES`); the simulator for the scenario is built so."""
    defence: str | None = None
    """The defence of the host this scenario tries, that a minimal host lacks (None: any host will do)."""

    def sim_config(self, seed: int = 0, speed: float = 1.0) -> SimConfig:
        """The simulator for this scenario: its plan, an open rack of set A, the machine it needs."""
        return SimConfig(speed=speed, seed=seed, faults=self.plan, keeps_job="keeps_job" in self.machine,
                         reads_every_edge="reader_edges" in self.machine)


def _plan(*faults: dict[str, Any]) -> FaultPlan:
    return FaultPlan.of(*faults)


def _expect(machine: tuple[str, ...] = (), verifier: tuple[str, ...] = (), verified: bool = True,
            **counts: int) -> Expect:
    return Expect(verified, frozenset(machine), frozenset(verifier), **counts)


SCENARIOS: Final[tuple[Scenario, ...]] = (
    Scenario("clean", "four boards, nothing goes wrong", boards=(1, 2, 3, 4)),
    Scenario("line_noise", "3% of frames damaged both ways, one lost, a garbage burst",
             _plan({"kind": "flip", "rate": 0.03}, {"kind": "flip", "rate": 0.03, "direction": "to_device"},
                   {"kind": "drop", "frame": 5}, {"kind": "garbage", "frame": 7, "direction": "to_device"}),
             needs=frozenset({"byte_faults"})),
    Scenario("slow_usb", "writes split and delayed, frames repeated",
             _plan({"kind": "split", "rate": 0.3, "size": 3}, {"kind": "delay", "rate": 0.1, "seconds": 0.3},
                   {"kind": "duplicate", "rate": 0.1}), needs=frozenset({"byte_faults"})),
    Scenario("jam", "a card jams; the path is cleared and dealing resumes",
             _plan({"kind": "jam", "board": 2, "card": 20}), _expect(("JAM",)), frozenset({"jam"})),
    Scenario("unreadable_card", "the reader cannot read a card; it is wiped and dealing resumes",
             _plan({"kind": "unreadable_card", "board": 1, "card": 9}), _expect(("UNREADABLE_CARD",)),
             frozenset({"unreadable_card"})),
    Scenario("recount_misread", "a card is not identified at the recount (F11); a second recount passes",
             _plan({"kind": "unreadable_card", "board": 1, "card": 9, "when": "recount"}),
             _expect(verifier=("F11",)), frozenset({"recount_misread"})),
    Scenario("silent_misfeed", "a card goes into the wrong pocket unnoticed: the recount finds a 14/12 "
             "split (F2); the board is emptied and redealt",
             _plan({"kind": "misfeed", "board": 1, "card": 5}), _expect(verifier=("F2",), redeals=1),
             frozenset({"misfeed"})),
    Scenario("misfeed", "the machine sees a card go astray: abort, empty, redeal",
             _plan({"kind": "misfeed", "board": 1, "card": 5, "detected": True}), _expect(("MISFEED",), redeals=1),
             frozenset({"misfeed"})),
    Scenario("double_feed", "two cards fed at once: abort, empty, redeal",
             _plan({"kind": "double_feed", "board": 1, "card": 5}), _expect(("MISFEED",), redeals=1),
             frozenset({"double_feed"})),
    Scenario("card_falls", "a card falls out after the reader: the recount misses it (F1); redeal",
             _plan({"kind": "card_falls", "board": 2, "card": 7}), _expect(verifier=("F1",), redeals=1),
             frozenset({"card_falls"})),
    Scenario("foreign_card", "a card of another pack replaces one of the pack's own: the machine holds it, "
             "then runs short until the missing card is put back",
             _plan({"kind": "foreign_card", "board": 1, "card": 9}), _expect(("EMPTY_HOPPER", "FOREIGN_CARD")),
             frozenset({"foreign_card"})),
    Scenario("foreign_card_unseen", "a foreign card the machine does not notice: the recount shows a "
             "duplicate and a missing card (F5); redeal from a good pack",
             _plan({"kind": "foreign_card", "board": 1, "card": 9, "detected": False}),
             _expect(verifier=("F5",), redeals=1), frozenset({"foreign_card"})),
    Scenario("duplicate_card", "a second copy of a card in the pack: the machine holds it back",
             _plan({"kind": "duplicate_card", "board": 1, "card": 9}), _expect(("DUPLICATE_CARD",)),
             frozenset({"duplicate_card"})),
    Scenario("duplicate_card_unseen", "a second copy the machine does not check: the recount finds it (F5)",
             _plan({"kind": "duplicate_card", "board": 1, "card": 9, "detected": False}),
             _expect(verifier=("F5",), redeals=1), frozenset({"duplicate_card"})),
    Scenario("empty_hopper", "the pack is short: the missing cards are put back and dealing resumes",
             _plan({"kind": "empty_hopper", "board": 1, "card": 40}), _expect(("EMPTY_HOPPER",)),
             frozenset({"empty_hopper"})),
    Scenario("door_open", "the door is opened while dealing; closed, dealing resumes",
             _plan({"kind": "door_open", "board": 1, "card": 40}), _expect(("DOOR_OPEN",)), frozenset({"door"})),
    Scenario("wrong_board", "the operator inserts the board just dealt again: refused (F8), the right one goes in",
             _plan({"kind": "wrong_board", "insertion": 2}), _expect(verifier=("F8",), refused_labels=1),
             frozenset({"wrong_board"})),
    Scenario("rotated_board", "a board goes in turned round: its label cannot be read (F8)",
             _plan({"kind": "rotated_board", "insertion": 2}), _expect(verifier=("F8",), refused_labels=1),
             frozenset({"rotated_board"}), machine=frozenset({"reader_north"})),
    Scenario("dirty_label", "a label does not read (F8) until the board is taken out and wiped",
             _plan({"kind": "unreadable_label", "board_number": 2}), _expect(verifier=("F8",), refused_labels=1),
             frozenset({"dirty_label"})),
    Scenario("bad_label", "a board marked against Law 2 is refused (F8); a spare replaces it",
             _plan({"kind": "bad_label", "board_number": 3}), _expect(verifier=("F8",), refused_labels=1),
             frozenset({"bad_label"})),
    Scenario("board_removed", "the board is pulled out while dealing and put back: rescan, resume",
             _plan({"kind": "board_removed", "board": 2, "card": 30}), _expect(("BOARD_REMOVED",)),
             frozenset({"board_removed"}), machine=frozenset({"board_sensor"})),
    Scenario("power_loss", "the power goes while dealing: the machine restarts empty-handed; the board is "
             "emptied and redealt",
             _plan({"kind": "power_loss", "board": 2, "card": 25}), _expect(restarts=1, redeals=1),
             frozenset({"power_loss"})),
    Scenario("power_loss_kept_job", "the power goes while dealing on a machine that keeps its job: "
             "FAULT(POWER_LOSS), resumed",
             _plan({"kind": "power_loss", "board": 2, "card": 25}), _expect(("POWER_LOSS",), restarts=1),
             frozenset({"power_loss", "keeps_job"}), machine=frozenset({"keeps_job"})),
    Scenario("power_loss_on_command", "the power goes as a command arrives",
             _plan({"kind": "power_loss", "frame": 12}), _expect(restarts=1), frozenset({"power_loss"})),
    Scenario("unplug", "the USB cable is pulled while dealing and plugged back: the host reconnects and "
             "the board completes",
             _plan({"kind": "unplug", "board": 2, "card": 20, "seconds": 0.5}), _expect(reconnects=1),
             frozenset({"unplug"})),
    Scenario("clumsy_operator", "eight boards with a clumsy operator: wrong and turned boards are refused",
             _plan({"kind": "wrong_board", "rate": 0.25}, {"kind": "rotated_board", "rate": 0.15}),
             _expect(verifier=("F8",), refused_labels=1), frozenset({"wrong_board", "rotated_board"}),
             boards=tuple(range(1, 9)), machine=frozenset({"reader_north"})),
    Scenario("leftover_cards", "three cards were left in board 2: found before dealing, emptied by the operator "
             "(no fault by Law), dealt",
             _plan({"kind": "leftover_cards", "board_number": 2, "count": 3}),
             _expect(), frozenset({"leftover_cards"}),
             defence="checks that a board is empty before dealing into it"),
    Scenario("already_dealt", "board 2 was dealt in an earlier session: found full before dealing, emptied by the "
             "operator (no fault by Law), dealt once",
             _plan({"kind": "leftover_cards", "board_number": 2, "count": 52}),
             _expect(), frozenset({"leftover_cards"}),
             defence="checks that a board is empty before dealing into it"),
    Scenario("swap_after_check", "the operator swaps board 2 for board 1 (dealt already) as soon as its label is "
             "read: the check is cancelled, board 1 refused (F8), board 2 dealt",
             _plan({"kind": "swap_board", "scan": 3, "seconds": 0.1}),
             _expect(verifier=("F8",), refused_labels=1), frozenset({"swap_board"}),
             defence="checks the board again when it moves after its label was read",
             machine=frozenset({"board_sensor"})),
    Scenario("turned_readable", "board 2 goes in turned a quarter on a machine that reads every edge: the turn "
             "is reported, refused before dealing (F6), put in straight, dealt",
             _plan({"kind": "rotated_board", "insertion": 2, "turns": 1}),
             _expect(verifier=("F6",), refused_labels=1), frozenset({"turned_readable"}),
             defence="refuses a board that does not lie straight", machine=frozenset({"reader_edges"})),
    Scenario("turned_unread", "board 2 goes in turned a quarter on a machine with one reader, at its North "
             "side: the label is not read (F8), the board put in again, dealt",
             _plan({"kind": "rotated_board", "insertion": 2, "turns": 1}),
             _expect(verifier=("F8",), refused_labels=1), frozenset({"rotated_board"}),
             machine=frozenset({"reader_north"})),
    Scenario("never_readable", "board 2's label never reads: refused three times (F8), then left to the "
             "director; the other boards are dealt",
             _plan({"kind": "unreadable_label", "board_number": 2, "persistent": True}),
             _expect(verifier=("F8",), verified=False, refused_labels=3), frozenset({"damaged_label"}),
             defence="stops asking for a board after a few refusals"),
    Scenario("double_feed_unseen", "two cards go in at once unnoticed: the pack runs out after 51 cards; the "
             "board is recounted (a pocket over, another under: F2), emptied and redealt",
             _plan({"kind": "double_feed", "board": 1, "card": 5, "detected": False}),
             _expect(("EMPTY_HOPPER",), ("F2",), redeals=1), frozenset({"double_feed"}),
             defence="recounts when the pack runs out early and finds the double feed"),
    Scenario("crossed_cards", "two cards cross into each other's pockets unnoticed: every pocket holds 13 but "
             "cards are exchanged (F3); redeal",
             _plan({"kind": "swapped_cards", "board": 1, "card": 5}), _expect(verifier=("F3",), redeals=1),
             frozenset({"swapped_cards"})),
    Scenario("selector_offset", "the pocket selector is one pocket out for a whole board: every hand lands one "
             "pocket round (F6); redeal",
             _plan({"kind": "misfeed", "rate": 1.0, "times": 52}), _expect(verifier=("F6",), redeals=1),
             frozenset({"misfeed"})),
    Scenario("stale_deal", "the machine deals board 1's deal into board 2: another board's deal (F7) stops "
             "the run",
             _plan({"kind": "stale_deal", "board": 2}), _expect(verifier=("F7",), verified=False),
             frozenset({"firmware_faults"}), defence="stops the run on another board's deal"),
    Scenario("recount_fifth_pocket", "the recount reports a fifth pocket of extra cards: a protocol fault, "
             "nothing verified; redeal",
             _plan({"kind": "extra_pocket", "board": 1}), _expect(("PROTOCOL",), redeals=1),
             frozenset({"firmware_faults"}), defence="matches every report to the request"),
    Scenario("deal_done_other_job", "DealDone names another job: a protocol fault, nothing verified; redeal",
             _plan({"kind": "wrong_job", "board": 1, "report": "deal_done"}), _expect(("PROTOCOL",), redeals=1),
             frozenset({"firmware_faults"}), defence="matches every report to the request"),
    Scenario("recount_other_job", "the recount names another job: a protocol fault, nothing verified; redeal",
             _plan({"kind": "wrong_job", "board": 1, "report": "recount"}), _expect(("PROTOCOL",), redeals=1),
             frozenset({"firmware_faults"}), defence="matches every report to the request"),
    Scenario("deal_done_miscount", "DealDone counts 13 14 12 13 but the recount finds 13 in every pocket: a "
             "protocol fault, nothing verified; redeal",
             _plan({"kind": "miscount", "board": 1}), _expect(("PROTOCOL",), redeals=1),
             frozenset({"firmware_faults"}), defence="matches every report to the request"),
    Scenario("fault_other_job", "the machine stops with a fault it reports for another job: a protocol fault, "
             "nothing verified; redeal",
             _plan({"kind": "wrong_job", "board": 1, "card": 20, "report": "fault"}),
             _expect(("PROTOCOL",), redeals=1), frozenset({"firmware_faults"}),
             defence="matches every report to the request"),
)


def by_name(name: str) -> Scenario:
    """The scenario called `name`; raises KeyError naming the known ones."""
    for s in SCENARIOS:
        if s.name == name:
            return s
    raise KeyError(f"no scenario {name!r} (known: {', '.join(s.name for s in SCENARIOS)})")
