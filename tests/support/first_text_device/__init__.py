"""A dealing machine written from the first published text of `firmware_protocol/PROTOCOL.md` version 1 alone
(`PROTOCOL-first-text.md`, as it stood on 2026-12-01 before later revisions of version 1), kept as it was then: the
host must go on dealing to a machine built to that text (protocol version 1, schema hash 0x8FFD51C4).

It shares no code with the host, the simulator or the C library: its own codec, link, state machine and a
simulated mechanism (a rack of labelled boards, a hopper, a card reader, pockets and an operator who answers the
display's prompts). `python -m tests.support.first_text_device` serves it on a pseudo-terminal; READING.md lists
where that text left the choice to its reader. `tests.support.independent_device` is the same machine grown with
the document since.
"""
