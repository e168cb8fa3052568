"""Hand records: the PDF read back through its text (and the positions of the hands), the HTML parsed;
every board's number, dealer, vulnerability, four hands and HCP must be there, and nothing on screen."""

from __future__ import annotations

import re
import stat
import sys
from pathlib import Path

import pytest

from dealer import formats
from dealer.cli import main
from dealer.core.cards import from_pbn
from dealer.core.dealset import DealSet
from dealer.printing import outputs
from dealer.printing.doubledummy import analyse
from tests.support.deals import random_deal_set
from tests.support.printed import (
    SEAT_NAMES,
    SYMBOLS,
    VUL_NAMES,
    block_pattern,
    hcp_of,
    parse_html,
    pdf_page_texts,
    suits_of,
)

pdfium = pytest.importorskip("pypdfium2")
SOLID = "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"


@pytest.fixture
def deals() -> DealSet:
    """Nine boards: eight random deals and one with four 13-card suits (voids, the longest lines)."""
    rand = random_deal_set(8, seed=7)
    return DealSet.concat([rand, DealSet.from_deals([from_pbn(SOLID)], [9], event=rand.event)])


def board_segments(text: str) -> dict[int, tuple[int, str]]:
    """Board number -> (offset, text) of its part of a page's text."""
    heads = [(int(m.group(1)), m.start()) for m in re.finditer(r"Board (\d+)\r\n", text)]
    ends = [start for _, start in heads[1:]] + [len(text)]
    return {board: (start, text[start:end]) for (board, start), end in zip(heads, ends, strict=True)}


def test_pdf_sheet_shows_every_board_in_compass_order(tmp_path: Path, deals: DealSet) -> None:
    out = tmp_path / "records.pdf"
    views = outputs.views_for(deals, "10", dd=False)
    outputs.write_records(out, views, "Test pairs", per_page=4)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    texts = pdf_page_texts(out)
    assert len(texts) == 3
    doc = pdfium.PdfDocument(str(out))
    for page, text in enumerate(texts):
        assert text.startswith("Test pairs") and f"Page {page + 1} of 3" in text
        segments = board_segments(text)
        assert list(segments) == [int(b) for b in deals.boards[page * 4:(page + 1) * 4]]
        text_page = doc[page].get_textpage()
        for board, (offset, segment) in segments.items():
            deal = deals.deals[deals.index_of(board)]
            assert f"Dealer: {SEAT_NAMES[(board - 1) % 4]}\r\n" in segment
            assert f"Vul: {VUL_NAMES[int(deals.vulnerabilities[deals.index_of(board)])]}\r\n" in segment
            where = {}
            for seat in range(4):
                m = re.search(block_pattern(suits_of(deal, seat)), segment)
                assert m, (board, seat, segment)
                where[seat] = text_page.get_charbox(offset + m.start())  # left, bottom, right, top
                assert re.search(rf"\b{'NESW'[seat]} {hcp_of(deal, seat)}\b", segment)
            n, e, s, w = (where[k] for k in range(4))
            assert n[3] > w[3] and n[3] > e[3] and w[3] > s[3] and e[3] > s[3]   # North high, South low
            assert w[0] < n[0] < e[0] and n[0] == pytest.approx(s[0], abs=0.5)   # West left, East right
            assert w[3] == pytest.approx(e[3], abs=0.5)
    doc.close()


def test_pdf_sheet_with_double_dummy_table_and_par(tmp_path: Path, deals: DealSet) -> None:
    pytest.importorskip("endplay")
    two = deals.select([1, 9])  # the solver takes up to a second for a random deal
    results = analyse(two.deals, two.dealers, two.vulnerabilities)
    out = tmp_path / "records.pdf"
    outputs.write_records(out, outputs.views_for(two, "10", dd=True), "DD", per_page=6)
    (text,) = pdf_page_texts(out)
    segments = board_segments(text)
    for board, result in zip([1, 9], results, strict=True):
        segment = segments[board][1]
        assert "NT ♠ ♥ ♦ ♣\r\n" in segment
        for seat in (0, 2, 1, 3):
            row = "NESW"[seat] + " " + " ".join(str(t) for t in result.tricks[seat])
            assert row + "\r\n" in segment + "\r\n"
        assert f"Par {result.par_score_text()}" in segment
        for contract in result.par_contract_texts():
            assert contract in segment
    assert "Par NS +1510\r\n7♠ by NS" in segments[9][1]  # board 9: NS not vulnerable


