"""One board job for the machine-driver tests: its job number, its deal, and the deal packed for the wire."""

from __future__ import annotations

from dealer.core.cards import pack
from tests.support.deals import random_deals

DEAL = random_deals(11, 1)[0]
PACKED = bytes(pack(DEAL[None])[0])
JOB = 7
