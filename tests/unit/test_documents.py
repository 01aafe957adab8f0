"""Uploaded documents: which types are read, how their text is cut into messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.errors import InvalidInput
from reasoners.ingest.documents import document_text, is_supported, pdf_text, pieces
from tests.pdfs import mapped_pdf


def test_supported_types() -> None:
    assert is_supported("text/plain; charset=utf-8")
    assert is_supported("text/markdown")
    assert is_supported("application/json")
    assert is_supported("application/pdf")
    assert not is_supported("image/png")
    assert not is_supported("application/octet-stream")


def test_text_and_json() -> None:
    assert document_text("text/plain", "caf\u00e9\x00 bar".encode()) == "caf\u00e9 bar"
    assert document_text("application/json", b'{ "a" : [1, 2] }') == '{"a":[1,2]}'
    with pytest.raises(InvalidInput, match="not valid JSON"):
        document_text("application/json", b"{oops")
    # A byte-order mark was kept in the text; NaN and Infinity were stored as JSON no one reads.
    assert document_text("text/plain", b"\xef\xbb\xbfhello") == "hello"
    assert document_text("application/json", b'\xef\xbb\xbf{"a": 1}') == '{"a":1}'
    for constant in (b"NaN", b"Infinity", b"-Infinity"):
        with pytest.raises(InvalidInput, match="not a JSON number"):
            document_text("application/json", b'{"a": ' + constant + b"}")
    # A number too large for a float was read as infinity and stored as `Infinity`.
    with pytest.raises(InvalidInput, match="too large"):
        document_text("application/json", b'{"a": 1e999}')
    with pytest.raises(InvalidInput, match="UTF-8"):
        document_text("text/plain", b"\xff\xfe\xfa")  # an odd byte left over
    with pytest.raises(InvalidInput, match="UTF-8"):
        document_text("text/plain", b"caf\xe9")
    # UTF-16 and UTF-32 are read by their byte-order marks, either way round (refused before).
    for encoding in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"):
        marked = ("\ufeffcaf\u00e9 \U0001f600").encode(encoding)
        assert document_text("text/plain", marked) == "caf\u00e9 \U0001f600"
    assert document_text("application/json", '{"a": "\u00e9"}'.encode("utf-16")) == '{"a":"\u00e9"}'
    with pytest.raises(InvalidInput, match="PDF"):
        document_text("application/pdf", b"not a pdf at all")


def test_pieces_fit_and_keep_order() -> None:
    text = "\n\n".join(f"paragraph {i} " + "word " * 30 for i in range(20))
    cut = pieces(text, 500)
    assert all(len(p) <= 500 for p in cut)
    assert " ".join(cut).split() == text.split()  # nothing lost, nothing reordered
    assert pieces("x" * 25, 10) == ["x" * 10, "x" * 10, "x" * 5]
    assert pieces("  \n ", 10) == []


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pdf"


@pytest.mark.parametrize("name", ["assertion.pdf", "declared_size.pdf"])
def test_a_malformed_pdf_is_invalid_input_whatever_pypdf_raises(name: str) -> None:
    """Two single-byte mutations of a valid PDF: pypdf raised an AssertionError and a
    LimitReachedError, which were 500s."""
    with pytest.raises(InvalidInput, match="the PDF could not be read"):
        document_text("application/pdf", (FIXTURES / name).read_bytes())


@pytest.mark.parametrize(("code", "expected"), [("D800", "x??x"), ("0000", "xx")])
def test_a_pdf_text_is_cleaned_as_other_uploads(code: str, expected: str) -> None:
    """A font mapping a letter to a lone surrogate made the upload a 500 (its text could not be
    encoded), and to NUL a NUL-only piece that refused the whole batch."""
    assert pdf_text(mapped_pdf("xAAx", code)) == expected
