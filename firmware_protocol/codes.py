"""The numbered values carried inside messages: device states, reasons, fault codes, flags.

Each is an IntEnum (or IntFlag) whose values are the bytes on the wire (PROTOCOL.md section 7).
Receivers keep a value they do not know as a plain int instead of rejecting the message, so a newer
firmware's new fault code still reaches the host, which can show its number.
"""

from __future__ import annotations

from enum import IntEnum, IntFlag


class DeviceState(IntEnum):
    """Where the machine is in a board's life (PROTOCOL.md section 6)."""

    IDLE = 0
    LOADED = 1
    DEALING = 2
    DONE = 3
    FAULT = 4


class Activity(IntEnum):
    """The physical operation running besides dealing, if any (one at a time)."""

    NONE = 0
    SCANNING = 1
    RECOUNTING = 2
    EJECTING = 3


class StatusFlag(IntFlag):
    """Sensor bits in a Status report, and whether a FAULT can be resumed."""

    BOARD_PRESENT = 0x01
    DOOR_OPEN = 0x02
    HOPPER_EMPTY = 0x04
    FAULT_RESUMABLE = 0x08


class Capability(IntFlag):
    """What the machine can do, announced in HelloAck."""

    BARCODE_READER = 0x0001
    CARD_RECOUNT = 0x0002
    BOARD_SENSOR = 0x0004
    DOOR_SENSOR = 0x0008
    EJECT = 0x0010
    RESUME_AFTER_FAULT = 0x0020
    KEEPS_JOB_OVER_POWER_LOSS = 0x0040
    DISPLAY = 0x0080
    SIMULATED = 0x0100


class RefuseReason(IntEnum):
    """Why a device refused an intact command (the Refused reply); `detail` is given per reason."""

    HANDSHAKE_REQUIRED = 1  # detail: 0; the device restarted: send Hello first
    WRONG_STATE = 2  # detail: the current DeviceState
    BUSY = 3  # detail: the current Activity
    NO_BOARD = 4  # detail: 0
    BAD_DEAL = 5  # detail: the first seat (0..3) whose card count is not 13
    BAD_HASH = 6  # detail: the hash the device computed
    WRONG_JOB = 7  # detail: low byte of the loaded job id
    FAULT_PRESENT = 8  # detail: the FaultCode still present
    UNSUPPORTED = 9  # detail: the command's type code (the machine lacks the capability)
    NOT_SCANNED = 10  # detail: 0; the board in the machine was not scanned since it went in: ScanBoard first


class FaultCode(IntEnum):
    """Why dealing stopped (Fault event, Status); the meaning of `detail` is given per code."""

    NONE = 0
    JAM = 1  # detail: cards dealt before the jam
    EMPTY_HOPPER = 2  # detail: hopper number (the pack ran out: cards missing or no pack)
    MISFEED = 3  # detail: pocket the stray card went to (0..3), or 0xFFFF if unknown (double feed)
    UNREADABLE_CARD = 4  # detail: cards dealt before the unreadable card
    DUPLICATE_CARD = 5  # detail: the card index read a second time
    FOREIGN_CARD = 6  # detail: 0 (a card not of this pack, e.g. another back design)
    BOARD_REMOVED = 7  # detail: 0
    DOOR_OPEN = 8  # detail: door number
    POWER_LOSS = 9  # detail: 0 (dealing was interrupted by a restart)
    HARDWARE = 10  # detail: vendor-specific code
    INTERNAL = 11  # detail: vendor-specific code


class FaultFlag(IntFlag):
    """Bits in a Fault event."""

    RESUMABLE = 0x01  # StartDeal with the same job continues once the cause is cleared


class ScanResult(IntEnum):
    """Outcome of a barcode scan (BoardScanned event)."""

    OK = 0
    NO_READ = 1
    NO_BOARD = 2


class DealOutcome(IntEnum):
    """How dealing ended (DealDone event)."""

    COMPLETE = 0
    ABORTED = 1


class BootReason(IntEnum):
    """Why the device started (Boot event)."""

    UNKNOWN = 0
    POWER_ON = 1
    RESET_COMMAND = 2
    WATCHDOG = 3
    BROWN_OUT = 4


class Prompt(IntEnum):
    """What a Display command asks the operator standing at the machine to do."""

    NONE = 0  # nothing: the text is information only
    INSERT_BOARD = 1  # insert the board named by label (or board number); take out any other first
    REMOVE_BOARD = 2  # take the board out of the machine
    EMPTY_BOARD = 3  # take every card out of the board's pockets, then put the board back in
    CLEAR_PATH = 4  # clear the card path: a jammed or held card, the reject tray; close the door
    FIX_PACK = 5  # make the pack whole: put back missing cards, take out foreign and extra ones


class ResetMode(IntEnum):
    """What a Reset command does."""

    CLEAR = 0  # back to IDLE: forget the loaded deal, clear the fault, stop any activity
    REBOOT = 1  # restart the firmware (the device sends Boot when it is back)
