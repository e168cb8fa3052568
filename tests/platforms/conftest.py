"""The platform-faking tier's fixture (`tests.support.faked_platform`: the command line run in this process as
on Windows or macOS)."""

from tests.support.faked_platform import on_platform

__all__ = ["on_platform"]
