"""`python -m dealer` runs the command line."""

import sys

from dealer.cli import main

sys.exit(main())
