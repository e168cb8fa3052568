"""Every PDF the program writes (hand records, curtain cards, board labels, the statistics report of deals
and of a shuffling model), made by the commands a user runs: every character each writer puts on its
pages has a glyph in a font embedded in the PDF (read back from the file: each font's ToUnicode map and
its embedded TrueType's cmap), no font is left to the viewer, no text runs into the page's margins
(measured in that font), and every page rendered to PNG by PDFium (pypdfium2, the renderer of Chromium's PDF
viewer, installed with the `test` extra) is not blank. The PNGs are kept in DEALER_TEST_ARTIFACTS/pdf (or the
test's pytest temporary folder when that is unset)."""

from __future__ import annotations

import re
import struct
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from dealer.cli import main
from dealer.printing import curtains_layout, labels_layout, outputs, records_layout, stats_layout
from dealer.printing.drawing import Page, TextItem
from dealer.printing.pdf import font_name
from tests.support.artifacts import artifacts_folder

OBJECT = re.compile(rb"(\d+) 0 obj\s*(.*?)endobj", re.S)
REF = rb"/%s (\d+) 0 R"
MARGINS = {"records": records_layout.MARGIN, "curtains": curtains_layout.MARGIN,
           "labels": min(stock.left for stock in labels_layout.STOCKS.values()),
           "stats": stats_layout.MARGIN, "stats-model": stats_layout.MARGIN}
