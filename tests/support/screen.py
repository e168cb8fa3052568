"""A terminal screen of a given size, fed the bytes a program writes to its pseudo-terminal: what a person
at an 80×24 terminal sees, for the live view's tests. It follows the few controls rich's live display uses
(carriage return, line feed, cursor up, erase line, colours and cursor visibility, which change no text);
a line longer than the width wraps, and the screen scrolls as a terminal does."""

from __future__ import annotations

import re

_CONTROL = re.compile(r"\x1b\[([0-9;?]*)([A-Za-z])|\x1b\][^\x07]*\x07|([\r\n\x08])|([^\x1b\r\n\x08]+)")


class Screen:
    """`rows` lines of `columns` cells, the cursor, and every line that scrolled off the top."""

    def __init__(self, columns: int = 80, rows: int = 24) -> None:
        self.columns, self.rows = columns, rows
        self.lines = [[" "] * columns for _ in range(rows)]
        self.row = self.column = 0
        self.scrolled: list[str] = []

    def feed(self, text: str) -> None:
        for match in _CONTROL.finditer(text):
            args, command, control, plain = match.groups()
            if plain:
                for char in plain:
                    self._put(char)
            elif control == "\r":
                self.column = 0
            elif control == "\n":
                self._down()
            elif control == "\x08":
                self.column = max(0, self.column - 1)
            elif command == "A":
                self.row = max(0, self.row - int(args or 1))
            elif command == "K":  # erase in line: 2 the whole line, 0 (default) to its end
                start = 0 if args == "2" else self.column
                self.lines[self.row][start:] = [" "] * (self.columns - start)
            elif command == "J" and args in ("", "0"):
                self.lines[self.row][self.column:] = [" "] * (self.columns - self.column)
                for row in range(self.row + 1, self.rows):
                    self.lines[row] = [" "] * self.columns

    def _put(self, char: str) -> None:
        if self.column >= self.columns:  # wraps, as a terminal with auto-margins does
            self.column = 0
            self._down()
        self.lines[self.row][self.column] = char
        self.column += 1

    def _down(self) -> None:
        if self.row == self.rows - 1:
            self.scrolled.append("".join(self.lines.pop(0)).rstrip())
            self.lines.append([" "] * self.columns)
        else:
            self.row += 1

    def text(self) -> list[str]:
        """The screen's lines as they stand, trailing spaces dropped."""
        return ["".join(line).rstrip() for line in self.lines]


def compact(text: str) -> str:
    """The text without its whitespace: a line the terminal or the program wrapped reads as the line."""
    return re.sub(r"\s+", "", text)


def whole(line: str, rows: list[str], starts: tuple[str, ...] = ("",)) -> bool:
    """True if `line` begins one of `rows` (after one of `starts`) and goes on whole over the rows after it:
    wrapped onto further rows, by the terminal or by the program, but not cut or written over."""
    want = compact(line)
    span = len(line) // 20 + 2  # rows enough for the line at any width from 20 columns
    for i, row in enumerate(rows):
        for start in starts:
            if row.startswith(start) and compact("".join(rows[i:i + span]))[len(compact(start)):].startswith(want):
                return True
    return False