def test_ten_as_t(tmp_path: Path, deals: DealSet) -> None:
    out = tmp_path / "records.pdf"
    outputs.write_records(out, outputs.views_for(deals.select([9]), "T", dd=False), "T", per_page=1)
    (text,) = pdf_page_texts(out)
    for seat in range(4):
        assert re.search(block_pattern(suits_of(deals.deals[8], seat, "T")), text)
    assert "AKQJT98765432" in text and "1098" not in text


def test_html_sheet_parses_to_every_board(tmp_path: Path, deals: DealSet) -> None:
    out = tmp_path / "records.html"
    outputs.write_records(out, outputs.views_for(deals, "10", dd=False), "Test <pairs>", per_page=6)
    html = out.read_text(encoding="utf-8")
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert "@media print" in html and "break-after: page" in html
    assert not re.search(r"<(script|link|img)\b|\bsrc=|https?:", html)  # self-contained
    root = parse_html(html)
    assert root.find(tag="title")[0].all_text() == "Test <pairs>"
    pages = root.find("page")
    assert len(pages) == 2 and all(p.find(tag="h1")[0].all_text() == "Test <pairs>" for p in pages)
    boards = root.find("board", "article")
    assert [int(b.attrs["data-board"]) for b in boards] == deals.boards.tolist()
    assert [len(p.find("board", "article")) for p in pages] == [6, 3]
    for node, board, deal, vul in zip(boards, deals.boards, deals.deals, deals.vulnerabilities, strict=True):
        assert node.find(tag="h2")[0].all_text() == f"Board {board}"
        assert node.find("dealer")[0].all_text() == f"Dealer: {SEAT_NAMES[(board - 1) % 4]}"
        assert node.find("vul")[0].all_text() == f"Vul: {VUL_NAMES[int(vul)]}"
        hands = {h.attrs["data-seat"]: h for h in node.find("hand")}
        assert set(hands) == set("NESW")
        for seat, letter in enumerate("NESW"):
            lines = hands[letter].find("suit")
            assert [ln.find("sym")[0].all_text() for ln in lines] == list(SYMBOLS)
            assert ["red" in ln.find("sym")[0].classes() for ln in lines] == [False, True, True, False]
            assert [ln.find("ranks")[0].all_text() for ln in lines] == suits_of(deal, seat)
            hcp = [x for x in node.find("hcp") if x.attrs["data-seat"] == letter]
            assert hcp[0].all_text() == f"{letter} {hcp_of(deal, seat)}"
        assert not node.find("dd")


def test_html_double_dummy_table(tmp_path: Path, deals: DealSet) -> None:
    pytest.importorskip("endplay")
    one = deals.select([9])
    out = tmp_path / "records.html"
    outputs.write_records(out, outputs.views_for(one, "10", dd=True), "DD")
    table = parse_html(out.read_text(encoding="utf-8")).find("dd", "table")[0]
    rows = {r.attrs["data-declarer"]: [int(td.all_text()) for td in r.find(tag="td")] for r in table.find(tag="tr")
            if "data-declarer" in r.attrs}
    assert rows == {"N": [0, 13, 0, 13, 0], "S": [0, 13, 0, 13, 0], "E": [0, 0, 13, 0, 13], "W": [0, 0, 13, 0, 13]}


# --- the command ------------------------------------------------------------------------------------

@pytest.fixture
def deal_file(tmp_path: Path, deals: DealSet) -> Path:
    """The boards as a PBN file, the command's input."""
    path = tmp_path / "session.pbn"
    formats.write_file(path, deals)
    return path


