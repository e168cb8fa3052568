"""Dealing sessions on machines: everything between a deal set and boards in trays.

Owns, in the order a board goes: the port (`transport`, the only module that imports pyserial; `sim_ports`
for the built-in simulated machines), one machine's driver in host terms (`machine`: the only module that
speaks wire messages), the life of each board on a machine (`station`) and its settling after a crash
(`recovery`), a run over several machines (`run`), the journal that makes it resumable (`journal`, with
the jobs it records, `jobplan`, and its one-controller lock, `journal_lock`), the deal history of this
computer that carries Law 6D2 past one journal (`history`), live progress (`progress`), what happened
told from the journal (`narrative`), run reports (`report`), the recount of boards dealt earlier
(`recheck`) and the demo session on simulated machines (`demo`).

May import: `dealer.core`, `dealer.engines`, `dealer.formats`, `dealer.verify`, `firmware_protocol`
(in `machine` only, besides the label grammar), pyserial (in `transport` only) and `hil` (in
`sim_ports` and `demo` only, for the simulated machines).
"""
