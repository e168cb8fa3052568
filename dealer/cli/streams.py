"""Standard output and error that outlive the reader: once a pipe's reader has gone (``dealer plan ... | head
-1``, a ``tee`` ended by the same Ctrl-C), what is written there is dropped without a word, and the command
goes on and ends as if it had been read. Its story is in its files and journal, never only on the screen."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any, TextIO


class OutliveReader:
    """A text stream whose writes and flushes never fail because the reader at the other end has gone: from
    the first broken pipe on, its file descriptor is pointed at the null device (so that nothing buffered
    fails later, at exit either) and every write is taken as done."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.reader_gone = False

    def write(self, text: str) -> int:
        if not self.reader_gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._gone()
        return len(text)

    def flush(self) -> None:
        if not self.reader_gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._gone()

    def _gone(self) -> None:
        self.reader_gone = True
        with contextlib.suppress(OSError, ValueError):
            null = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(null, self._stream.fileno())
            finally:
                os.close(null)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def outlive_readers() -> None:
    """Put `OutliveReader` around this process's standard output and error (once)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, OutliveReader):
            setattr(sys, name, OutliveReader(stream))