def test_command_writes_only_the_file_and_one_line(tmp_path: Path, deal_file: Path, deals: DealSet,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.html"
    assert main(["records", str(deal_file), "-o", str(out), "--no-dd", "--boards", "3,7,9"]) == 0
    captured = capsys.readouterr()
    # stderr holds nothing: the PBN file is one this program wrote, which says how many boards it holds
    assert captured.out == f"wrote 3 boards to {out}\n"
    assert captured.err == ""
    root = parse_html(out.read_text(encoding="utf-8"))
    assert [int(b.attrs["data-board"]) for b in root.find("board", "article")] == [3, 7, 9]
    assert root.find(tag="h1")[0].all_text() == "Test pairs"
    assert main(["records", str(deal_file), "-o", str(out), "--no-dd"]) == 4
    assert main(["records", str(deal_file), "-o", str(out), "--no-dd", "--force", "--title", "Club"]) == 0
    assert parse_html(out.read_text(encoding="utf-8")).find(tag="h1")[0].all_text() == "Club"
    pdf = tmp_path / "out.pdf"
    assert main(["records", str(deal_file), "-o", str(pdf), "--no-dd", "--per-page", "4"]) == 0
    assert len(pdf_page_texts(pdf)) == 3
    captured = capsys.readouterr()
    assert captured.out == f"wrote 9 boards to {out}\nwrote 9 boards to {pdf}\n"
    for seat in range(4):
        assert suits_of(deals.deals[0], seat)[0] not in captured.err


def test_command_errors_are_one_line(tmp_path: Path, deal_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.html"
    assert main(["records", str(deal_file), "-o", str(out), "--boards", "40"]) == 2
    assert main(["records", str(deal_file), "-o", str(out), "--per-page", "0"]) == 2
    assert main(["records", str(deal_file), "-o", str(tmp_path / "out.txt")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"dealer: error: {deal_file}: has no board 40"
    assert len(err) == 3 and not out.exists()


def test_missing_extras(tmp_path: Path, deal_file: Path, monkeypatch: pytest.MonkeyPatch,
                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "reportlab", None)
    monkeypatch.setitem(sys.modules, "endplay.dds", None)
    assert main(["records", str(deal_file), "-o", str(tmp_path / "a.pdf")]) == 2
    assert main(["records", str(deal_file), "-o", str(tmp_path / "a.html"), "--dd"]) == 2
    assert capsys.readouterr().err == (
        "dealer: error: hand records as PDF needs the optional extra 'print': "
        "pip install 'duplicate-bridge-dealer[print]'\n"
        "dealer: error: double-dummy analysis needs the optional extra 'dd': "
        "pip install 'duplicate-bridge-dealer[dd]'\n")
    assert main(["records", str(deal_file), "-o", str(tmp_path / "a.html")]) == 0  # HTML needs no extra
    assert not parse_html((tmp_path / "a.html").read_text(encoding="utf-8")).find("dd")
    assert not (tmp_path / "a.pdf").exists()



def test_real_pbn_file_from_a_hand_record_program(tmp_path: Path, data_dir: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """All 26 boards of a real event's PBN file, compared with its own Board, Dealer, Vulnerable and Deal tags."""
    source = data_dir / "Hand_Trophy_Pairs.pbn"
    tags = re.findall(r'\[Board "(\d+)"\].*?\[Dealer "([NESW])"\]\s*\[Vulnerable "(\w+)"\]\s*\[Deal "([^"]+)"\]',
                      source.read_text(encoding="latin-1"), re.S)
    assert len(tags) == 26
    out = tmp_path / "records.html"
    assert main(["records", str(source), "-o", str(out), "--no-dd"]) == 0
    assert capsys.readouterr().out == f"wrote 26 boards to {out}\n"
    root = parse_html(out.read_text(encoding="utf-8"))
    assert root.find(tag="h1")[0].all_text() == "160816TuE"
    pbn_vul = {"None": "None", "NS": "N-S", "EW": "E-W", "All": "Both", "Both": "Both"}
    for node, (board, dealer, vul, deal_text) in zip(root.find("board", "article"), tags, strict=True):
        assert node.attrs["data-board"] == board
        assert node.find("dealer")[0].all_text() == f"Dealer: {SEAT_NAMES['NESW'.index(dealer)]}"
        assert node.find("vul")[0].all_text() == f"Vul: {pbn_vul[vul]}"
        deal = from_pbn(deal_text)
        for seat, letter in enumerate("NESW"):
            hand = next(h for h in node.find("hand") if h.attrs["data-seat"] == letter)
            assert [r.all_text() for r in hand.find("ranks")] == suits_of(deal, seat)


def test_double_dummy_progress_goes_to_stderr_without_hands(tmp_path: Path, deal_file: Path, deals: DealSet,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("endplay")
    out = tmp_path / "out.html"
    assert main(["records", str(deal_file), "-o", str(out), "--dd", "--boards", "1-2"]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"wrote 2 boards to {out}\n"
    progress = [line for line in captured.err.splitlines() if line.startswith("double-dummy analysis:")]
    assert progress[0] == "double-dummy analysis: 0/2 boards" and progress[-1] == "double-dummy analysis: 2/2 boards"
    for seat in range(4):
        assert suits_of(deals.deals[0], seat)[0] not in captured.err
