"""`python -m hil`: serve a simulated dealing machine on a pseudo-terminal (see hil.cli)."""

import sys

from hil.cli import main

sys.exit(main())
