"""The operator at the machine: who puts which board in next, what they do when prompted, their mistakes.

They act in the `Room` by hand, after human delays (`Timing`, with seeded jitter, divided by the speed);
their mistakes come from the fault plan. What they do: `Operator`; a host's view of it: docs/simulator.md.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from firmware_protocol.codes import Prompt
from firmware_protocol.labels import BoardLabel
from firmware_protocol.messages import Display
from hil.config import SimConfig
from hil.fault_plan import FaultEngine, FaultKind, FaultSpec
from hil.model import Firmware
from hil.physical import LabelState, PhysicalBoard, board_of_label
from hil.room import Room
from hil.schedule import Schedule

TAG = "operator"


class Operator:
    """The person at the machine.

    What they do, in order of precedence:

    1. A prompt on the machine's display (a `Display` command from the host) is carried out; a new
       prompt replaces whatever they were about to do. INSERT_BOARD takes out any other board and puts
       in the one named by `label` (or board number `board` of the set in use); if that board is in
       already, they do nothing. REMOVE_BOARD takes the board out. EMPTY_BOARD takes the board out and
       empties the board named by `label` (the one in the machine if it is that board; with no label,
       the one in the machine or else the last one that came out), sets its cards aside and puts it in.
       They put boards back straight. CLEAR_PATH opens the door, clears a jammed or held card (a jammed
       or unreadable one goes back onto the hopper, wiped; a foreign one or a second copy is set aside)
       and closes the door. FIX_PACK makes the hopper's pack whole (`Room.fix_pack`).
    2. With no prompt they wait: no board goes in before the host asks for it, however late the prompt
       comes (a board put in ahead of the prompt may not be the one the host deals next).
    3. When a dealing ends (complete, aborted, reset) or the machine restarts, they load a fresh pack at
       once, setting aside whatever was left in the hopper or the card path; a board the machine ejects,
       they put away.

    Their mistakes are the board-level faults of the plan (`hil.fault_plan`). A prompt they cannot carry
    out (a board not in a closed rack) is dropped.
    """

    def __init__(self, config: SimConfig, room: Room, engine: FaultEngine, schedule: Schedule,
                 machine: Callable[[], Firmware]) -> None:
        self.config = config
        self.room = room
        self.engine = engine
        self.schedule = schedule
        self.machine = machine
        self.rng = random.Random(f"operator:{config.seed}")
        self.set_name = room.rack.set_name
        self.prompt: Display | None = None
        self.log: list[str] = []
        self._prepared: set[str] = set()
        self._hands_busy = False
        self._pulled = False
        self.last_out: PhysicalBoard | None = None

    @property
    def busy(self) -> bool:
        """A prompt not yet carried out, or a board in their hands (emptied, pulled out, being swapped)."""
        return self.prompt is not None or self._hands_busy or self._pulled

    # --- what the operator notices -------------------------------------------------------------

    def start(self, t: float) -> None:
        """The session begins: the hopper is loaded; the first board goes in when the host asks for it."""
        self.room.load_fresh_pack()

    def on_display(self, msg: Display, t: float) -> None:
        """A new prompt replaces whatever the operator was about to do (but not putting back a board
        they pulled out by mistake)."""
        self.prompt = msg if msg.prompt != Prompt.NONE else None
        if self.prompt is not None:
            self.schedule.cancel(TAG + ":step")
            self._hands_busy = False
            self._wake(t, self.config.timing.operator_react, replace=True)

    def on_loaded(self, board_number: int, t: float) -> None:
        """A deal is loaded: the operator waits for the prompt naming its board, if none is in."""

    def on_dealing_ended(self, t: float) -> None:
        self.room.load_fresh_pack()

    def on_ejected(self, board: PhysicalBoard | None, t: float) -> None:
        if board is not None:
            self.last_out = board

    def pull_board(self, spec: FaultSpec, t: float) -> None:
        """Pull the board out during dealing (a mistake), and put it back a little later."""
        turns = self.room.slot.turns if self.room.slot else 0
        board = self.room.take_out(t)
        if board is None:
            return
        self.log.append(f"pulled {board.ident} out during dealing")
        self._pulled = True
        delay = self._delay(2.0 if spec.seconds is None else spec.seconds)
        self.schedule.at(t + delay, lambda t2: self._put_back_pulled(board, turns, t2), TAG + ":pulled")

    def swap_board(self, spec: FaultSpec, t: float) -> None:
        """Just after a board's label was read: take it out and put in another (`Rack.neighbour`)."""
        self.schedule.at(t + self._delay(0.1 if spec.seconds is None else spec.seconds), self._swap, TAG + ":swap")

    def _swap(self, t: float) -> None:
        slot = self.room.slot
        if slot is None:
            return
        other = self.room.rack.neighbour(slot.board)
        board = self._take_out(t)
        self.log.append(f"swapped {board.ident if board else '?'} for {other.ident} after its label was read")
        self._prepare(other)
        self.room.insert(other, t)

    def open_door(self, spec: FaultSpec, t: float) -> None:
        """Someone opens the door; it is closed `seconds` later if the plan says so."""
        self.room.set_door(True, t)
        if spec.seconds is not None:
            self._later(t, spec.seconds, lambda t2: self.room.set_door(False, t2))

    # --- acting ----------------------------------------------------------------------------------

    def _delay(self, base: float) -> float:
        spread = self.config.timing.jitter * (2 * self.rng.random() - 1)
        return self.config.scaled(base * (1 + spread))

    def _wake(self, t: float, base: float, replace: bool = False) -> None:
        if replace:
            self.schedule.cancel(TAG)
        elif self.schedule.pending(TAG):
            return
        self.schedule.at(t + self._delay(base), self._act, TAG)

    def _later(self, t: float, base: float, action: Callable[[float], None]) -> None:
        self.schedule.at(t + self._delay(base), action, TAG + ":step")

    def _act(self, t: float) -> None:
        if self._hands_busy or self._pulled:
            self._wake(t, self.config.timing.operator_react)
            return
        prompt, self.prompt = self.prompt, None
        if prompt is not None:
            self._carry_out(prompt, t)

    def _carry_out(self, prompt: Display, t: float) -> None:
        kind = prompt.prompt
        self.log.append(f"prompt {getattr(kind, 'name', kind)}: {prompt.text!r}")
        if kind == Prompt.INSERT_BOARD:
            self._insert_asked(prompt, t)
        elif kind == Prompt.REMOVE_BOARD:
            self._take_out(t)
        elif kind == Prompt.EMPTY_BOARD:
            self._empty_board(prompt, t)
        elif kind == Prompt.CLEAR_PATH:
            self.room.set_door(True, t)
            self.room.clear_path()
            self._later(t, self.config.timing.operator_fix, lambda t2: self.room.set_door(False, t2))
        elif kind == Prompt.FIX_PACK:
            self._later(t, self.config.timing.operator_fix, self._fix_pack)

    def _take_out(self, t: float) -> PhysicalBoard | None:
        """Take the board out by hand (at a prompt)."""
        board = self.room.take_out(t)
        if board is not None:
            self.last_out = board
        return board

    def _insert_asked(self, prompt: Display, t: float) -> None:
        rack = self.room.rack
        named = board_of_label(prompt.label) if prompt.label else None
        if named is not None:
            self.set_name = named[0]
        wanted = (rack.find_label(prompt.label) if prompt.label
                  else rack.find_number(self.set_name, prompt.board) if prompt.board else None)
        if wanted is None:
            self.log.append(f"cannot find the board asked for ({prompt.label!r}, {prompt.board})")
            return
        if self.room.slot is not None and self.room.slot.board is wanted:
            return  # it is in already
        if self._take_out(t) is None:
            self._insert(wanted, t)
        else:
            self._hands_busy = True
            self._later(t, self.config.timing.operator_swap, lambda t2: self._insert(wanted, t2))

    def _empty_board(self, prompt: Display, t: float) -> None:
        board = self._take_out(t)
        if prompt.label and (board is None or board.label != prompt.label):  # the board named, not another
            named = [b for b in self.room.rack.in_use() if b.label == prompt.label]
            board = max(named, key=lambda b: b.card_count) if named else board
        board = board or self.last_out
        if board is None:
            return
        cards = board.empty()
        self.room.aside += cards
        self.room.ledger.note_emptied(board, len(cards))
        self._hands_busy = True
        self._later(t, self.config.timing.operator_fix, lambda t2: self._put_back(board, 0, t2))

    def _fix_pack(self, t: float) -> None:
        d = self.machine().dealing
        slot = self.room.slot
        pack = d.pack if d is not None else None
        in_board = {c.index for p in slot.board.pockets for c in p if c.pack == pack} if slot and pack else set()
        self.room.fix_pack(pack, in_board)

    def _put_back(self, board: PhysicalBoard, turns: int, t: float) -> None:
        self._hands_busy = False
        if self.room.slot is None:
            self.room.insert(board, t, turns)

    def _put_back_pulled(self, board: PhysicalBoard, turns: int, t: float) -> None:
        self._pulled = False
        self._put_back(board, turns, t)

    def _insert(self, board: PhysicalBoard, t: float) -> None:
        """Put a board in, making the mistakes the plan has for this insertion."""
        self._hands_busy = False
        if self.room.slot is not None:
            return
        turns, hidden = 0, False
        for spec in self.engine.insertion():
            if spec.kind is FaultKind.WRONG_BOARD:
                board = self.room.rack.neighbour(board)
            elif spec.kind is FaultKind.ROTATED_BOARD:
                turns, hidden = spec.turns, not spec.readable
        self._prepare(board)
        if board.label_state is LabelState.DIRTY and board.insertions:
            board.label_state = LabelState.OK  # handled again: they wipe the label on the way in
        self.log.append(f"inserted {board.ident}" + (f" turned {turns}" if turns else ""))
        self.room.insert(board, t, turns, hidden)

    def _prepare(self, board: PhysicalBoard) -> None:
        """The first time a board goes in: the plan's label faults for its number."""
        if board.ident in self._prepared:
            return
        self._prepared.add(board.ident)
        for spec in self.engine.label_faults(board.number):
            if spec.kind is FaultKind.LEFTOVER_CARDS:
                self._leave_cards(board, spec.count or 3)
                continue
            board.replaceable = not spec.persistent
            if spec.kind is FaultKind.UNREADABLE_LABEL:
                board.label_state = LabelState.DAMAGED if spec.persistent else LabelState.DIRTY
            elif board.number is not None and board.set_name is not None:
                good = BoardLabel.for_board(board.set_name, board.number)
                wrong = BoardLabel(good.set_name, good.board, (good.dealer + 1) % 4, good.vulnerability)
                board.label = wrong.payload().encode("ascii")

    def _leave_cards(self, board: PhysicalBoard, count: int) -> None:
        """Cards of an earlier pack left in the board, dealt round its pockets N E S W."""
        pack = self.room.packs.fresh_pack()
        for i, card in enumerate(pack[:count]):
            board.pockets[i % 4].append(card)
        self.room.aside += pack[count:]
        self.log.append(f"{board.ident} holds {count} cards left from earlier")
