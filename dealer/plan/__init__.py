"""The congress plan: one TOML file for a whole event (`Plan.load`, every error one line naming the file
and the field's key path) -> deal sets and board jobs per session, and its run over `dealer.dealing`. The
fields and an example: docs/plan-file.md and examples/congress.toml.

May import: `dealer.core`, `dealer.language`, `dealer.engines`, `dealer.prepared` (a teaching plan's scripts),
`dealer.formats`, `dealer.squaredeal`, `dealer.verify`, `dealer.journal`, `dealer.dealing`.
"""

from __future__ import annotations

from dealer.plan.congress import Plan
from dealer.plan.model import (
    DealingOrder,
    EngineSource,
    FileSource,
    MachineSpec,
    PlanError,
    PlanEvent,
    Section,
    Session,
    SessionSource,
    Source,
    SquareDealSource,
)

__all__ = [
    "DealingOrder",
    "EngineSource",
    "PlanEvent",
    "FileSource",
    "MachineSpec",
    "Plan",
    "PlanError",
    "Section",
    "Session",
    "SessionSource",
    "Source",
    "SquareDealSource",
]
