"""Board labels: layout rules, and every label rendered (PDF and SVG) and decoded by a real barcode reader.

PDF pages are rendered with pypdfium2 and SVG documents with resvg (resvg-py); the images are decoded
with zxing-cpp, and each decoded payload is parsed with `BoardLabel.parse` and found in the label cell
where its board number, set, dealer and vulnerability are printed.
"""

from __future__ import annotations

import io
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from dealer.cli import main
from dealer.core.boards import dealer_of, vulnerability_of
from dealer.core.errors import UsageError
from dealer.printing.code128 import bar_widths
from dealer.printing.drawing import RectItem, TextItem
from dealer.printing.labels_layout import MAX_MODULE, MIN_MODULE, PAD, QUIET, STOCKS, LabelStock, label_items
from firmware_protocol.labels import BoardLabel
from tests.support.printed import VUL_NAMES, pdf_page_images
from tests.support.umask import public_mode

zxingcpp = pytest.importorskip("zxingcpp")
pdfium = pytest.importorskip("pypdfium2")
DPI = 300


def decode(image: Any) -> list[Any]:
    return [r for r in zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.Code128) if r.valid]


def cell_of(stock: LabelStock, x_px: float, y_px: float) -> int:
    """Index on the sheet of the label cell holding an image point."""
    x_mm, y_mm = x_px * 25.4 / DPI, y_px * 25.4 / DPI
    col = int((x_mm - stock.left) // stock.pitch_x)
    row = int((y_mm - stock.top) // stock.pitch_y)
    assert 0 <= col < stock.cols and 0 <= row < stock.rows
    assert x_mm - stock.left - col * stock.pitch_x <= stock.width, "barcode in the gap between labels"
    return row * stock.cols + col


def expected(set_name: str, boards: range, copies: int) -> list[str]:
    return [BoardLabel.for_board(set_name, b).payload() for b in boards for _ in range(copies)]


def check_sheet(results: list[Any], payloads: list[str], stock: LabelStock, y_offset_px: float = 0) -> None:
    """Every label of a sheet decoded once, in its own cell, to the payload expected there."""
    assert len(results) == len(payloads)
    seen = {}
    for r in results:
        centre_x = (r.position.top_left.x + r.position.bottom_right.x) / 2
        centre_y = (r.position.top_left.y + r.position.bottom_right.y) / 2 - y_offset_px
        seen[cell_of(stock, centre_x, centre_y)] = r.text
    assert seen == dict(enumerate(payloads))
    for text in seen.values():
        label = BoardLabel.parse(text)
        assert label.conforms


# --- layout -------------------------------------------------------------------------------------

def test_bars_sit_beside_the_text_with_quiet_zones() -> None:
    label = BoardLabel.for_board("RED", 17)
    bars = bar_widths(label.payload())
    stock = STOCKS["l7159"]
    items = label_items(label, bars, stock.width, stock.height)
    rects = [i for i in items if isinstance(i, RectItem)]
    assert len(rects) == (len(bars) + 1) // 2
    module = rects[0].w / bars[0]
    assert MIN_MODULE <= module <= MAX_MODULE
    assert rects[0].x == pytest.approx(PAD + QUIET * module)
    texts = [i for i in items if isinstance(i, TextItem)]
    number = next(t for t in texts if t.text == "17")
    assert number.x > rects[-1].x + rects[-1].w + QUIET * module  # beside, right of the quiet zone
    assert {"RED", "Dealer N", "Vul None", label.payload()} <= {t.text for t in texts}


def test_long_payloads_go_full_width_or_are_refused() -> None:
    label = BoardLabel.for_board("ABCDEFGHIJKL", 9999)
    bars = bar_widths(label.payload())
    narrow = STOCKS["l7159"]
    rects = [i for i in label_items(label, bars, narrow.width, narrow.height) if isinstance(i, RectItem)]
    texts = [i for i in label_items(label, bars, narrow.width, narrow.height) if isinstance(i, TextItem)]
    number = next(t for t in texts if t.text == "9999")
    assert number.y > rects[0].y + rects[0].h  # under the bars
    wide = STOCKS["l7163"]
    texts = [i for i in label_items(label, bars, wide.width, wide.height) if isinstance(i, TextItem)]
    rects = [i for i in label_items(label, bars, wide.width, wide.height) if isinstance(i, RectItem)]
    number = next(t for t in texts if t.text == "9999")
    assert number.y < rects[0].y + rects[0].h  # beside them
    with pytest.raises(UsageError, match="too long"):
        label_items(label, bars, 40.0, 30.0)


# --- rendered and decoded -------------------------------------------------------------------------

def test_pdf_labels_decode_back_to_their_payloads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "labels.pdf"
    assert main(["labels", "--set", "red", "--boards", "1-30", "--copies", "2", "-o", str(out)]) == 0
    assert capsys.readouterr().out == f"wrote 60 labels for 30 boards to {out}\n"
    assert stat.S_IMODE(out.stat().st_mode) == public_mode()
    stock = STOCKS["l7159"]
    payloads = expected("RED", range(1, 31), 2)
    images = pdf_page_images(out, DPI)
    assert len(images) == 3
    for page, image in enumerate(images):
        check_sheet(decode(image), payloads[page * 24:(page + 1) * 24], stock)


def test_pdf_labels_print_number_set_dealer_and_vulnerability_in_each_cell(tmp_path: Path) -> None:
    out = tmp_path / "labels.pdf"
    assert main(["labels", "--set", "C2", "--boards", "1-16", "--stock", "l7163", "-o", str(out)]) == 0
    stock = STOCKS["l7163"]
    doc = pdfium.PdfDocument(str(out))
    text_page = doc[0].get_textpage()
    points = 72 / 25.4
    page_h = stock.page[1]
    for k, board in enumerate(range(1, 15)):
        x = stock.left + (k % stock.cols) * stock.pitch_x
        y = stock.top + (k // stock.cols) * stock.pitch_y
        text = text_page.get_text_bounded(x * points, (page_h - y - stock.height) * points,
                                          (x + stock.width) * points, (page_h - y) * points)
        words = text.split()
        assert str(board) in words and "C2" in words
        assert f"Dealer {'NESW'[dealer_of(board)]}" in " ".join(words)
        assert f"Vul {VUL_NAMES[vulnerability_of(board)]}" in " ".join(words)
    doc.close()
    check_sheet(decode(pdf_page_images(out, DPI)[1]), expected("C2", range(15, 17), 1), stock)


def test_svg_labels_render_and_decode(tmp_path: Path) -> None:
    resvg = pytest.importorskip("resvg_py")
    from PIL import Image

    out = tmp_path / "labels.svg"
    assert main(["labels", "--set", "BLUE7", "--boards", "1-26", "-o", str(out)]) == 0
    png = resvg.svg_to_bytes(svg_path=str(out), dpi=DPI, background="#ffffff")
    image = Image.open(io.BytesIO(bytes(png))).convert("L")
    stock = STOCKS["l7159"]
    page_px = stock.page[1] * DPI / 25.4
    assert image.height == pytest.approx(2 * page_px, abs=2)
    payloads = expected("BLUE7", range(1, 27), 1)
    for page in range(2):
        top, bottom = round(page * page_px), round((page + 1) * page_px)
        sheet = image.crop((0, top, image.width, bottom))
        check_sheet(decode(sheet), payloads[page * 24:(page + 1) * 24], stock)


# --- the command's rules --------------------------------------------------------------------------

def test_no_overwrite_without_force_and_clear_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "labels.pdf"
    out.write_bytes(b"keep")
    assert main(["labels", "--set", "RED", "--boards", "1-4", "-o", str(out)]) == 4
    assert out.read_bytes() == b"keep"
    assert main(["labels", "--set", "RED", "--boards", "1-4", "-o", str(out), "--force"]) == 0
    assert out.read_bytes().startswith(b"%PDF")
    assert main(["labels", "--set", "RED!", "--boards", "1-4", "-o", str(tmp_path / "x.pdf")]) == 2
    assert main(["labels", "--set", "RED", "--boards", "1-4", "-o", str(tmp_path / "x.png")]) == 2
    assert main(["labels", "--set", "RED", "--boards", "1-4", "--copies", "0", "-o", str(tmp_path / "x.pdf")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 4 and all(line.startswith("dealer: error: ") for line in err)
    assert not (tmp_path / "x.pdf").exists() and not (tmp_path / "x.png").exists()


@pytest.mark.parametrize("suffix", ["pdf", "svg"])
def test_missing_print_extra_is_one_line(tmp_path: Path, suffix: str, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    for name in [m for m in sys.modules if m == "reportlab" or m.startswith("reportlab.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "reportlab", None)
    out = tmp_path / f"labels.{suffix}"
    assert main(["labels", "--set", "RED", "--boards", "1-4", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == ("dealer: error: board labels as " + suffix.upper()
                   + " needs the optional extra 'print': pip install 'duplicate-bridge-dealer[print]'\n")
    assert not out.exists()

