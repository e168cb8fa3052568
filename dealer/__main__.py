"""`python -m dealer` runs the command line."""

import sys

from dealer import console

sys.exit(console())
