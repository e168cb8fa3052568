"""Open controller for duplicate-bridge dealing machines: deals, deal files, machines, verification."""

__version__ = "0.1.0"

