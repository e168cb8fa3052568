"""Atomic output: no half files, no silent overwrite, secret files 0600, never through a link."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from dealer.core.errors import OutputError, OutputExistsError
from dealer.core.osys import process_umask
from dealer.core.outfile import PUBLIC_MODE, SECRET_MODE, atomic_output, file_mode, write_bytes


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


# --- never through a link ---------------------------------------------------------------------------


def _dangling_link(tmp_path: Path) -> tuple[Path, Path]:
    """A link `out.pbn` in `tmp_path` to a file not there yet in the folder `elsewhere`."""
    (tmp_path / "elsewhere").mkdir()
    link = tmp_path / "out.pbn"
    link.symlink_to(tmp_path / "elsewhere" / "deals.pbn")
    return link, tmp_path / "elsewhere" / "deals.pbn"


@pytest.mark.parametrize("force", [False, True])
def test_a_dangling_link_at_the_target_is_refused_and_its_target_never_made(tmp_path: Path, force: bool) -> None:
    link, target = _dangling_link(tmp_path)
    with pytest.raises(OutputError, match=r"out\.pbn: is a symbolic link \(to .*deals\.pbn\)") as refused:
        write_bytes(link, b"deals", force=force)
    assert not isinstance(refused.value, OutputExistsError)
    assert not target.exists() and link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "out.pbn"]


def test_a_link_to_a_file_is_refused_with_force_and_the_file_kept(tmp_path: Path) -> None:
    link, target = _dangling_link(tmp_path)
    target.write_bytes(b"keep me")
    with pytest.raises(OutputError, match="is a symbolic link"):
        write_bytes(link, b"deals", force=True)
    assert target.read_bytes() == b"keep me" and link.is_symlink()


@pytest.mark.parametrize("force", [False, True])
def test_a_link_put_at_the_target_while_writing_is_refused_not_followed(tmp_path: Path, force: bool) -> None:
    (tmp_path / "elsewhere").mkdir()
    target = tmp_path / "elsewhere" / "deals.pbn"
    path = tmp_path / "out.pbn"
    with pytest.raises(OutputError, match="is a symbolic link"), atomic_output(path, force=force) as out:
        out.write(b"deals")
        path.symlink_to(target)
    assert not target.exists() and path.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "out.pbn"]  # the temporary file is gone


def test_the_umask_is_read_without_changing_it() -> None:
    before = os.umask(0o027)
    try:
        assert process_umask() == 0o027
        assert file_mode(SECRET_MODE) == 0o600 and file_mode(PUBLIC_MODE) == 0o640
        assert os.umask(0o027) == 0o027  # still as it was set
    finally:
        os.umask(before)


@pytest.mark.skipif(not hasattr(os, "posix_fadvise"), reason="this system has no posix_fadvise to start writeback")
def test_a_large_file_is_sent_to_the_disk_in_parts_as_it_is_written(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Every 8 MB written, the range just written is advised (its writeback starts); the ranges follow
    one another from the start, none beyond the data, and the file holds every byte, fsynced as before."""
    advised: list[tuple[int, int]] = []
    synced: list[int] = []
    real_advise, real_fsync = os.posix_fadvise, os.fsync

    def advise(fd: int, offset: int, length: int, advice: int) -> None:
        advised.append((offset, length))
        real_advise(fd, offset, length, advice)

    def fsync(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "posix_fadvise", advise)
    monkeypatch.setattr(os, "fsync", fsync)
    piece = bytes(range(256)) * 12_000  # ~3 MB a write
    target = tmp_path / "big.pbn"
    with atomic_output(target) as out:
        for _ in range(10):
            out.write(piece)
    assert target.read_bytes() == piece * 10
    assert [offset for offset, _ in advised] == [0, *(o + n for o, n in advised[:-1])]
    assert all(n >= 8 << 20 for _, n in advised) and sum(n for _, n in advised) <= len(piece) * 10
    assert len(advised) == 3 and len(synced) == 1
