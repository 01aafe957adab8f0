"""PDFs read in child processes: their text, their errors, and a time limit that holds even
on a page that never finishes."""

from __future__ import annotations

import asyncio
import itertools
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from graph.errors import InvalidInput, LimitExceeded, Unavailable
from reasoners.ingest import pdf_reader
from reasoners.ingest.pdf_reader import parse_answer, read_pdf
from resolvers.connected import while_connected
from tests.pdfs import noisy_pdf, slow_pdf, tiny_pdf

UNBOUNDED = 10**9


def readers_of(parent: int) -> list[int]:
    """The PDF readers `parent` runs (other servers on the machine may run their own)."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            cmdline = (proc / "cmdline").read_bytes()
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):  # gone meanwhile
            continue
        if ppid == parent and b"reasoners.ingest.pdf_child" in cmdline:
            found.append(int(proc.name))
    return found


def readers_running() -> int:
    return len(readers_of(os.getpid()))


def alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists() and "Z" not in _state(pid)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "Z"


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
    """A reading cancelled (the server shutting down) kills its reader; a thread read on."""
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
        if readers_of(server.pid):
            break
        await asyncio.sleep(0.05)
    [reader] = readers_of(server.pid)
    await asyncio.sleep(1.0)  # past its start: reading the PDF
    server.kill()
    await server.wait()
    await asyncio.sleep(0.5)
    assert not alive(reader)


async def test_the_reader_runs_this_package_whatever_the_servers_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reader ran `python -m` in the server's directory, which comes first on its path: a
    json.py there (or another checkout's packages) ran in the reader."""
    (tmp_path / "json.py").write_text("raise SystemExit('not the json module')\n")
    monkeypatch.chdir(tmp_path)
    assert await read_pdf(tiny_pdf("Still read"), UNBOUNDED) == "Still read"


def test_a_reader_that_stopped_is_invalid_input() -> None:
    with pytest.raises(InvalidInput, match=r"its reader stopped \(exit -9\)"):
        parse_answer(b"", -9)
    error = b'{"error": {"code": "LIMIT_EXCEEDED", "message": "too long", "details": {}}}'
    with pytest.raises(LimitExceeded, match="too long"):
        parse_answer(error, 0)


async def test_past_the_waiting_room_an_upload_is_refused_at_once() -> None:
    """Waiting PDFs had no bound: uploads that were given up on held the readers for everyone
    who came after (a one-page PDF waited 57 s behind six)."""
    slow = slow_pdf(40)
    held = [
        asyncio.ensure_future(read_pdf(slow, UNBOUNDED))
        for _ in range(pdf_reader.READERS + pdf_reader.WAITING)
    ]
    await asyncio.sleep(0.5)
    try:
        with pytest.raises(Unavailable, match="send this one again shortly"):
            await read_pdf(tiny_pdf("Hello"), UNBOUNDED)
    finally:
        for task in held:
            task.cancel()
        await asyncio.gather(*held, return_exceptions=True)
    assert readers_running() == 0


class LeavesAfter:
    """A request whose client disconnects `seconds` from now."""

    def __init__(self, seconds: float) -> None:
        self.leaves = time.monotonic() + seconds

    async def is_disconnected(self) -> bool:
        return time.monotonic() >= self.leaves


async def test_a_client_that_leaves_stops_its_reader() -> None:
    """A reader read on for 20 s after its client had gone, and the upload was then stored."""
    request: Any = LeavesAfter(1.0)
    started = time.monotonic()
    with pytest.raises(Unavailable, match="client left"):
        await while_connected(request, read_pdf(slow_pdf(40), UNBOUNDED), "before its PDF was read")
    assert time.monotonic() - started < 3.0
    assert readers_running() == 0


def test_a_reader_writes_nothing_to_stderr_whatever_pypdf_logs() -> None:
    """pypdf logged each unknown font encoding, quoting it: a 3 MB PDF wrote gigabytes to a
    stderr the server held in memory (the server reads none now, and the reader writes none)."""
    import subprocess

    data = noisy_pdf(20)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "reasoners.ingest.pdf_child",
            "100000",
            str(2**30),
            str(os.getpid()),
        ],
        input=data,
        capture_output=True,
        timeout=60,
        check=True,
    )
    assert done.stderr == b""
    assert b"hello" in done.stdout
