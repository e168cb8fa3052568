"""Prepared boards made for a file: the deals a script accepts, and what the file says of how they were made
(its generator tag with the condition, and the whole condition), so that a reader knows them for deals made under
conditions (`dealer.core.dealset.DealSet.conditions`, Law 6E4)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from dealer.core.dealset import PREPARED_MARK
from dealer.engines import Engine
from dealer.prepared.compiler import Compiled
from dealer.prepared.script import Script, parse_script, read_script
from dealer.prepared.search import DEFAULT_MAX_DEALS, Found, Predeal, search

TAG_TEXT: Final = 200
"""The most characters of the condition a file's tag carries."""


def load(where: str, folder: Path | None = None) -> Script:
    """The script `where` names: a file if one is there (or the text looks like a file's name), else the text.
    A relative file name is taken from `folder` when one is given."""
    path = Path(where) if folder is None else folder / where
    looks_like_file = where.endswith((".dlr", ".txt", ".dealer")) and "(" not in where
    if looks_like_file or (len(where) < 4096 and "\n" not in where and path.is_file()):
        return read_script(path)
    return parse_script(where, "--where")


def metadata(engine: str, script: Script) -> dict[str, str]:
    """The metadata of a file of boards made under `script` by `engine`."""
    condition = script.summary()
    shown = condition if len(condition) <= TAG_TEXT else condition[:TAG_TEXT - 3] + "..."
    return {"generator": f"dealer {engine}; {PREPARED_MARK}{shown}", "conditions": condition}


def prepare(script: Script, engine: Engine, count: int, max_deals: int | None = None,
            compiled: Compiled | None = None, *, threads: int | None = None) -> Found:
    """The first `count` deals of the engine's stream that meet the script (with its predealt cards), examining
    at most `max_deals` deals (default: the script's ``generate``, else `DEFAULT_MAX_DEALS`), judged on
    `threads` threads (default: one a CPU); the deals do not depend on the number."""
    limit = max_deals or script.generate or DEFAULT_MAX_DEALS
    predeal = Predeal(script.predeal) if script.predeal else None
    return search(compiled or Compiled(script), engine, count, max_deals=limit, predeal=predeal,
                  threads=threads)
