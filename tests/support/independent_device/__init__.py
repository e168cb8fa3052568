"""A dealing machine written from `firmware_protocol/PROTOCOL.md` alone.

It shares no code with the host, the simulator or the C library: its own codec, link, state
machine and a simulated mechanism (a rack of labelled boards, a hopper, a card reader, pockets and
an operator who answers the display's prompts). `python -m tests.support.independent_device` serves it on
a pseudo-terminal; tests/independent_device/READING.md lists where the document left the choice to the reader.
"""
