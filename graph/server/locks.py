"""File locks (flock) held for a block: shared or exclusive, across processes."""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def flocked(path: Path, operation: int) -> Iterator[None]:
    """`path` (created with its folder) locked with flock `operation` for the block; with
    LOCK_NB, BlockingIOError when another holder conflicts."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, operation)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
