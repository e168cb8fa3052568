"""`dealer serve`: the duplication-room console, a live web page over the run code the CLI uses (`app`,
`runs`, `view`, `hub`, `grid`, `auth`, `director`, and what it is given: `given`, `machines`, `uploads`). The
web stack is imported only when the command runs.

May import: `dealer.core`, `dealer.language`, `dealer.formats`, `dealer.verify`, `dealer.printing`, `dealer.journal`,
`dealer.dealing`, `dealer.plan`, `firmware_protocol.labels`.
"""
