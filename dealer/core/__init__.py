"""The data every other package shares, and nothing that moves cards: the lowest layer of `dealer`.

Owns: cards and the `(n, 52)` deal arrays (Law 1, `cards`), board numbers, ranges, dealer and
vulnerability (Law 2, `boards`), a session's deals with their boards (`dealset`), the error classes
and their exit codes (`errors`), Big Deal's numbering of all deals (the Gödel bijection between deals and
the numbers 0 .. D-1, `godel`), safe output files (atomic, no overwrite, secret modes: `outfile`),
optional extras imported on demand (`extras`) and work split over threads in chunks (`parallel`).

May import: the standard library, numpy, and `firmware_protocol.labels` (the board-label grammar, a
contract shared with the machines). Nothing else of this project.
"""
