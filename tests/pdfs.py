"""PDFs built by hand for upload tests: pages in Helvetica, their content stream compressed."""

from __future__ import annotations

import zlib


def pdf_of(
    content: bytes, pages: int = 1, to_unicode: bytes | None = None, fonts: int = 1
) -> bytes:
    """A PDF of `pages` pages that each draw `content` (one stream, shared), with a correct
    cross-reference table; `to_unicode`, a CMap stream the font reads its text through.
    `fonts` > 1: the font is listed under that many names (F1, F2, ...), its /Encoding a
    string pypdf does not know, which it logs, quoted, for each name."""
    stream = zlib.compress(content)
    first_page = 5
    kids = b" ".join(b"%d 0 R" % (first_page + i) for i in range(pages))
    cmap = b" /ToUnicode %d 0 R" % (first_page + pages) if to_unicode is not None else b""
    cmap += b" /Encoding (%s)" % (b"x" * 100) if fonts > 1 else b""
    names = b" ".join(b"/F%d 4 0 R" % (i + 1) for i in range(fonts))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica%s >>" % cmap,
    ] + [
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R "
        b"/Resources << /Font << %s >> >> >>" % names
    ] * pages
    if to_unicode is not None:
        objects.append(
            b"<< /Length %d >>\nstream\n" % len(to_unicode) + to_unicode + b"\nendstream"
        )
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


def mapped_pdf(text: str, code: str) -> bytes:
    """`text` drawn in a font whose ToUnicode map reads the letter A as UTF-16 `code` (hex):
    "D800" a lone surrogate, "0000" a NUL."""
    cmap = (
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /T def "
        "/CMapType 2 def 1 begincodespacerange <00> <FF> endcodespacerange "
        f"1 beginbfchar <41> <{code}> endbfchar endcmap "
        "CMapName currentdict /CMap defineresource pop end end"
    )
    return pdf_of(f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode(), to_unicode=cmap.encode())


def noisy_pdf(fonts: int) -> bytes:
    """A page in a font of an unknown encoding, listed under `fonts` names."""
    return pdf_of(b"BT /F1 12 Tf 72 720 Td (hello) Tj ET", fonts=fonts)
