"""Uploaded documents as messages: their text, cut into pieces that each fit in one message.

Text types are read as UTF-8, JSON is re-serialized compactly, and a PDF gives the text of
its pages (pypdf, pure Python). Other types are not supported.
"""

from __future__ import annotations

import io
import json
import logging
import time

from pypdf import PdfReader

from graph.errors import BeliefgraphError, InvalidInput, LimitExceeded
from graph.validation import is_text

JSON_TYPE = "application/json"
PDF_TYPE = "application/pdf"
# A few KB of PDF can hold a content stream that takes minutes to read (every page drawing the
# same large compressed stream); reading stops between pages once this many seconds are spent.
PDF_SECONDS = 20.0

# pypdf warns about every flaw of a client's file; those are the client's, not the server's.
logging.getLogger("pypdf").setLevel(logging.ERROR)


def base_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def is_supported(content_type: str) -> bool:
    kind = base_type(content_type)
    return kind.startswith("text/") or kind in (JSON_TYPE, PDF_TYPE)


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON number")


def document_text(content_type: str, data: bytes) -> str:
    """The text of a document of a supported type (see `is_supported`)."""
    kind = base_type(content_type)
    if kind == PDF_TYPE:
        return pdf_text(data)
    try:
        text = data.decode("utf-8-sig")  # a byte-order mark is not part of the text
    except UnicodeDecodeError as exc:
        raise InvalidInput("the file is not UTF-8 text") from exc
    if kind == JSON_TYPE:
        try:
            value = json.loads(text, parse_constant=_no_constant)
            compact = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        except (ValueError, RecursionError) as exc:  # RecursionError: nested too deep
            raise InvalidInput(f"the file is not valid JSON: {exc}") from exc
        if not is_text(compact):
            raise InvalidInput(
                "the file holds a string that is not valid Unicode (a lone surrogate)"
            )
        return compact
    return text.replace("\x00", "")


def pdf_text(data: bytes, seconds: float = PDF_SECONDS) -> str:
    started = time.monotonic()
    texts: list[str] = []
    try:
        for page in PdfReader(io.BytesIO(data)).pages:
            if time.monotonic() - started > seconds:
                raise LimitExceeded(
                    f"the PDF took over {seconds:g} s to read ({len(texts)} pages); "
                    "send its text instead",
                    limit="pdf",
                )
            texts.append((page.extract_text() or "").strip())
    except BeliefgraphError:
        raise
    except Exception as exc:  # pypdf raises many kinds on a malformed file, asserts included
        raise InvalidInput(f"the PDF could not be read: {type(exc).__name__}: {exc}") from exc
    return "\n\n".join(texts).strip()


def pieces(text: str, max_chars: int) -> list[str]:
    """`text` in order, in pieces of at most `max_chars`, cut at a paragraph, line or space
    break when one falls in the second half of a piece; blank pieces are dropped."""
    found: list[str] = []
    rest = text.strip()
    while rest:
        if len(rest) <= max_chars:
            found.append(rest)
            break
        cut = max_chars
        for sep in ("\n\n", "\n", " "):
            at = rest.rfind(sep, max_chars // 2, max_chars)
            if at > 0:
                cut = at
                break
        piece, rest = rest[:cut].strip(), rest[cut:].strip()
        if piece:
            found.append(piece)
    return found
