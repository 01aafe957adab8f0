"""Uploaded documents as messages: their text, cut into pieces that each fit in one message.

Text types are read as UTF-8, JSON is re-serialized compactly, and a PDF gives the text of
its pages (pypdf, pure Python). Other types are not supported.
"""

from __future__ import annotations

import io
import json

from pypdf import PdfReader
from pypdf.errors import PdfReadError

from graph.errors import InvalidInput
from graph.validation import is_text

JSON_TYPE = "application/json"
PDF_TYPE = "application/pdf"


def base_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def is_supported(content_type: str) -> bool:
    kind = base_type(content_type)
    return kind.startswith("text/") or kind in (JSON_TYPE, PDF_TYPE)


def document_text(content_type: str, data: bytes) -> str:
    """The text of a document of a supported type (see `is_supported`)."""
    kind = base_type(content_type)
    if kind == PDF_TYPE:
        try:
            pages = PdfReader(io.BytesIO(data)).pages
            return "\n\n".join((page.extract_text() or "").strip() for page in pages).strip()
        except (PdfReadError, ValueError) as exc:
            raise InvalidInput(f"the PDF could not be read: {exc}") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput("the file is not UTF-8 text") from exc
    if kind == JSON_TYPE:
        try:
            compact = json.dumps(json.loads(text), ensure_ascii=False, separators=(",", ":"))
        except (ValueError, RecursionError) as exc:  # RecursionError: nested too deep
            raise InvalidInput(f"the file is not valid JSON: {exc}") from exc
        if not is_text(compact):
            raise InvalidInput(
                "the file holds a string that is not valid Unicode (a lone surrogate)"
            )
        return compact
    return text.replace("\x00", "")


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
