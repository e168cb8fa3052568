"""Prepared boards: deals for teaching and practice that meet a condition written in the language of Hans van
Staveren's `dealer` (a grammar read by Lark, the file dealer.lark), compiled once into numpy operations over batches
of deals from the project's engines. Such deals are not the "wholly random" deals Law 6E4 asks of an event.

May import: `dealer.core`, `dealer.engines`, `dealer.language`, numpy, lark.
"""

from __future__ import annotations

from dealer.prepared.compiler import Compiled, ScriptRunError
from dealer.prepared.script import Script, ScriptError, parse_script, read_script
from dealer.prepared.search import DEFAULT_MAX_DEALS, ConditionNotMet, Found, Predeal, search

__all__ = ["DEFAULT_MAX_DEALS", "Compiled", "ConditionNotMet", "Found", "Predeal", "Script", "ScriptError",
           "ScriptRunError", "parse_script", "read_script", "search"]
