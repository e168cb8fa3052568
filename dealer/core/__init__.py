"""The data every other package shares, the lowest layer: cards and deal arrays (Law 1), boards (Law 2),
deal sets, errors and exit codes, Big Deal's deal numbering (`godel`), safe output files, optional
extras, work split over threads.

May import: numpy and `firmware_protocol.labels` (the board-label grammar); nothing else of this project.
"""
