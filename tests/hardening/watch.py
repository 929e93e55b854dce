"""Which files were opened, as the kernel saw it (Linux inotify), whoever opened them.

An audit hook sees only what Python opens; libxml2 opens DTDs and entities from C. inotify
reports every open of a watched file, or of any file in a watched directory.
"""

from __future__ import annotations

import ctypes
import os
import struct
import sys
from pathlib import Path
from types import TracebackType

import pytest

IN_ACCESS, IN_OPEN = 0x1, 0x20
IN_NONBLOCK, IN_CLOEXEC = os.O_NONBLOCK, getattr(os, "O_CLOEXEC", 0o2000000)
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len; then `len` bytes of name


class OpenWatch:
    """Use as a context manager; `opened` then lists the paths opened while it was active."""

    def __init__(self, *paths: Path) -> None:
        if not sys.platform.startswith("linux"):
            pytest.skip("inotify is Linux only")
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._paths = paths
        self._watches: dict[int, Path] = {}
        self.opened: list[Path] = []
        self._fd = -1

    def __enter__(self) -> OpenWatch:
        self._fd = self._libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if self._fd < 0:
            pytest.skip(f"inotify unavailable: {os.strerror(ctypes.get_errno())}")
        for path in self._paths:
            wd = self._libc.inotify_add_watch(self._fd, os.fsencode(path), IN_OPEN | IN_ACCESS)
            if wd < 0:
                raise OSError(ctypes.get_errno(), f"cannot watch {path}")
            self._watches[wd] = path
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        try:
            self._drain()
        finally:
            os.close(self._fd)

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                return
            offset = 0
            while offset < len(data):
                wd, _mask, _cookie, length = _EVENT.unpack_from(data, offset)
                offset += _EVENT.size
                name = data[offset : offset + length].rstrip(b"\0")
                offset += length
                base = self._watches[wd]
                path = base / os.fsdecode(name) if name else base
                if path not in self.opened:
                    self.opened.append(path)
