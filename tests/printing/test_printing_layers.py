"""The printing package keeps layout pure: only the painters and the writers touch files or reportlab."""

from __future__ import annotations

import pytest

from tests.support.imports import imports_of
from tests.support.paths import ROOT

PURE = ("handview", "drawing", "records_layout", "curtains_layout", "labels_layout", "records_html", "svg",
        "stats_layout")
IO_MODULES = {"os", "io", "pathlib", "sys", "tempfile", "shutil", "subprocess", "socket", "open"}


@pytest.mark.parametrize("name", PURE)
def test_layout_modules_do_no_io_and_need_no_extra(name: str) -> None:
    path = ROOT / "dealer" / "printing" / f"{name}.py"
    source = path.read_text(encoding="utf-8")
    for imported in imports_of(path):
        top = imported.split(".")[0]
        assert top not in IO_MODULES | {"reportlab", "endplay", "serial"}, f"{name} imports {imported}"
        assert imported not in {"dealer.core.outfile", "dealer.core.extras", "dealer.formats"}, (
            f"{name} imports {imported}")
    assert "open(" not in source and "require(" not in source


def test_only_the_painter_and_encoder_load_reportlab() -> None:
    users = {p.stem for p in (ROOT / "dealer").rglob("*.py") if '"reportlab' in p.read_text(encoding="utf-8")}
    assert users == {"pdf", "code128", "outputs"}


def test_only_doubledummy_loads_the_solver() -> None:
    users = {p.stem for p in (ROOT / "dealer").rglob("*.py") if '"endplay' in p.read_text(encoding="utf-8")}
    assert users == {"doubledummy"}
