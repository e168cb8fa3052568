"""Files cut short: a valid file of every format we write, cut at every byte boundary, is read whole,
refused naming a line or a byte offset, or - only in a format that cannot tell, having no count of its
boards - read as fewer boards with a note saying the format does not record how many boards it holds.
Never another exception, never a silently shorter session, never other deals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealer import formats
from dealer.core.dealset import DealSet
from dealer.core.errors import FormatError
from dealer.formats.reading import ReadReport
from tests.support.deals import random_deals
from tests.support.format_round_trips import OURS, read_bytes, write_bytes

FORMATS = ("pbn", *OURS)
COUNTS_ITS_BOARDS = {"dup", "dlm", "rzd", "json"}  # what a cut file of these must never be: fewer boards


def test_the_formats_that_count_their_boards_are_the_ones_that_say_so() -> None:
    assert {f for f in FORMATS if formats.get_format(f).COUNTED} == COUNTS_ITS_BOARDS


def outcome(data: bytes, path: Path, fmt: str, whole: DealSet) -> str:
    """'whole', 'refused' or 'fewer' for one cut file; fails the test for anything else. The reader runs
    on the bytes in memory first (fast); what it does not refuse is read again as a file, as commands
    read, for the notes."""
    try:
        read_bytes(fmt, data, str(path))
    except FormatError as exc:
        assert exc.line is not None or exc.offset is not None, str(exc)
        assert str(exc).startswith(str(path)), str(exc)
        return "refused"
    path.write_bytes(data)
    report = ReadReport()
    try:
        got = formats.read_file(path, fmt, report=report)
    except FormatError as exc:  # a file with no boards at all
        assert exc.offset == len(data) and "holds no boards" in str(exc), str(exc)
        return "refused"
    if got.same_deals(whole):
        return "whole"
    n = len(got)
    assert 0 < n < len(whole), f"{n} boards read from a cut file of {len(whole)}"
    assert got.same_deals(DealSet(whole.boards[:n], whole.deals[:n], whole.dealers[:n], whole.vulnerabilities[:n]))
    assert not formats.get_format(fmt).COUNTED, f"{fmt} counts its boards but read {n} of {len(whole)}"
    assert [note for note in report.notes if "does not record how many boards" in note], report.notes
    return "fewer"


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_cut_of_a_valid_file_is_whole_refused_or_fewer_with_a_note(fmt: str, tmp_path: Path) -> None:
    @settings(max_examples=1 if fmt == "dlm" else 3, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.integers(1, 3), st.integers(0, 2**32), st.integers(1, 60))
    def check(n: int, seed: int, first: int) -> None:
        boards = np.arange(first, first + n) if formats.get_format(fmt).NUMBERED else np.arange(1, n + 1)
        deals = DealSet.from_deals(random_deals(seed, n), boards)
        data = write_bytes(fmt, deals)
        path = tmp_path / f"cut.{fmt}"
        path.write_bytes(data)
        whole = formats.read_file(path, fmt)
        assert whole.same_deals(deals)
        seen = {outcome(data[:cut], path, fmt, whole) for cut in range(len(data))}
        assert "refused" in seen
        assert ("fewer" in seen) == (n > 1 and fmt not in COUNTS_ITS_BOARDS and fmt != "dlm")

    check()
