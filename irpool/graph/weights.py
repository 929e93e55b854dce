"""The `.bin` beside an IR file, opened once and read by (offset, size) without copying.

Only that one path is ever opened, and only if it is a regular file: it is mapped, not read,
so a large `.bin` costs address space, not memory, and a Const's range is checked against
the file's size (Python integers: an offset near 2**64 cannot wrap) before a byte is touched.
"""

from __future__ import annotations

import mmap
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from irpool.rules import CONST_OUT_OF_BOUNDS, WEIGHTS_UNAVAILABLE, Code

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


# How a Git LFS pointer file begins: a clone without `git lfs pull` holds one in place of
# each large file (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md).
LFS_POINTER = b"version https://git-lfs.github.com/spec/v1"


def _lfs_problem(name: str, head: bytes, length: int) -> str:
    size = re.search(rb"^size ([0-9]+)$", head, re.M)
    weights = f"the {int(size.group(1))}-byte weights" if size else "the weights"
    return (
        f"{name} is {length} bytes of text, not {weights}: this looks like a Git LFS "
        "pointer; run `git lfs pull`"
    )


@dataclass(frozen=True, slots=True)
class WeightsProblem:
    code: Code  # IR401: no usable file; IR402: the range is past its end
    message: str
    # The file itself is unusable (not just this range): one problem, however many read it.
    about_file: bool = False


class Weights:
    """A read-only view of a weights file; `problem` says why there is none."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.problem: str | None = None
        self._data: mmap.mmap | bytes = b""
        if path is None:
            self.problem = "no weights file was given"
            return
        try:
            # Opened without blocking and checked on the descriptor: a FIFO would block a
            # plain open forever, a device never ends, and checking the path first would race.
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC)
        except FileNotFoundError:
            self.problem = f"{path.name} does not exist"
            return
        except OSError as error:
            self.problem = f"cannot read {path.name}: {error.strerror or error}"
            return
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                self.problem = f"{path.name} is not a regular file"
            elif info.st_size:
                self._data = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
                if self._data[: len(LFS_POINTER)] == LFS_POINTER:
                    self.problem = _lfs_problem(path.name, bytes(self._data[:1024]), info.st_size)
        except OSError as error:
            self.problem = f"cannot read {path.name}: {error.strerror or error}"
        finally:
            os.close(fd)  # the mapping keeps its own reference to the file

    @property
    def size(self) -> int:
        return len(self._data)

    def read(self, offset: int, size: int) -> memoryview | WeightsProblem:
        """The bytes at [offset, offset+size), or why they are not there."""
        if self.problem is not None:
            return WeightsProblem(
                WEIGHTS_UNAVAILABLE, f"the weights are unavailable: {self.problem}", about_file=True
            )
        end = offset + size
        if end > len(self._data):
            return WeightsProblem(
                CONST_OUT_OF_BOUNDS,
                f"offset {offset} + size {size} = {end} is past the end of "
                f"{self.path.name if self.path else 'the weights'} ({len(self._data)} bytes)",
            )
        return memoryview(self._data)[offset:end]


def unmapped(raw: memoryview) -> bool:
    """Whether `raw` was read from an empty `.bin`. OpenVINO maps no buffer for one, so a
    zero-size Const in it has a null data pointer (measured, docs/ops/Const.md)."""
    return not isinstance(raw.obj, mmap.mmap)
