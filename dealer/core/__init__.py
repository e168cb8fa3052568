"""The data every other package shares, the lowest layer: cards and deal arrays (Law 1), boards (Law 2),
deal sets, errors and exit codes, Big Deal's deal numbering (`godel`), safe output files, optional
extras, work split over threads.

May import: numpy, `firmware_protocol.labels` (the board-label grammar) and `dealer.language` (the words a person
reads); nothing else of this project.
"""
