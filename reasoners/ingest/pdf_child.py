"""`python -m reasoners.ingest.pdf_child MAX_CHARS MEMORY_BYTES PARENT_PID`: a PDF on stdin,
an answer on stdout as JSON: {"text": ...} or {"error": {"code", "message", "details"}}.

pdf_reader runs it, one process per PDF, so that a PDF that never finishes (or inflates to
gigabytes) costs a process that is killed, not the server's interpreter.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import logging
import os
import resource
import signal
import sys

from graph.errors import BeliefgraphError
from reasoners.ingest.documents import pdf_text

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _die_with_parent(parent: int) -> None:
    """On Linux, the reader is killed when the server is (even by SIGKILL): left alone it would
    read on for as long as the PDF takes."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the server died before the line above
        raise SystemExit(1)


def main(argv: list[str]) -> int:
    max_chars, memory, parent = int(argv[1]), int(argv[2]), int(argv[3])
    _die_with_parent(parent)
    logging.disable(logging.CRITICAL)  # its parent reads no stderr: nothing to write there
    # A decompression bomb then fails with MemoryError (InvalidInput) in this process; a
    # system that does not bound address space refuses, and the reader goes unbounded.
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    data = sys.stdin.buffer.read()
    answer: dict[str, object]
    try:
        answer = {"text": pdf_text(data, max_chars)}
    except BeliefgraphError as exc:
        answer = {"error": {"code": exc.code, "message": exc.message, "details": exc.details}}
    sys.stdout.write(json.dumps(answer))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
