'''The congress plan: one TOML file describing a whole event -> deal sets and board jobs per session.

A plan names the event, its sessions (boards, where the deals come from, the sections that play them,
how many copies of each board a section needs and the physical board sets they go into) and the
dealing machines. :meth:`Plan.load` reads it with the standard library's ``tomllib`` and checks all
of it; any error is one line naming the file and the field::

    congress.toml: sessions[2].boards: 9-3 runs backwards

(array items are counted from 1). A dealing run then asks, per session in plan order,
:meth:`Plan.deal_set` (the deals, each board once) and :meth:`Plan.jobs` (every copy, in dealing
order, as :class:`dealer.journal.jobplan.JobPlan`), and :attr:`Plan.machines` (name, pyserial URL).

Schema (paths are relative to the plan file's folder; keys not listed here are refused)::

    [event]                       required
      name         text           required; written into generated deal files
      owner        text           the Big Deal owner string (bigdealx -W); default: name
      deal_folder  text           where fresh deals are generated, as <session>.pbn; default "deals"
      journal      text           the journal of the runs; default "<plan file stem>.journal"
      order        "set"|"board"  dealing order of every session (default "set", as a dealing room
                                  works: each board set through its boards in turn; "board": every
                                  copy of a board before the next board)
      keep_seeds   true|false     also write <session>.seed (mode 0600) when generating; default false

    [[machines]]                  any number (a run needs at least one)
      name         text           required; unique
      port         text           required; unique: a serial device (/dev/ttyUSB0, COM3) or a pyserial
                                  URL (rfc2217://host:port, socket://host:port, loop://, ...) or
                                  sim://... for the built-in simulated machine

    [[sessions]]                  at least one, dealt in this order
      name         text           required; unique (any case); letters, digits, '-', '_' (a file name)
      boards       text|number    '1-32', '1-16,17-32', '7' or a count (32 = 1-32); required for
                                  a fresh engine source, else default: every board of the source
      source       see below      default "bigdeal"
      replay       true|false     Law 6D2: only a replay session may deal deals dealt before; default false
      order        "set"|"board"  this session's dealing order; default: the event's

      source = "bigdeal" | "shuffle"            fresh deals from an engine stream, generated ONCE into
             = { engine = "bigdeal" }           <deal_folder>/<session>.pbn; from then on that file is
                                                read, never regenerated: it is the record of what was dealt
             = { file = "PATH", format = "pbn" }  an existing deal file (format: default from extension)
             = { squaredeal = "EVENT.sqd", session = "OPRR05", sqk = "EVENT.sqk", reserve = false }
                                                a SquareDeal session; session default: the session's
                                                name; sqk default: the .sqk beside the .sqd
             = { deals_of = "SESSION" }         the deals of an earlier session (needs replay = true)

    [[sessions.sections]]         at least one per session
      name         text           required; unique within the session
      copies       number         copies of each board (Law 6F); default 1, or the number of sets
      sets         [text, ...]    the board set of each copy, 1-12 letters or digits (board labels
                                  SET:BOARD:DV:C); default name + copy number: A1, A2, ...; a set may
                                  serve only one section of a session
      boards       text|number    the boards this section plays; default every board of the session

Example (``examples/congress.toml``)::

    [event]
    name = "Northshire Spring Congress 2025"
    owner = "Northshire Bridge Association"
    deal_folder = "deals"
    journal = "congress.journal"

    [[machines]]
    name = "M1"
    port = "/dev/ttyUSB0"

    [[machines]]
    name = "HALL-B"
    port = "rfc2217://hall-b.local:4001"

    [[sessions]]
    name = "FRI1"
    boards = "1-28"
    source = "bigdeal"

    [[sessions.sections]]
    name = "A"
    copies = 2                   # sets A1, A2

    [[sessions.sections]]
    name = "B"
    sets = ["RED", "BLUE"]       # two copies

    [[sessions]]
    name = "FIN1"
    source = { squaredeal = "WBG2024.sqd", session = "FIN1" }
    order = "board"

    [[sessions.sections]]
    name = "A"
    copies = 3

    [[sessions]]
    name = "SUN1"
    source = { deals_of = "FRI1" }
    replay = true

    [[sessions.sections]]
    name = "A"

Besides each field's own checks, loading refuses: duplicate session, section, set, machine names and
ports; a board set used by two sections of one session; boards beyond what the source holds (the
existing file, the SquareDeal session, or a deal file generated earlier); missing files; a SquareDeal
session the .sqd does not define. :meth:`Plan.check_reuse` applies Law 6D2 across the sessions.
'''

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
