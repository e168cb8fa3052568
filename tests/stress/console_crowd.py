"""The console (`dealer serve`) under a crowd: idle connections and slow-loris sockets held open (each one the
console closes is opened again) through a run on simulated machines, the console's open files limited.

    python -m tests.stress.console_crowd [--idle 1100] [--loris 300] [--seconds 50] [--boards 40]

Starts the real command with ``ulimit -n FILES`` (soft and hard, set in the child before it starts) in a
temporary folder, with a deal history of its own; talks to it over loopback only, every loop bounded in count
and time; stops it and removes the folder whatever happens. Held when every board of the run is verified, the
director's Room (GET / and /api/room with the token) answers every request within --answer-within seconds from
--settle seconds into the crowd on, the console's peak memory stays under 300 MB, its open files under its
limit, and its terminal says a few lines, not one per connection. Prints the figures; exit 1 if not held.
"""

from __future__ import annotations

import sys

from tests.support.console_crowd import main

if __name__ == "__main__":
    sys.exit(main())
