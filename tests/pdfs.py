"""PDFs built by hand for upload tests: pages in Helvetica, their content stream compressed."""

from __future__ import annotations

import zlib


def pdf_of(content: bytes, pages: int = 1) -> bytes:
    """A PDF of `pages` pages that each draw `content` (one stream, shared), with a correct
    cross-reference table."""
    stream = zlib.compress(content)
    first_page = 5
    kids = b" ".join(b"%d 0 R" % (first_page + i) for i in range(pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ] + [
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R "
        b"/Resources << /Font << /F1 4 0 R >> >> >>"
    ] * pages
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return out


def tiny_pdf(text: str) -> bytes:
    return pdf_of(f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode())


def slow_pdf(pages: int) -> bytes:
    """A few KB that pypdf reads in about 3 s a page (each page shows a letter 100,000
    times, as many as pypdf reads of one stream, and all share that stream)."""
    return pdf_of(b"BT /F1 12 Tf 0 0 Td " + b"(a) Tj 1 0 Td " * 100_000 + b"ET", pages)
