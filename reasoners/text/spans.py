"""Grounding check: is a cited span a verbatim part of its source message?

"Verbatim" is judged after a light normalization (Unicode NFKC, casefold, one kind of quote and
dash, collapsed whitespace, no surrounding punctuation), so an LLM that straightens a curly
quote or changes case still passes, while a paraphrase does not. Matching is a plain substring
test, not word-aligned: "cat" is grounded in "concatenate". Callers wanting stricter spans
should also check their length.
"""

from __future__ import annotations

import unicodedata

# Typographic variants that LLMs routinely swap for their ASCII forms. Applied after NFKC, so
# only characters that NFKC leaves alone are listed (it already maps, e.g., fullwidth "-").
_QUOTES = {
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "`": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u00ab": '"', "\u00bb": '"',
}  # fmt: skip
_DASHES = {
    "\u2010": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-", "\u2212": "-",
}  # fmt: skip
_UNIFY = str.maketrans({**_QUOTES, **_DASHES})


def _clusters(text: str) -> list[tuple[int, int]]:
    """Split into base character + following combining marks, as (start, end) offsets.

    NFKC is applied per cluster so that each normalized character can be traced back to the
    original characters it came from; composing marks never cross a cluster boundary.
    """
    bounds: list[tuple[int, int]] = []
    start = 0
    for index in range(1, len(text) + 1):
        if index == len(text) or not unicodedata.combining(text[index]):
            bounds.append((start, index))
            start = index
    return bounds


def _is_edge_junk(char: str) -> bool:
    return char.isspace() or unicodedata.category(char).startswith("P")


def normalize_with_offsets(text: str) -> tuple[str, list[tuple[int, int]]]:
    """Normalize `text` and give, for each output character, its (start, end) in `text`."""
    chars: list[str] = []
    origin: list[tuple[int, int]] = []
    for start, end in _clusters(text):
        piece = unicodedata.normalize("NFKC", text[start:end]).casefold().translate(_UNIFY)
        for char in piece:
            if char.isspace():
                # Collapse a whitespace run into one space that points at the run's first char.
                if chars and chars[-1] == " ":
                    continue
                char = " "
            chars.append(char)
            origin.append((start, end))
    first = 0
    while first < len(chars) and _is_edge_junk(chars[first]):
        first += 1
    last = len(chars)
    while last > first and _is_edge_junk(chars[last - 1]):
        last -= 1
    return "".join(chars[first:last]), origin[first:last]


def normalize(text: str) -> str:
    """NFKC, casefold, ASCII quotes and dashes, single spaces, no surrounding punctuation."""
    return normalize_with_offsets(text)[0]


def is_grounded(span: str, message: str) -> bool:
    """True when the normalized span occurs in the normalized message; an empty span is not."""
    return Grounding().check(span, message)


class Grounding:
    """`is_grounded` over many spans of the same messages: each message is normalized once.
    (A long message can yield thousands of facts; normalizing it again for each one took a
    minute of CPU for one 25,000-character message.)"""

    def __init__(self) -> None:
        self._normalized: dict[str, str] = {}

    def check(self, span: str, message: str) -> bool:
        needle = normalize(span)
        if not needle:
            return False
        haystack = self._normalized.get(message)
        if haystack is None:
            haystack = self._normalized[message] = normalize(message)
        return needle in haystack

    def check_all(self, pairs: list[tuple[str, str]]) -> list[bool]:
        """`check` of each (span, message)."""
        return [self.check(span, message) for span, message in pairs]


def locate(span: str, message: str) -> tuple[int, int] | None:
    """Offsets [start, end) in the ORIGINAL message of the first grounded match, else None.

    The range covers whole source characters, so a match that ends inside an expanded
    character (say the "f" of a "fi" ligature) extends to the end of that character. Leading
    and trailing punctuation of the span is not part of the match.
    """
    needle = normalize(span)
    if not needle:
        return None
    haystack, origin = normalize_with_offsets(message)
    position = haystack.find(needle)
    if position < 0:
        return None
    return origin[position][0], origin[position + len(needle) - 1][1]
