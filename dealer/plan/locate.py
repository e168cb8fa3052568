"""Where each key of a TOML document is written, the line numbers `tomllib` does not give: `key_lines` maps
key paths (keys and array positions from 0) to lines, `line_of` answers for the nearest defined ancestor.
Run only on valid TOML; never raises.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Final

KeyPath = tuple[str | int, ...]

_BARE: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_ESCAPES: Final = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\"}


class _Stop(Exception):
    """The scanner met something it does not follow; what was found so far stands."""


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.line = 1
        self.lines: dict[KeyPath, int] = {}
        self.array_tables: dict[KeyPath, int] = {}  # [[a.b]] path -> items so far

    # --- characters -------------------------------------------------------------------------

    def peek(self, n: int = 1) -> str:
        return self.text[self.pos:self.pos + n]

    def advance(self, n: int = 1) -> None:
        chunk = self.text[self.pos:self.pos + n]
        self.line += chunk.count("\n")
        self.pos += n

    def skip_blanks(self, newlines: bool) -> None:
        """Skip spaces and tabs (and newlines and comments when `newlines`)."""
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if ch in " \t\r" or (newlines and ch == "\n"):
                self.advance()
            elif newlines and ch == "#":
                self.skip_comment()
            else:
                return

    def skip_comment(self) -> None:
        end = self.text.find("\n", self.pos)
        self.pos = len(self.text) if end < 0 else end

    def expect(self, token: str) -> None:
        if self.peek(len(token)) != token:
            raise _Stop
        self.advance(len(token))

    def record(self, path: KeyPath) -> None:
        self.lines.setdefault(path, self.line)

    # --- document ---------------------------------------------------------------------------

    def document(self) -> None:
        table: KeyPath = ()
        while True:
            self.skip_blanks(newlines=True)
            if self.pos >= len(self.text):
                return
            if self.peek(2) == "[[":
                table = self.header(array=True)
            elif self.peek() == "[":
                table = self.header(array=False)
            else:
                self.key_value(table)
            self.skip_blanks(newlines=False)
            if self.peek() == "#":
                self.skip_comment()

    def header(self, array: bool) -> KeyPath:
        self.advance(2 if array else 1)
        self.skip_blanks(newlines=False)
        keys = self.key()
        self.skip_blanks(newlines=False)
        self.expect("]]" if array else "]")
        path: KeyPath = ()
        for i, name in enumerate(keys):
            path += (name,)
            last = i == len(keys) - 1
            if last and array:
                count = self.array_tables.get(path, 0)
                self.array_tables[path] = count + 1
                self.record(path)
                path += (count,)
            elif path in self.array_tables:
                path += (self.array_tables[path] - 1,)
            self.record(path)
        return path

    def key_value(self, table: KeyPath) -> None:
        keys = self.key()
        path = table
        for name in keys:
            path += (name,)
            self.record(path)
        self.skip_blanks(newlines=False)
        self.expect("=")
        self.skip_blanks(newlines=False)
        self.value(path)

    def key(self) -> list[str]:
        """A dotted key: bare or quoted parts separated by dots."""
        parts = [self.simple_key()]
        while True:
            self.skip_blanks(newlines=False)
            if self.peek() != ".":
                return parts
            self.advance()
            self.skip_blanks(newlines=False)
            parts.append(self.simple_key())

    def simple_key(self) -> str:
        ch = self.peek()
        if ch == '"':
            return self.basic_string()
        if ch == "'":
            return self.literal_string()
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] in _BARE:
            self.pos += 1
        if self.pos == start:
            raise _Stop
        return self.text[start:self.pos]

    # --- values -----------------------------------------------------------------------------

    def value(self, path: KeyPath) -> None:
        if self.peek(3) in ('"""', "'''"):
            self.multiline_string(self.peek(3))
        elif self.peek() == '"':
            self.basic_string()
        elif self.peek() == "'":
            self.literal_string()
        elif self.peek() == "[":
            self.array(path)
        elif self.peek() == "{":
            self.inline_table(path)
        else:
            self.scalar()

    def array(self, path: KeyPath) -> None:
        self.advance()
        index = 0
        while True:
            self.skip_blanks(newlines=True)
            if self.peek() == "]":
                self.advance()
                return
            self.record(path + (index,))
            self.value(path + (index,))
            index += 1
            self.skip_blanks(newlines=True)
            if self.peek() == ",":
                self.advance()
            elif self.peek() != "]":
                raise _Stop

    def inline_table(self, path: KeyPath) -> None:
        self.advance()
        while True:
            self.skip_blanks(newlines=True)
            if self.peek() == "}":
                self.advance()
                return
            self.key_value(path)
            self.skip_blanks(newlines=True)
            if self.peek() == ",":
                self.advance()
            elif self.peek() != "}":
                raise _Stop

    def scalar(self) -> None:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in ",]}#\n":
            self.pos += 1
        if self.pos == start:
            raise _Stop

    def basic_string(self) -> str:
        self.advance()
        out: list[str] = []
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if ch == '"':
                self.advance()
                return "".join(out)
            if ch == "\\":
                out.append(_ESCAPES.get(self.peek(2)[1:], ""))
                self.advance(2)
                continue
            if ch == "\n":
                raise _Stop
            out.append(ch)
            self.advance()
        raise _Stop

    def literal_string(self) -> str:
        end = self.text.find("'", self.pos + 1)
        if end < 0:
            raise _Stop
        name = self.text[self.pos + 1:end]
        self.advance(end + 1 - self.pos)
        return name

    def multiline_string(self, quote: str) -> None:
        self.advance(3)
        while self.pos < len(self.text):
            if quote == '"""' and self.peek() == "\\":
                self.advance(2)
            elif self.peek(3) == quote:
                self.advance(3)
                while self.peek() == quote[0]:  # up to two quotes may end the content
                    self.advance()
                return
            else:
                self.advance()
        raise _Stop


def key_lines(text: str) -> dict[KeyPath, int]:
    """Line (from 1) of every key, table and array item defined in a valid TOML document."""
    scanner = _Scanner(text)
    with contextlib.suppress(_Stop, IndexError):
        scanner.document()
    return scanner.lines


def line_of(lines: dict[KeyPath, int], path: Sequence[str | int]) -> int | None:
    """The line of `path`, or of its nearest ancestor that is written in the document."""
    key = tuple(path)
    while key:
        if key in lines:
            return lines[key]
        key = key[:-1]
    return None
