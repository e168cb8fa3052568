"""The package's public names: every one importable from `firmware_protocol`, each loaded from its layer
only when used, so a user of one layer (the board labels) does not load the others."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import firmware_protocol

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", firmware_protocol.__all__)
def test_each_public_name_is_the_object_its_module_defines(name: str) -> None:
    value = getattr(firmware_protocol, name)
    defined = [m for m in vars(firmware_protocol)["_HOMES"].values()
               if name in vars(importlib.import_module(m))]
    assert defined, f"{name} is defined in none of the package's modules"
    assert all(getattr(importlib.import_module(m), name) is value for m in defined)


def test_every_public_name_is_listed_and_no_other_resolves() -> None:
    assert set(firmware_protocol.__all__) <= set(dir(firmware_protocol))
    with pytest.raises(AttributeError, match="no attribute 'NoSuchName'"):
        _ = firmware_protocol.NoSuchName
    namespace: dict[str, object] = {}
    exec("from firmware_protocol import *", namespace)
    assert set(firmware_protocol.__all__) <= set(namespace)


def test_the_board_labels_load_no_other_layer() -> None:
    code = ("import sys, firmware_protocol.labels\n"
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('firmware_protocol'))))")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["firmware_protocol", "firmware_protocol.labels"]
