"""Independent expectations for printed outputs: hands, HCP and names derived straight from the deal
array and Law 2 (not from the printing code), PDF text and image access, and a tiny HTML tree."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np

from dealer.core.cards import hand_text

SYMBOLS = "♠♥♦♣"
SEAT_NAMES = {0: "North", 1: "East", 2: "South", 3: "West"}
VUL_NAMES = {0: "None", 1: "N-S", 2: "E-W", 3: "Both"}
POINTS = {"A": 4, "K": 3, "Q": 2, "J": 1}


def suits_of(deal: np.ndarray, seat: int, ten: str = "10") -> list[str]:
    """The four suit texts of a hand as a hand record prints them: 'A K 10 9 2' (a space between cards),
    or 'AKT92' when the ten is written T."""
    return [("".join(s) if ten == "T" else " ".join(s).replace("T", ten)) if s else "—"
            for s in hand_text(deal, seat).split(".")]


def hcp_of(deal: np.ndarray, seat: int) -> int:
    return sum(POINTS.get(ch, 0) for ch in hand_text(deal, seat))


def pdf_block(suits: list[str]) -> str:
    """A hand's four lines as PDF text extraction gives them, spaces removed."""
    return "\r\n".join(sym + ranks for sym, ranks in zip(SYMBOLS, suits, strict=True))


def block_pattern(suits: list[str]) -> str:
    """A hand's four lines in extracted PDF text (a space may follow each symbol)."""
    return r"\r\n".join(re.escape(sym) + " ?" + re.escape(ranks) for sym, ranks in zip(SYMBOLS, suits, strict=True))


def pdf_page_texts(path: Path) -> list[str]:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(path))
    try:
        return [doc[i].get_textpage().get_text_range() for i in range(len(doc))]
    finally:
        doc.close()


def pdf_page_images(path: Path, dpi: int = 300) -> list[Any]:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(path))
    try:
        return [doc[i].render(scale=dpi / 72).to_pil().convert("L") for i in range(len(doc))]
    finally:
        doc.close()


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node] = field(default_factory=list)
    text: str = ""

    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def all_text(self) -> str:
        return self.text + "".join(c.all_text() for c in self.children)

    def find(self, cls: str | None = None, tag: str | None = None) -> list[Node]:
        """Descendants (depth first) with the class and/or tag."""
        out = []
        for c in self.children:
            if (cls is None or cls in c.classes()) and (tag is None or c.tag == tag):
                out.append(c)
            out.extend(c.find(cls, tag))
        return out


class _TreeBuilder(HTMLParser):
    VOID = {"meta", "br", "img", "link", "hr", "input"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in self.VOID:
            self.stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack[-1].tag == tag, f"</{tag}> closes <{self.stack[-1].tag}>"
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(Node("#text", {}, text=data))


def parse_html(text: str) -> Node:
    builder = _TreeBuilder()
    builder.feed(text)
    builder.close()
    assert builder.stack == [builder.root], "unclosed elements"
    return builder.root
