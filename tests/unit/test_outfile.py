"""Atomic output: no half files, no silent overwrite, secret files 0600."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from dealer.core.errors import OutputError, OutputExistsError
from dealer.core.outfile import SECRET_MODE, atomic_output, write_bytes


def test_writes_and_refuses_to_overwrite(tmp_path: Path) -> None:
    target = tmp_path / "a.pbn"
    write_bytes(target, b"one")
    with pytest.raises(OutputExistsError):
        write_bytes(target, b"two")
    assert target.read_bytes() == b"one"
    write_bytes(target, b"two", force=True)
    assert target.read_bytes() == b"two"


def test_an_error_midway_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "b.pbn"
    with pytest.raises(RuntimeError), atomic_output(target) as out:
        out.write(b"half")
        raise RuntimeError("writer failed")
    assert list(tmp_path.iterdir()) == []


def test_an_error_midway_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "c.pbn"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), atomic_output(target, force=True) as out:
        out.write(b"new")
        raise RuntimeError("writer failed")
    assert target.read_bytes() == b"old"
    assert list(tmp_path.iterdir()) == [target]


def test_secret_files_are_0600(tmp_path: Path) -> None:
    target = tmp_path / "seed.txt"
    write_bytes(target, b"secret", mode=SECRET_MODE)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_missing_folder_is_an_output_error(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="does not exist"):
        write_bytes(tmp_path / "nope" / "x.pbn", b"")
