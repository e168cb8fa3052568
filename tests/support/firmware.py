"""What the firmware tests (`tests/firmware/`) share: the type of their fixture that starts the C machine's
firmware under QEMU (`hil.qemu.FirmwareMachine`)."""

from __future__ import annotations

from collections.abc import Callable

from hil.qemu import FirmwareMachine

MachineFactory = Callable[..., FirmwareMachine]
"""`firmware_machine(options, verbose=False)`: the firmware started with the machine's options."""
