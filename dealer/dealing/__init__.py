"""The live dealing run: the port (`transport`, the only module that imports pyserial; `sim_ports` for the
built-in simulated machines; `ports` opens either by its URL), one machine's driver in host terms (`machine`,
the only module that speaks wire messages), each board's life on a machine (`station`; the pieces it shares
with `recovery`, its settling after a crash, in `board`), what the stations of one run share (`context`), a
run over several machines (`run`, its report file `run_report`), live progress (`progress`), the recount of
boards dealt earlier (`recheck`) and the demo session (`demo`). It records through `dealer.journal`.

May import: `dealer.core`, `dealer.engines`, `dealer.formats`, `dealer.verify`, `dealer.stats`,
`dealer.journal`, `firmware_protocol` (in `machine` only, besides the label grammar), pyserial (in `transport`
only) and `hil` (in `sim_ports` and `demo` only).
"""
