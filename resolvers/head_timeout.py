"""uvicorn's HTTP protocol with a deadline on each request's head.

uvicorn bounds the wait between requests on a kept-alive connection, and BodyLimit bounds a
body, but nothing bounds the request line and headers: a connection that sent nothing, or half
a header, stayed open for good (a client opening thousands holds as many descriptors). Here the
head must arrive within HEAD_SECONDS of the connection, or of the previous response on a
kept-alive one; else the connection is closed.

A head uvicorn cannot read is answered with a coded JSON error like every other refusal (uvicorn
wrote a plain-text 400): 414 for a path and query string over MAX_TARGET_BYTES, which uvicorn's
URL parser cannot hold (its offsets are 16 bits), 431 for a head over MAX_HEAD_BYTES, 400 for
anything else that is not HTTP/1.1.
"""

from __future__ import annotations

import asyncio
import json

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from graph.errors import ErrorCode
from resolvers.graphql.http import error_body
from resolvers.refusals import is_rest_path

# A client sends its head in one packet; ten seconds covers a slow network many times over.
HEAD_SECONDS = 10.0
MAX_TARGET_BYTES = 65_535
# The longest head read: the longest target and 64 KiB of headers. The parser appends each
# piece of a header value to what it holds so far, so a head of tens of megabytes (one header,
# or a million small ones) held the event loop for seconds and took a gigabyte, before any key
# was checked and within the head's deadline.
MAX_HEAD_BYTES = MAX_TARGET_BYTES + 65_536
# A request line's bytes besides its method and target: two spaces, "HTTP/1.1", its line end
# and the blank line that ends the head.
REQUEST_LINE_REST = 14
# How long a refused head's connection stays open to drop what its client still sends.
LINGER_SECONDS = 2.0


def refusal(
    status: int, reason: str, code: ErrorCode, message: str, *, rest: bool = False, **more: object
) -> bytes:
    """A whole HTTP response refusing a request, its body shaped as the API's errors (pure):
    `{"detail": ...}` for the Honcho-compatible routes (`rest`), a coded error elsewhere."""
    shaped = {"detail": message} if rest else error_body(code, message, **more)
    body = json.dumps(shaped).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


