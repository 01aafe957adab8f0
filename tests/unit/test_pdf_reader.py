"""PDFs read in child processes: their text, their errors, and a time limit that holds even
on a page that never finishes."""

from __future__ import annotations

import asyncio
import itertools
import sys
import time
from pathlib import Path

import pytest

from graph.errors import InvalidInput, LimitExceeded
from reasoners.ingest import pdf_reader
from reasoners.ingest.pdf_reader import parse_answer, read_pdf
from tests.pdfs import slow_pdf, tiny_pdf

UNBOUNDED = 10**9


def readers_running() -> int:
    count = 0
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            count += b"reasoners.ingest.pdf_child" in cmdline.read_bytes()
        except OSError:  # gone meanwhile
            continue
    return count


async def test_a_pdf_gives_its_text() -> None:
    assert await read_pdf(tiny_pdf("Hello from a PDF"), UNBOUNDED) == "Hello from a PDF"


async def test_what_pypdf_cannot_read_is_invalid_input() -> None:
    with pytest.raises(InvalidInput, match="the PDF could not be read"):
        await read_pdf(b"%PDF-1.4\n" + b"\0" * 1000, UNBOUNDED)


async def test_text_longer_than_allowed_is_refused() -> None:
    with pytest.raises(LimitExceeded, match="longer than 10 characters") as raised:
        await read_pdf(tiny_pdf("Hello from a PDF"), 10)
    assert raised.value.details == {"limit": "pdf_text"}


async def test_a_page_that_takes_minutes_is_stopped_on_time_and_its_reader_killed() -> None:
    """Read in the server's process, a PDF was checked for time only between pages, and held
    the interpreter while it was read (other requests waited)."""
    ticks: list[float] = []

    async def ticker() -> None:
        while True:
            ticks.append(time.monotonic())
            await asyncio.sleep(0.05)

    beat = asyncio.create_task(ticker())
    started = time.monotonic()
    with pytest.raises(LimitExceeded, match="took over 1 s to read") as raised:
        await read_pdf(slow_pdf(40), UNBOUNDED, seconds=1.0)  # 2 minutes to read
    elapsed = time.monotonic() - started
    beat.cancel()
    assert raised.value.details == {"limit": "pdf"}
    assert 1.0 <= elapsed < 5.0
    assert max(b - a for a, b in itertools.pairwise(ticks)) < 0.5, "the event loop kept running"
    assert readers_running() == 0


async def test_readers_are_bounded_and_later_pdfs_wait() -> None:
    slow = slow_pdf(40)
    started = time.monotonic()
    outcomes = await asyncio.gather(
        *(read_pdf(slow, UNBOUNDED, seconds=1.0) for _ in range(pdf_reader.READERS + 1)),
        return_exceptions=True,
    )
    assert all(isinstance(o, LimitExceeded) for o in outcomes), outcomes
    assert time.monotonic() - started >= 2.0, "the last PDF waited for a reader"
    assert readers_running() == 0


async def test_a_reader_cancelled_with_its_request_is_killed() -> None:
    """Read in a thread, a PDF went on being read after its client had gone."""
    reading = asyncio.create_task(read_pdf(slow_pdf(40), UNBOUNDED))
    await asyncio.sleep(0.5)
    assert readers_running() == 1
    reading.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reading
    assert readers_running() == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux kills orphaned readers")
async def test_a_reader_dies_with_its_server() -> None:
    """A server killed outright left its readers reading, for as long as their PDFs took."""
    script = (
        "import asyncio, sys; from reasoners.ingest.pdf_reader import read_pdf; "
        "asyncio.run(read_pdf(sys.stdin.buffer.read(), 10**9))"
    )
    root = str(Path(__file__).resolve().parents[2])
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, stdin=asyncio.subprocess.PIPE, cwd=root
    )
    assert server.stdin is not None
    server.stdin.write(slow_pdf(40))
    server.stdin.close()
    for _ in range(100):
        if readers_running():
            break
        await asyncio.sleep(0.05)
    assert readers_running() == 1
    server.kill()
    await server.wait()
    await asyncio.sleep(0.5)
    assert readers_running() == 0


def test_a_reader_that_stopped_is_invalid_input() -> None:
    with pytest.raises(InvalidInput, match=r"its reader stopped \(exit -9\)"):
        parse_answer(b"", -9)
    error = b'{"error": {"code": "LIMIT_EXCEEDED", "message": "too long", "details": {}}}'
    with pytest.raises(LimitExceeded, match="too long"):
        parse_answer(error, 0)
