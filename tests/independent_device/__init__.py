"""Tests of the dealing machine written from PROTOCOL.md alone (`tests.support.independent_device`), and
of the host against it. READING.md lists where the document left its reader to choose."""
