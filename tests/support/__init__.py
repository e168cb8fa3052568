"""Helpers shared by the test modules: one module per kind of helper, each named for what it holds.

Test modules import helpers from here only, never from one another (`tests/test_test_suite.py`).
"""
