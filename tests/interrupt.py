"""A test session cut by SIGTERM (CI's time limit) ends as Ctrl-C would: pytest tears its
fixtures down, so the Neo4j the session started is stopped rather than left running. Python's
default for SIGTERM is to exit at once, with no finally blocks run."""

from __future__ import annotations

import signal
from types import FrameType


def _interrupt(signum: int, frame: FrameType | None) -> None:
    # Once: a second SIGTERM (the group's and the script's forwarded one) would cut the
    # teardown the first began.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt(f"signal {signum}")


def install() -> None:
    signal.signal(signal.SIGTERM, _interrupt)
