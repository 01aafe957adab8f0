"""Markdown chunking for file search (pure).

A file is split into sections at its headings, each section into paragraphs (blank lines),
and paragraphs are packed into chunks of at most `budget` tokens. Every chunk of a section
starts with the section's heading path ("# Guide > ## Setup"), so a chunk found alone still
says where it came from. A paragraph over the budget is split into sentences; a sentence over
it is cut into pieces of whole words (and a word over it, by characters) as a last resort.
A chunk per section keeps hits precise, but a file of many tiny sections would cost a chunk
(and an embedding) per line: 10,101 of them for a 100 KB file of one-line sections, 40 s of
CPU. So when sections would make more than twice the chunks the file's size needs (plus
SECTION_SLACK), consecutive sections share chunks while they fit, each with its heading path.

Each unit is counted once and a chunk's cost is the sum of its units' (see TokenCounter):
counting every growing candidate again took about 5 s of CPU for a 100,000-character file
of one-word paragraphs, against 0.2 s.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from reasoners.embeddings.tokens import TokenCounter
from reasoners.text.sentences import split_sentences

# A heading's title is what follows its marks, less trailing spaces and closing marks. Stripped
# after the match, not inside it: a lazy title before `[ \t#]*$` rescanned a run of spaces at
# every character (1.5 s for one line of 20,000 spaces, growing with its square).
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+)$")
_FENCE = re.compile(r"^(```|~~~)")
_BLANK = re.compile(r"\n[ \t]*\n")
# A heading never takes more than this share of a chunk's budget: its tail is cut instead.
HEADING_SHARE = 0.5
# Chunks a file may have beyond twice what its size needs before its sections share chunks.
SECTION_SLACK = 16


@dataclass(frozen=True)
class Section:
    heading: str  # the heading path, "" before the first heading
    body: str


def sections(text: str) -> list[Section]:
    """The text split at its markdown headings (not inside fenced code); each section carries
    the path of headings above it, nearest last."""
    found: list[Section] = []
    path: list[tuple[int, str]] = []
    lines: list[str] = []
    in_fence = False

    def close() -> None:
        body = "\n".join(lines).strip()
        heading = " > ".join(title for _, title in path)
        if body or heading:
            found.append(Section(heading, body))
        lines.clear()

    for line in text.splitlines():
        if _FENCE.match(line.strip()):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        title = match.group(2).rstrip(" \t#") if match else ""
        if match is None or not title:
            lines.append(line)
            continue
        close()
        level = len(match.group(1))
        path = [(lvl, title) for lvl, title in path if lvl < level]
        path.append((level, f"{match.group(1)} {title}"))
    close()
    # A heading directly followed by a sub-heading has no body of its own: its path lives on
    # in the sub-section's heading, so the empty section is dropped. One followed by a heading
    # of its level or above is kept, as a chunk of its own: its words are in no other.
    return [
        s
        for i, s in enumerate(found)
        if s.body or i == len(found) - 1 or not found[i + 1].heading.startswith(f"{s.heading} > ")
    ]


def _cut_words(text: str, budget: int, tokens: TokenCounter) -> list[str]:
    """Pieces of whole words within `budget`; a single word over it is cut by characters."""
    pieces: list[str] = []
    current: list[str] = []
    used = 0
    for word in text.split():
        cost = tokens.count(word)
        if used + cost <= budget:
            current.append(word)
            used += cost
            continue
        if current:
            pieces.append(" ".join(current))
        if cost > budget:
            # Cut piece by piece; what is left is counted once it fits, not after each cut
            # (each count read the rest of the word).
            while (low := _longest_prefix(word, budget, tokens)) < len(word):
                pieces.append(word[:low])
                word = word[low:]
            cost = tokens.count(word)
        current, used = [word], cost
    if current:
        pieces.append(" ".join(current))
    return pieces


def _longest_prefix(word: str, budget: int, tokens: TokenCounter) -> int:
    """How many characters of `word` the longest prefix within `budget` has (a single
    character always fits). The bound doubles from one budget's worth before the search
    narrows it, so each try reads about a piece's length: searching the whole word read it
    again and again, and a 100,000-character word (a base64 image) took 50 s to cut."""
    low, high = 1, len(word)
    probe = budget
    while probe < high:
        if tokens.count(word[:probe]) > budget:
            high = probe - 1
            break
        low, probe = probe, probe * 2
    while low < high:
        middle = (low + high + 1) // 2
        if tokens.count(word[:middle]) <= budget:
            low = middle
        else:
            high = middle - 1
    return low


def _units(paragraph: str, budget: int, tokens: TokenCounter) -> list[str]:
    """The paragraph whole if it fits, else its sentences, else pieces of them."""
    if tokens.count(paragraph) <= budget:
        return [paragraph]
    units: list[str] = []
    for sentence in split_sentences(paragraph) or [paragraph]:
        if tokens.count(sentence) <= budget:
            units.append(sentence)
        else:
            units.extend(_cut_words(sentence, budget, tokens))
    return units


def _heading_within(heading: str, budget: int, tokens: TokenCounter) -> str:
    limit = max(1, int(budget * HEADING_SHARE))
    if tokens.count(heading) <= limit:
        return heading
    return _cut_words(heading, limit, tokens)[0]


def chunk_markdown(text: str, budget: int, tokens: TokenCounter) -> list[str]:
    """The chunks of `text`, in order, each at most `budget` tokens (headings included)."""
    if budget < 2:
        raise ValueError("a chunk budget needs at least 2 tokens")
    pieces = _section_chunks(text, budget, tokens)
    costs = [tokens.count(piece) for piece in pieces]
    if len(pieces) <= 2 * math.ceil(sum(costs) / budget) + SECTION_SLACK:
        return pieces
    packed: list[str] = []
    used = 0
    for piece, cost in zip(pieces, costs, strict=True):
        # Pieces are whole words apart, so joined they cost what they do apart.
        if packed and used + cost <= budget:
            packed[-1] = f"{packed[-1]}\n\n{piece}"
            used += cost
        else:
            packed.append(piece)
            used = cost
    return packed


def _section_chunks(text: str, budget: int, tokens: TokenCounter) -> list[str]:
    """Each section's chunks, in order, each at most `budget` tokens with its heading."""
    chunks: list[str] = []
    for section in sections(text):
        heading = _heading_within(section.heading, budget, tokens) if section.heading else ""
        prefix = f"{heading}\n\n" if heading else ""
        room = budget - tokens.count(prefix) if heading else budget
        if not section.body:
            chunks.append(heading)
            continue
        current: list[str] = []
        used = 0
        for paragraph in (p.strip() for p in _BLANK.split(section.body)):
            if not paragraph:
                continue
            for unit in _units(paragraph, room, tokens):
                # Units are whole words apart, so the joined text costs what its units do.
                cost = tokens.count(unit)
                if current and used + cost > room:
                    chunks.append(prefix + "\n\n".join(current))
                    current, used = [], 0
                current.append(unit)
                used += cost
        if current:
            chunks.append(prefix + "\n\n".join(current))
    return chunks
