"""uvicorn's HTTP protocol with a deadline on each request's head.

uvicorn bounds the wait between requests on a kept-alive connection, and BodyLimit bounds a
body, but nothing bounds the request line and headers: a connection that sent nothing, or half
a header, stayed open for good (a client opening thousands holds as many descriptors). Here the
head must arrive within HEAD_SECONDS of the connection, or of the previous response on a
kept-alive one; else the connection is closed.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

# A client sends its head in one packet; ten seconds covers a slow network many times over.
HEAD_SECONDS = 10.0


class HeadTimeoutProtocol(HttpToolsProtocol):
    """HttpToolsProtocol that closes a connection whose request head has not arrived in time."""

    head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        # The next head's clock starts now, unless that head is already in (pipelined): a head
        # that arrives while an earlier request runs is not timed, as uvicorn stops reading.
        # Bytes that begin no request (blank lines, skipped by the parser) do not reset it.
        super().on_response_complete()
        if not self.pipeline and not self.transport.is_closing():
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self.head_timer = self.loop.call_later(HEAD_SECONDS, self._head_too_slow)

    def _disarm(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def _head_too_slow(self) -> None:
        self.head_timer = None
        if not self.transport.is_closing():
            self.transport.close()
