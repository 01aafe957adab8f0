"""Uploaded documents as messages: their text, cut into pieces that each fit in one message.

Text types are read as UTF-8, JSON is re-serialized compactly, and a PDF gives the text of
its pages (pypdf, pure Python; the server reads PDFs in a child process, see pdf_reader). Other
types are not supported.
"""

from __future__ import annotations

import codecs
import io
import json
import logging

from pypdf import PdfReader

from graph.errors import BeliefgraphError, InvalidInput, LimitExceeded
from graph.validation import is_text, strict_json, without_nul

JSON_TYPE = "application/json"
PDF_TYPE = "application/pdf"

# pypdf warns about every flaw of a client's file; those are the client's, not the server's.
logging.getLogger("pypdf").setLevel(logging.ERROR)


def base_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def is_supported(content_type: str) -> bool:
    kind = base_type(content_type)
    return kind.startswith("text/") or kind in (JSON_TYPE, PDF_TYPE)


def document_text(content_type: str, data: bytes) -> str:
    """The text of a document of a supported type (see `is_supported`)."""
    kind = base_type(content_type)
    if kind == PDF_TYPE:
        return pdf_text(data)
    # A byte-order mark is not part of the text. UTF-16 comes with one (what editors on Windows
    # save as "Unicode"): it was refused as not UTF-8.
    # UTF-32's little-endian mark begins with UTF-16's: looked for first.
    if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        encoding = "utf-32"
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16"
    else:
        encoding = "utf-8-sig"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            "the file is not UTF-8 text (nor UTF-16 or UTF-32 with a byte-order mark)"
        ) from exc
    if kind == JSON_TYPE:
        try:
            value = strict_json(text)
            compact = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        except (ValueError, RecursionError) as exc:  # RecursionError: nested too deep
            raise InvalidInput(f"the file is not valid JSON: {exc}") from exc
        if not is_text(compact):
            raise InvalidInput(
                "the file holds a string that is not valid Unicode (a lone surrogate)"
            )
        return compact
    return without_nul(text)


def pdf_text(data: bytes, max_chars: int | None = None) -> str:
    """The text of a PDF's pages. Unbounded in time: the server reads PDFs through
    `pdf_reader.read_pdf`, in a child process it kills when the time is spent."""
    texts: list[str] = []
    total = 0
    try:
        for page in PdfReader(io.BytesIO(data)).pages:
            # No NUL, as every stored text; a lone surrogate (a ToUnicode map pointing at
            # U+D800 passed through to a 500) becomes "?" (a text upload with one is refused,
            # but a PDF's glyph map is not the sender's text).
            raw = without_nul(page.extract_text() or "")
            text = raw.encode("utf-8", "replace").decode("utf-8").strip()
            total += len(text) + 2
            if max_chars is not None and total > max_chars:
                raise LimitExceeded(
                    f"the PDF's text is longer than {max_chars} characters; "
                    "send it in parts or as text",
                    limit="pdf_text",
                )
            texts.append(text)
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
