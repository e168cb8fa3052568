"""The bar pattern of a Code 128 symbol, from reportlab's encoder (extra ``print``), as widths, so the PDF
and SVG painters draw the very same bars.
"""

from __future__ import annotations

from dealer.core.extras import require


def bar_widths(payload: str) -> tuple[int, ...]:
    """Module widths of the symbol for `payload`: bar, space, bar, ... ending on a bar; no quiet zones.

    reportlab picks the code sets (B, with C for long digit runs), adds the start, the modulo-103 check
    symbol and the stop, and spells the symbol as letters: an upper-case letter is a bar and a lower-case
    one a space, 'a' / 'A' one module wide up to 'd' / 'D' four; this turns that spelling into widths."""
    module = require("reportlab.graphics.barcode.code128", "print", "board labels")
    symbol = module.Code128(payload)
    symbol.validate()
    if symbol.validated != payload:
        raise ValueError(f"Code 128 cannot carry {payload!r}")
    symbol.encode()
    pattern: str = symbol.decompose()
    widths = tuple(ord(ch.lower()) - ord("a") + 1 for ch in pattern)
    bars_first = all(ch.isupper() == (i % 2 == 0) for i, ch in enumerate(pattern))
    symbols = len(symbol.encoded)
    if not bars_first or len(pattern) % 2 == 0 or sum(widths) != 11 * symbols + 2:
        raise ValueError(f"unexpected Code 128 pattern for {payload!r}")
    return widths
