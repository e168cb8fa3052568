"""The director's printed outputs: hand records, curtain cards, board labels, the statistics report. Pure
layouts (`handview`, `drawing`, the ``*_layout`` modules) place pages of primitives that `pdf` and `svg`
paint; `records_html` and `stats_layout` also write HTML.

May import: `dealer.core`, `dealer.stats`, `dealer.language`, `firmware_protocol.labels`; reportlab on demand.
"""
