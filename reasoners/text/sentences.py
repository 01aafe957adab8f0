"""Sentence splitting for chat text (pure): every sentence is a verbatim substring.

A line break always ends a sentence (chat messages use them as separators, rarely to wrap);
bullets are stripped; abbreviations, initials and ellipses are handled so that "Dr. Smith" or
"I was thinking... maybe not" stay whole.
"""

from __future__ import annotations

import re


def _vocabulary(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Never end a sentence: titles before names, and Latin abbreviations that introduce examples.
_NEVER_END = _vocabulary("mr mrs ms dr prof st sr jr mt rev gen sgt capt lt col e.g i.e cf vs viz")
# End a sentence only before a capital: "etc. Then ..." ends, "approx. five" and "No. 5" do not.
_END_IF_CAPITAL = _vocabulary("etc inc ltd co corp dept approx ca incl esp fig no nos vol pp")
# A terminator is a whole run of marks, read once (possessive, and never started inside a run:
# matching from every position of a long run was quadratic); its last marks say what it is.
# Whitespace, and what shows as nothing: control characters (a NUL), zero-width marks and a
# byte-order mark (a file saved with one starts its first line with it). Trimmed from a
# sentence's ends; the extractive deriver also takes them out of its words.
INVISIBLE = "".join(
    [chr(c) for c in range(0x21) if chr(c) not in "\r\n"]
    + ["\x7f", "\x85", "\xa0", "\u1680", "\u180e", "\u2028", "\u2029", "\u202f"]
    + ["\u205f", "\u3000", "\ufeff"]
    + [chr(c) for c in range(0x2000, 0x2010)]
    + [chr(c) for c in range(0x2060, 0x2065)]
)
_SPACE_LIKE = "[" + "".join(f"\\u{ord(c):04x}" for c in INVISIBLE) + "]"
_TERMINATOR = re.compile(
    r"(?<![.!?\u2026])(?P<mark>[.!?\u2026]++)[\"')\]\u201d\u2019]*+(?=\s|" + _SPACE_LIKE + "|$)"
)
_BULLET = re.compile(r"[ \t]*(?:[-*+\u2022\u2013\u2014>]|\d{1,3}[.)]|[a-z][.)])[ \t]+")
_WORD_BEFORE = re.compile(r"[A-Za-z](?:[A-Za-z.]*[A-Za-z])?$")
_NEXT_CHARACTER = re.compile(r"(?:\s|" + _SPACE_LIKE + r")*+([^\s" + _SPACE_LIKE[1:-1] + "])")
# How far back the word before a period is looked for: far longer than any abbreviation, and a
# bound, so a line with many periods costs its length, not its length times its periods.
_WORD_WINDOW = 32


def _ends_sentence(line: str, terminator: re.Match[str]) -> bool:
    following = _NEXT_CHARACTER.match(line, terminator.end())
    if following is None:
        return True
    next_character = following.group(1)
    mark = terminator.group("mark")
    if mark.endswith(("..", "\u2026")):
        return not next_character.islower()  # "I was thinking... maybe not" stays one sentence
    if mark != ".":
        return True  # "?", "!?", "\u2026!", "?."
    end = terminator.start()
    before = _WORD_BEFORE.search(line, max(0, end - _WORD_WINDOW), end)
    if before is None:
        return True  # after a digit or symbol, e.g. "I paid 5$."
    word = before.group(0)
    lowered = word.lower()
    if lowered in _NEVER_END:
        return False
    if len(word) == 1 and word.isupper() and word != "I":
        return False  # an initial, as in "J. R. R. Tolkien"
    if lowered in _END_IF_CAPITAL or "." in word:  # "U.S.", "p.m." and the like
        return next_character.isupper()
    return True


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """[start, end) offsets of each sentence in `text`, without bullets or outer whitespace.

    A line break always ends a sentence (chat messages use them as separators, rarely to wrap).
    """
    spans: list[tuple[int, int]] = []
    for line_match in re.finditer(r"[^\r\n]+", text):
        line, offset = line_match.group(0), line_match.start()
        lead = len(line) - len(line.lstrip(INVISIBLE))  # a byte-order mark before a bullet
        bullet = _BULLET.match(line, lead)
        start = bullet.end() if bullet else 0
        cuts = [m.end() for m in _TERMINATOR.finditer(line, start) if _ends_sentence(line, m)]
        for end in [*cuts, len(line)]:
            chunk = line[start:end]
            if chunk.strip(INVISIBLE):
                lead = len(chunk) - len(chunk.lstrip(INVISIBLE))
                spans.append((offset + start + lead, offset + start + len(chunk.rstrip(INVISIBLE))))
            start = end
    return spans


def split_sentences(text: str) -> list[str]:
    """The sentences of `text`, each a verbatim substring of it."""
    return [text[start:end] for start, end in sentence_spans(text)]
