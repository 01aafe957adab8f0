"""`python -m reasoners.ingest.pdf_child MAX_CHARS MEMORY_BYTES`: a PDF on stdin, an answer on
stdout as JSON: {"text": ...} or {"error": {"code", "message", "details"}}.

pdf_reader runs it, one process per PDF, so that a PDF that never finishes (or inflates to
gigabytes) costs a process that is killed, not the server's interpreter.
"""

from __future__ import annotations

import contextlib
import json
import resource
import sys

from graph.errors import BeliefgraphError
from reasoners.ingest.documents import pdf_text


def main(argv: list[str]) -> int:
    max_chars, memory = int(argv[1]), int(argv[2])
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
