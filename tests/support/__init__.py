"""Helpers shared by the test modules (never imported from a `test_*.py` module)."""
