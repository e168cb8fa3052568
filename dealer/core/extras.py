"""Optional dependencies: import them on demand, or fail with one line naming the extra to install."""

from __future__ import annotations

import importlib
from types import ModuleType

from dealer.core.errors import UsageError
from dealer.language import _

DISTRIBUTION = "duplicate-bridge-dealer"
"""The name this project is installed under (the import package and the command are `dealer`)."""


class MissingExtraError(UsageError):
    """A command needs an optional dependency that is not installed."""


def require(module: str, extra: str, purpose: str) -> ModuleType:
    """Import `module`, or raise `MissingExtraError` saying which extra of the project provides it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(_("{purpose} needs the optional extra '{extra}': pip install '{distribution}[{extra}]'")
                                .format(purpose=purpose, extra=extra, distribution=DISTRIBUTION)) from None


def available(module: str) -> bool:
    """True if `module` can be imported."""
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True