"""Millimetres each writer's pages keep clear at their left and right edges: no text may run into them."""
BFCHAR = re.compile(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>")
COMMANDS = {
    "records": ["records", "{deals}", "-o", "{out}"],
    "curtains": ["curtains", "{deals}", "-o", "{out}"],
    "labels": ["labels", "--set", "A", "--boards", "1-24", "-o", "{out}"],
    "stats": ["stats", "{deals}", "-o", "{out}"],
    "stats-model": ["stats", "--shuffle-model", "7", "--deals", "300", "--seed", "1", "-o", "{out}"],
}


def stream(body: bytes) -> bytes:
    """An object's stream, inflated if it is Flate-compressed."""
    head, _, rest = body.partition(b"stream")
    raw = rest.lstrip(b"\r\n").rsplit(b"endstream", 1)[0]
    return zlib.decompress(raw) if b"/FlateDecode" in head else raw


def ref(body: bytes, key: str) -> int | None:
    found = re.search(REF % key.encode(), body)
    return int(found.group(1)) if found else None


def embedded_characters(pdf: Path) -> tuple[set[str], list[str]]:
    """The characters the PDF's embedded fonts can show (a code mapped to the character by the font's
    ToUnicode map and to a real glyph, not glyph 0, by the embedded TrueType's cmap), and the fonts that
    are not embedded."""
    objects = {int(m.group(1)): m.group(2) for m in OBJECT.finditer(pdf.read_bytes())}
    shown: set[str] = set()
    bare: list[str] = []
    for body in objects.values():
        if not re.search(rb"/Type /Font(?![A-Za-z])", body):  # a font, not a font descriptor
            continue
        name = re.search(rb"/BaseFont /(\S+)", body)
        descriptor, to_unicode = ref(body, "FontDescriptor"), ref(body, "ToUnicode")
        font_file = ref(objects[descriptor], "FontFile2") if descriptor is not None else None
        if font_file is None or to_unicode is None:
            bare.append(name.group(1).decode() if name else "?")
            continue
        glyphs = code_glyphs(stream(objects[font_file]))
        cmap = stream(objects[to_unicode])
        assert b"beginbfrange" not in cmap, "a ToUnicode range this reader does not read"
        blocks = re.findall(rb"beginbfchar(.*?)endbfchar", cmap, re.S)
        pairs = [pair for block in blocks for pair in BFCHAR.findall(block)]
        for code, text in pairs:
            character = bytes.fromhex(text.decode()).decode("utf-16-be")
            if character != "\0" and glyphs.get(int(code, 16), 0) != 0:
                shown.add(character)
    return shown, bare


def code_glyphs(ttf: bytes) -> dict[int, int]:
    """Character code -> glyph of an embedded TrueType font's cmap (formats 0 and 6, as subsets have),
    glyphs beyond the font's count (maxp) left out."""
    tables = {ttf[12 + 16 * i:16 + 16 * i]: struct.unpack(">II", ttf[20 + 16 * i:28 + 16 * i])
              for i in range(struct.unpack(">H", ttf[4:6])[0])}
    count = struct.unpack(">H", ttf[tables[b"maxp"][0] + 4:tables[b"maxp"][0] + 6])[0]
    cmap = tables[b"cmap"][0]
    codes: dict[int, int] = {}
    for k in range(struct.unpack(">H", ttf[cmap + 2:cmap + 4])[0]):
        at = cmap + struct.unpack(">I", ttf[cmap + 8 + 8 * k:cmap + 12 + 8 * k])[0]
        kind = struct.unpack(">H", ttf[at:at + 2])[0]
        if kind == 0:
            codes.update(enumerate(ttf[at + 6:at + 262]))
        elif kind == 6:
            first, n = struct.unpack(">HH", ttf[at + 6:at + 10])
            glyphs = struct.unpack(f">{n}H", ttf[at + 10:at + 10 + 2 * n])
            codes.update(zip(range(first, first + n), glyphs, strict=True))
        else:
            raise AssertionError(f"a cmap of format {kind}, which this reader does not read")
    return {code: glyph for code, glyph in codes.items() if glyph < count}


def extents(page: Page) -> list[tuple[TextItem, float, float]]:
    """Each text of the page with its left and right ends in mm, measured in the embedded font by reportlab."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    out = []
    for item in page.items:
        if isinstance(item, TextItem):
            width = stringWidth(item.text, font_name(item.font), item.size) * 25.4 / 72
            left = item.x - {"start": 0.0, "middle": width / 2, "end": width}[item.anchor]
            out.append((item, left, left + width))
    return out


def render_pages(pdf: Path, stem: Path, dpi: int = 50) -> list[Path]:
    """Every page of the PDF rendered to ``STEM-N.png`` (N from 1) by PDFium; the PNGs' paths."""
    import pypdfium2

    document = pypdfium2.PdfDocument(pdf)
    try:
        pngs = []
        for number, page in enumerate(document, start=1):
            png = stem.with_name(f"{stem.name}-{number}.png")
            page.render(scale=dpi / 72).to_pil().save(png)
            pngs.append(png)
        return pngs
    finally:
        document.close()


def not_blank(png: Path) -> float:
    """The share of a page's pixels that are not white."""
    with Image.open(png) as image:
        grey = image.convert("L")
        histogram = grey.histogram()
    return 1 - sum(histogram[250:]) / sum(histogram)


@pytest.fixture(scope="module")
def deals(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("deals") / "session.pbn"
    assert main(["generate", "--boards", "1-12", "--event", "Tuesday pairs", "-o", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return artifacts_folder("pdf", tmp_path_factory)


@pytest.mark.parametrize("kind", list(COMMANDS))
def test_every_pdf_shows_each_character_from_an_embedded_font_and_renders_to_pages_not_blank(
        kind: str, deals: Path, artifacts: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    written: list[Sequence[Page]] = []
    real = outputs.write_pdf

    def spy(pages: Sequence[Page], *args: Any) -> None:
        written.append(pages)
        real(pages, *args)

    monkeypatch.setattr(outputs, "write_pdf", spy)
    out = tmp_path / f"{kind}.pdf"
    argv = [a.format(deals=deals, out=out) for a in COMMANDS[kind]]
    assert main(argv) == 0, argv
    assert len(written) == 1 and out.stat().st_size > 0
    used = {ch for pages in written for page in pages for item in page.items if isinstance(item, TextItem)
            for ch in item.text if not ch.isspace()}
    assert used, kind
    off = [(item.text, round(left, 1), round(right, 1)) for pages in written for page in pages
           for item, left, right in extents(page) if left < MARGINS[kind] - 0.1 or right > page.width - MARGINS[kind]]
    assert off == [], f"{kind}: texts running into the page's margin"
    shown, bare = embedded_characters(out)
    assert bare == [], f"{kind}: fonts not embedded: {bare}"
    assert sorted(used - shown) == [], f"{kind}: characters with no embedded glyph"

    pngs = render_pages(out, artifacts / kind)
    assert len(pngs) == len(written[0])
    for png in pngs:
        assert not_blank(png) > 0.005, png


def test_the_statistics_report_shows_its_superscripts_and_greek_from_the_font(
        deals: Path, tmp_path: Path) -> None:
    out = tmp_path / "stats.pdf"
    assert main(["stats", str(deals), "-o", str(out)]) == 0
    shown, _ = embedded_characters(out)
    assert {"⁴", "²", "Σ", "♠"} <= shown


def test_a_character_the_font_lacks_is_refused_in_one_line_and_nothing_is_written(
        deals: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "records.pdf"
    assert main(["records", str(deals), "-o", str(out), "--title", "橋牌 Pairs", "--no-dd"]) == 2  # a usage error
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == ("dealer: error: hand records: the printed font has no 橋 牌 (in '橋牌 Pairs'): write it with "
                       "other characters")
    assert list(tmp_path.iterdir()) == []
