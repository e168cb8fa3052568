"""The part of each command's help that teaches: examples to copy, and what its placeholders stand for.

Every command and sub-step has a one-line help (its line in the list of commands), a description (the
first paragraph of its own ``--help``) and, from `teach`, an epilog of examples and notes shown as written
(`argparse.RawDescriptionHelpFormatter`).
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Sequence

from dealer.language import _

WIDTH = 50
"""Examples up to this long have their explanation beside them; longer ones, below."""


def teach(parser: argparse.ArgumentParser, examples: Sequence[tuple[str, str]], *notes: str) -> None:
    """Give `parser` an epilog: its `examples` (command, what it does), then `notes` (paragraphs, as written)."""
    lines = [_("examples:")]
    for command, what in examples:
        if not what:
            lines.append(f"  {command}")
        elif len(command) <= WIDTH:
            lines.append(f"  {command:<{WIDTH}}  {what}")
        else:
            lines += [f"  {command}", f"  {'':<{WIDTH}}  {what}"]
    for note in notes:
        lines += ["", note]
    parser.epilog = "\n".join(lines)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    if parser.description and "\n" not in parser.description:  # shown as written from now on: wrap it here
        parser.description = textwrap.fill(parser.description, 100)
