"""The director's printed outputs: hand records, curtain cards, board labels and the deal statistics report.

The layering inside this package:

* ``handview``: what a board shows in print (suit lines, HCP, dealer, vulnerability); pure.
* ``drawing``: page primitives (text, rectangles, lines) in millimetres, origin top left; pure.
* ``records_layout``, ``curtains_layout``, ``labels_layout``: place a board's view or a label on pages
  of primitives; pure.
* ``pdf``, ``svg``: paint pages of primitives (PDF through reportlab, SVG as text).
* ``records_html``: hand records and curtain cards as one self-contained HTML page.
* ``stats_layout``: the statistics report's bar charts (observed against exact) as pages of primitives,
  and the report as one HTML page with the charts in inline SVG; pure.
* ``code128``: the bar pattern of a Code 128 symbol, from reportlab's encoder.
"""
