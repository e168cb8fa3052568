"""Curtain cards: one card per board and seat with board, seat, dealer, vulnerability and that hand."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dealer import formats
from dealer.cli import main
from dealer.core.dealset import DealSet
from dealer.printing import outputs
from tests.support.deals import random_deal_set
from tests.support.printed import (
    SEAT_NAMES,
    SYMBOLS,
    VUL_NAMES,
    block_pattern,
    parse_html,
    pdf_page_texts,
    suits_of,
)

pytest.importorskip("pypdfium2")


@pytest.fixture
def deals() -> DealSet:
    return random_deal_set(3, seed=11, first_board=14)


def expected_meta(deals: DealSet, i: int) -> tuple[str, str]:
    board = int(deals.boards[i])
    return SEAT_NAMES[(board - 1) % 4], VUL_NAMES[int(deals.vulnerabilities[i])]


def test_pdf_has_a_card_for_every_board_and_seat(tmp_path: Path, deals: DealSet) -> None:
    out = tmp_path / "curtains.pdf"
    outputs.write_curtains(out, outputs.views_for(deals, "10", dd=False), "Hand-dealt pairs")
    texts = pdf_page_texts(out)
    assert len(texts) == 2  # 12 cards, 8 a page
    cards = [m for text in texts for m in re.split(r"(?=Board \d+ )", text) if m.startswith("Board ")]
    assert len(cards) == 12
    for k, card in enumerate(cards):
        i, seat = divmod(k, 4)
        dealer, vul = expected_meta(deals, i)
        assert card.startswith(f"Board {deals.boards[i]} {SEAT_NAMES[seat]}\r\n")
        assert f"Dealer: {dealer} Vul: {vul}" in card
        assert re.search(block_pattern(suits_of(deals.deals[i], seat)), card)
        others = [suits_of(deals.deals[i], s) for s in range(4) if s != seat]
        assert not any(re.search(block_pattern(o), card) for o in others)


def test_html_cards(tmp_path: Path, deals: DealSet) -> None:
    out = tmp_path / "curtains.html"
    outputs.write_curtains(out, outputs.views_for(deals, "T", dd=False), "Hand-dealt pairs")
    root = parse_html(out.read_text(encoding="utf-8"))
    cards = root.find("card", "article")
    assert [(int(c.attrs["data-board"]), c.attrs["data-seat"]) for c in cards] == [
        (int(b), s) for b in deals.boards for s in "NESW"]
    assert len(root.find("page")) == 2
    for k, card in enumerate(cards):
        i, seat = divmod(k, 4)
        dealer, vul = expected_meta(deals, i)
        assert card.find("board")[0].all_text() == f"Board {deals.boards[i]}"
        assert card.find("seat")[0].all_text() == SEAT_NAMES[seat]
        assert f"Dealer: {dealer}" in card.find("meta")[0].all_text()
        assert f"Vul: {vul}" in card.find("meta")[0].all_text()
        lines = card.find("suit")
        assert [ln.find("sym")[0].all_text() for ln in lines] == list(SYMBOLS)
        assert [ln.find("ranks")[0].all_text() for ln in lines] == suits_of(deals.deals[i], seat, "T")


def test_command(tmp_path: Path, deals: DealSet, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "hand.pbn"
    formats.write_file(source, deals)
    out = tmp_path / "cards.pdf"
    assert main(["curtains", str(source), "-o", str(out), "--boards", "15"]) == 0
    assert capsys.readouterr().out == f"wrote 1 board to {out}\n"
    assert len(re.findall(r"Board 15 ", pdf_page_texts(out)[0])) == 4
    assert main(["curtains", str(source), "-o", str(out), "--boards", "15"]) == 4
