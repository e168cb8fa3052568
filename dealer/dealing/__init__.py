"""The live dealing run: ports (`ports`, `transport`, `sim_ports`), the machine driver (`machine`), one
board's life (`board`) inside the station loop (`station`), crash recovery (`recovery`), a run's shared context
(`context`), runs (`run`, `run_report`), `progress`, `recheck` and the `demo`. It records through `dealer.journal`.

May import: `dealer.core`, `dealer.language`, `dealer.engines`, `dealer.formats`, `dealer.verify`, `dealer.stats`,
`dealer.journal`;
`firmware_protocol` (in `machine` only, besides labels), pyserial (`transport` only), `hil` (`sim_ports`, `demo`).
"""
