"""Reading uploaded PDFs in child processes.

pypdf is pure Python: a few KB of PDF can hold a page that takes minutes to read, and read in
the server's process it held the interpreter (other requests waited) and, in a thread, could
not be stopped mid-page. Each PDF is read by a process of its own (pdf_child), killed once its
time is spent, with its memory bounded; at most READERS run at once, and at most WAITING more
wait for one.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from asyncio.subprocess import DEVNULL, PIPE
from pathlib import Path
from weakref import WeakKeyDictionary

from graph.errors import BeliefgraphError, InvalidInput, LimitExceeded
from reasoners.slots import Slots

log = logging.getLogger(__name__)

PDF_SECONDS = 20.0  # a PDF's reading time, counted from when a reader takes it
READERS = 2  # PDFs read at once
WAITING = 8  # PDFs that may wait for a reader; past them an upload is refused (UNAVAILABLE)
MEMORY_BYTES = 1 << 30  # a reader's address space
_CHILD = "reasoners.ingest.pdf_child"
_ROOT = Path(__file__).resolve().parents[2]


# The readers of each event loop: at most READERS at once, at most WAITING waiting.
_readers: WeakKeyDictionary[asyncio.AbstractEventLoop, Slots] = WeakKeyDictionary()


def _of_this_loop() -> Slots:
    loop = asyncio.get_running_loop()
    readers = _readers.get(loop)
    if readers is None:
        readers = _readers[loop] = Slots(READERS, WAITING, "PDF reads")
    return readers


async def read_pdf(data: bytes, max_chars: int, seconds: float = PDF_SECONDS) -> str:
    """The text of a PDF's pages (at most `max_chars`): InvalidInput when pypdf cannot read
    it, LimitExceeded when it takes over `seconds` or its text is longer."""
    async with _of_this_loop().take():
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-P",  # not the server's working directory first on the path: this package is
            "-m",
            _CHILD,
            str(max_chars),
            str(MEMORY_BYTES),
            str(os.getpid()),
            stdin=PIPE,
            stdout=PIPE,
            # Not kept: a hostile PDF makes pypdf log megabytes a page (a font's encoding
            # quoted in each error), all of which the server would hold.
            stderr=DEVNULL,
            # Only what it needs: the reader of untrusted files gets no keys or passwords.
            env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(_ROOT)},
            cwd=_ROOT,
        )
        try:
            out, _ = await asyncio.wait_for(process.communicate(data), seconds)
        except TimeoutError:
            raise LimitExceeded(
                f"the PDF took over {seconds:g} s to read; send its text instead", limit="pdf"
            ) from None
        finally:  # timed out, or cancelled (a shutdown): the reader goes too
            if process.returncode is None:
                process.kill()
                await process.wait()
    if process.returncode != 0:
        log.warning("a PDF reader exited %s", process.returncode)
    return parse_answer(out, process.returncode)


_ERRORS: dict[str, type[BeliefgraphError]] = {
    InvalidInput.code: InvalidInput,
    LimitExceeded.code: LimitExceeded,
}


def parse_answer(out: bytes, returncode: int | None) -> str:
    """The text in a reader's answer, or the error it reports (pure)."""
    if returncode != 0:
        raise InvalidInput(f"the PDF could not be read: its reader stopped (exit {returncode})")
    answer = json.loads(out)
    if "error" in answer:
        error = answer["error"]
        kind = _ERRORS.get(error["code"], InvalidInput)
        raise kind(str(error["message"]), **error["details"])
    return str(answer["text"])