class HeadTimeoutProtocol(HttpToolsProtocol):
    """HttpToolsProtocol that closes a connection whose request head has not arrived in time."""

    head_timer: asyncio.TimerHandle | None = None
    # Between the end of a message (its body included) and the end of the next head, what
    # arrives is head: counted, whether or not the previous response has gone (pipelining),
    # and never a body's bytes (a body the app refused unread still arrives as a body).
    reading_head = True
    head_bytes = 0
    head_tail = b""  # the counted head's last bytes: a blank line may begin in one piece
    messages_ended = 0
    refused = False  # refused a head: what still arrives is read and dropped until the close
    # The refusal of a head pipelined behind requests not yet answered: sent after their
    # responses, in order (sent at once, it stood for the first one's answer, whose own write
    # then failed on the closed stream though its request had run).
    owed_refusal: bytes | None = None
    parsed_head = 0  # the current head's bytes as the parser reported them (url and headers)

    def data_received(self, data: bytes) -> None:
        if self.refused:
            return
        counting = self.reading_head
        if counting:
            # The piece that ends the head counts up to its end, before it is parsed: counted
            # after, a head of the limit and one more read (up to 256 KiB) was taken. The
            # blank line that ends it may have begun in the piece before.
            end = (self.head_tail + data).find(b"\r\n\r\n")
            size = len(data) if end < 0 else max(0, end + 4 - len(self.head_tail))
            if self.head_bytes + size > MAX_HEAD_BYTES:
                self._refuse_head(data)
                return
        ended = self.messages_ended
        super().data_received(data)
        if self.messages_ended != ended:
            # A message ended in this piece: of the next head after it, what the parser has
            # reported counts (counted whole, a body's last piece made the next request on the
            # connection a 431); on_headers_complete checks the head's whole size. Its last
            # bytes may begin the next head's blank line, which the next piece ends.
            self.head_bytes = self.parsed_head if self.reading_head else 0
            self.head_tail = data[-3:] if self.reading_head else b""
        elif counting and self.reading_head:
            self.head_bytes += len(data)
            self.head_tail = (self.head_tail + data)[-3:]

    def _refuse_head(self, piece: bytes = b"") -> None:
        self._disarm()
        self.refused = True
        answer = refusal(
            431,
            "Request Header Fields Too Large",
            ErrorCode.LIMIT_EXCEEDED,
            f"a request's head (its request line and headers) may have at most "
            f"{MAX_HEAD_BYTES} bytes",
            limit="head",
            rest=self._rest(piece),
        )
        if self._answers_owed():
            self.owed_refusal = answer
        else:
            self._send_refusal(answer)

    def _answers_owed(self) -> bool:
        """Whether a request before this head still waits for its response."""
        cycle = self.cycle
        return bool(self.pipeline) or (cycle is not None and not cycle.response_complete)

    def _send_refusal(self, answer: bytes) -> None:
        self.transport.write(answer)
        # Closed at once with the rest of the head unread, the socket would be reset and the
        # answer lost; the client reads it while what it still sends is dropped.
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(LINGER_SECONDS, self.transport.close)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.parsed_head = 0

    def on_url(self, url: bytes) -> None:
        self.parsed_head += len(url)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        # The colon and the line's end (a space after the colon is not counted: a lower
        # bound, so a head within the limit is never refused here).
        self.parsed_head += len(name) + len(value) + 3
        super().on_header(name, value)

    def _should_upgrade(self) -> bool:
        # A refused head is no request: not a websocket's either (uvicorn went on to read a
        # method its scope never got).
        return not self.refused and bool(super()._should_upgrade())

    def on_body(self, body: bytes) -> None:
        if not self.refused:  # a refused head's body is no request's
            super().on_body(body)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        self.reading_head = False
        if self.refused:
            return
        # A head that began in the read that ended the message before it was counted only
        # from there: its whole size is checked here, before it becomes a request.
        if self.parsed_head + len(self.parser.get_method()) + REQUEST_LINE_REST > MAX_HEAD_BYTES:
            self._refuse_head()
            return
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        if self.refused:
            return
        super().on_message_complete()
        # Nothing of the next head is read yet: a stale count refused the next request on a
        # reused connection. (The target stays: a websocket upgrade reads it after this.)
        self.reading_head, self.head_bytes, self.head_tail = True, 0, b""
        self.parsed_head = 0
        self.messages_ended += 1

    def on_response_complete(self) -> None:
        # The next head's clock starts now, unless that head is already in (pipelined): a head
        # that arrives while an earlier request runs is not timed, as uvicorn stops reading.
        # Bytes that begin no request (blank lines, skipped by the parser) do not reset it.
        # (Asked before uvicorn starts the pipelined request, which takes it off the queue.)
        pipelined = bool(self.pipeline)
        super().on_response_complete()
        if self.owed_refusal is not None and not pipelined:
            answer, self.owed_refusal = self.owed_refusal, None
            if not self.transport.is_closing():
                self._send_refusal(answer)
            return
        if not pipelined and not self.transport.is_closing():
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _rest(self, unparsed: bytes = b"") -> bool:
        """Whether the target read so far is a REST route's (they answer `{"detail": ...}`):
        the parser's, else the one at the start of `unparsed` (a head refused unparsed)."""
        target = bytes(getattr(self, "url", b"") or b"")
        if not target:
            words = unparsed.split(b" ", 2)
            target = words[1] if len(words) > 1 else b""
        return is_rest_path(target.decode("latin-1"))

    def _arm(self) -> None:
        self._disarm()
        self.head_timer = self.loop.call_later(HEAD_SECONDS, self._head_too_slow)

    def _disarm(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a head its parser refused; `self.url` holds the target read so
        far (a message that never began has none)."""
        target, rest = len(getattr(self, "url", b"") or b""), self._rest()
        if target > MAX_TARGET_BYTES:
            answer = refusal(
                414,
                "URI Too Long",
                ErrorCode.LIMIT_EXCEEDED,
                f"a request's path and query string may have at most {MAX_TARGET_BYTES} bytes; "
                "send a large document or variables in a POST body",
                rest=rest,
                limit="target",
            )
        else:
            answer = refusal(
                400,
                "Bad Request",
                ErrorCode.INVALID_INPUT,
                "the request is not valid HTTP/1.1",
                rest=rest,
            )
        self.transport.write(answer)
        self.transport.close()

    def _head_too_slow(self) -> None:
        self.head_timer = None
        if not self.transport.is_closing():
            self.transport.close()
