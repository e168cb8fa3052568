"""Every file `dealer generate` writes gives its boards back, or is refused: for every format and any set of
1-200 boards (runs and gaps, sometimes out of order, numbers near CDS's 256 and past DUP's 99),
``dealer generate --boards SET -o FILE`` then ``dealer convert FILE back.pbn`` (with ``--first-board N``
when the generate named it) gives the boards, dealers, vulnerabilities and deals of the same stream
written as PBN; or the generate was refused in one line, wrote nothing, and only where the format cannot
carry the set (a set not one run in a format without board numbers, boards past 99 in DUP and DLM, board
numbers CDS would read back as others). In this process, through `dealer.cli.main`.
"""

from __future__ import annotations

import contextlib
import io
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealer import formats
from dealer.cli import main
from dealer.core.boards import format_board_spans
from dealer.core.errors import FormatError
from dealer.formats import board_sets

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FIRST_BOARD = re.compile(r"--first-board (\d+)")


@dataclass
class Outcome:
    code: int
    out: str
    err: str


def dealer(*argv: str) -> Outcome:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return Outcome(code, out.getvalue(), err.getvalue())


@st.composite
def board_spans(draw: st.DrawFn) -> list[tuple[int, int]]:
    """1-200 boards as runs (first, last) with gaps between them, ascending or now and then shuffled."""
    total = draw(st.integers(1, 200))
    runs = draw(st.integers(1, min(total, 6)))
    cuts = sorted(draw(st.lists(st.integers(1, total - 1), min_size=runs - 1, max_size=runs - 1, unique=True))) \
        if runs > 1 else []
    lengths = [b - a for a, b in zip([0, *cuts], [*cuts, total], strict=True)]
    start = draw(st.one_of(st.integers(1, 40), st.integers(200, 300), st.integers(1, 2000)))
    spans = []
    for length in lengths:
        spans.append((start, start + length - 1))
        start += length + draw(st.one_of(st.integers(1, 5), st.integers(1, 300)))
    if draw(st.integers(0, 9)) == 0:
        spans = draw(st.permutations(spans))
    return spans


def may_refuse(fmt: str, spans: list[tuple[int, int]]) -> bool:
    """True where the format cannot carry the set (what the refusal must be confined to)."""
    module = formats.get_format(fmt)
    one_run = len(board_sets.merged(spans)) == 1
    beyond = module.MAX_BOARD is not None and max(last for _, last in spans) > module.MAX_BOARD
    if module.BOARD_SET == board_sets.ONE_RUN:
        return not one_run or beyond
    if module.BOARD_SET == board_sets.POSITIONS:
        return not board_sets.ascending(board_sets.merged(spans))
    return bool(module.BOARD_SET == board_sets.BYTE_NUMBERS)


@pytest.mark.parametrize("fmt", formats.format_names())
@SETTINGS
@given(spans=board_spans(), seed=st.binary(min_size=20, max_size=20))
def test_a_generated_file_reads_back_to_its_boards_or_is_refused(fmt: str, spans: list[tuple[int, int]],
                                                                   seed: bytes) -> None:
    module = formats.get_format(fmt)
    boards = format_board_spans(spans) if len(spans) == len(board_sets.merged(spans)) else \
        ",".join(f"{a}-{b}" if a < b else str(a) for a, b in spans)
    common = ["--boards", boards, "--seed", seed.hex(), "--owner", "round trip", "--threads", "1"]
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        reference = work / "reference.pbn"
        assert dealer("generate", *common, "-o", str(reference)).code == 0
        expected = formats.read_file(reference)

        target = work / f"deals.{module.EXTENSIONS[0]}"
        made = dealer("generate", *common, "-o", str(target))
        if made.code != 0:
            assert made.code == FormatError.exit_code, made.err
            assert made.err.count("\n") == 1 and made.err.startswith("dealer: error: "), made.err
            assert sorted(p.name for p in work.iterdir()) == ["reference.pbn"], "a refused generate wrote a file"
            assert may_refuse(fmt, spans), f"{fmt} refused boards {boards}: {made.err}"
            return
        options = [f"--first-board={m}" for m in FIRST_BOARD.findall(made.err)]
        assert len(options) <= 1, made.err
        back = work / "back.pbn"
        converted = dealer("convert", str(target), str(back), *options)
        assert converted.code == 0, converted.err
        got = formats.read_file(back)
        shown = format_board_spans(board_sets.spans_of(got.boards))
        assert got.same_deals(expected), f"{fmt}: boards {boards} read back as {shown}"


def test_the_bhg_files_of_the_issue_read_back_to_their_boards(tmp_path: Path) -> None:
    """Boards 1-16,22 generated to BHG, and boards 11 and 22 converted from PBN to BHG, read back as
    themselves with no option (the file carries their positions), not as 17 or 12 with hands turned."""
    common = ["--seed", "2032485c069ff21b50ba601651bdff38908bf5b0", "--threads", "1"]
    assert dealer("generate", "--boards", "1-16,22", *common, "-o", str(tmp_path / "s.pbn")).code == 0
    made = dealer("generate", "--boards", "1-16,22", *common, "-o", str(tmp_path / "x.bhg"))
    assert made.code == 0 and "--first-board" not in made.err
    assert dealer("convert", str(tmp_path / "x.bhg"), str(tmp_path / "x.pbn")).code == 0
    assert formats.read_file(tmp_path / "x.pbn").same_deals(formats.read_file(tmp_path / "s.pbn"))

    assert dealer("convert", str(tmp_path / "s.pbn"), str(tmp_path / "two.pbn"), "--boards", "11,22").code == 0
    written = dealer("convert", str(tmp_path / "two.pbn"), str(tmp_path / "two.bhg"))
    assert written.code == 0 and "--first-board" not in written.err
    read = dealer("convert", str(tmp_path / "two.bhg"), str(tmp_path / "back.pbn"))
    assert read.code == 0 and "numbered by the file's line positions" in read.err
    assert formats.read_file(tmp_path / "back.pbn").same_deals(formats.read_file(tmp_path / "two.pbn"))


def test_a_set_a_format_cannot_carry_is_refused_naming_the_formats_that_can(tmp_path: Path) -> None:
    made = dealer("generate", "--boards", "1-16,22", "-o", str(tmp_path / "x.bri"))
    assert made.code == FormatError.exit_code and not (tmp_path / "x.bri").exists()
    assert made.err == (f"dealer: error: {tmp_path / 'x.bri'}: BRI holds one run of consecutive boards (it numbers "
                        "no board); boards 1-16,22 are not one run: write PBN, CSV, LIN or JSON, BHG, or one file a "
                        "run\n")
