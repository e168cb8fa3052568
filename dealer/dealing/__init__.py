"""The live dealing run: ports (`ports` opens any by its URL: `transport`, `sim_ports`), the machine driver
(`machine`), one board's life on a machine (`board`), the station loop around it (`station`), crash
recovery (`recovery`), what one run's stations share (`context`), runs over several machines (`run`,
`run_report`), progress, the recount of boards dealt earlier (`recheck`) and the demo. It records through
`dealer.journal`.

May import: `dealer.core`, `dealer.engines`, `dealer.formats`, `dealer.verify`, `dealer.stats`,
`dealer.journal`, `firmware_protocol` (in `machine` only, besides the label grammar), pyserial (in `transport`
only) and `hil` (in `sim_ports` and `demo` only).
"""
