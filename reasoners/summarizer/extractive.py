"""Extractive session summaries for the no-LLM mode: the most informative sentences, verbatim.

The summary is a list of speaker-attributed lines ("alice: I moved to Berlin in May."). Each
update re-selects, from the previous summary's sentences and the new messages' sentences, the
ones that add the most words not already covered, until the word limit is reached, and prints
them in conversation order; sentences of one message share its line. A message's opening (its
first sentence with content words) counts more, since openings tend to carry the point;
questions count less; sentences already in the summary get a small bonus so that the start of a
long session is not pushed out by every new batch. Sentences with no content word ("Hi!",
"ok") are never kept.

What this cannot do, honestly:
- It never rewrites: no paraphrase, no compression inside a sentence, no merging of facts
  spread over several turns, no "they agreed to meet on Friday" from a back-and-forth.
- Pronouns stay unresolved ("it was great" keeps its "it"); relative dates ("tomorrow") stay
  relative, and lines carry no dates.
- "Informative" means "brings new content words" (an English stopword list): a short but
  crucial "No." or "I quit." can lose to a long, wordy sentence.
- A sentence longer than MAX_SENTENCE_WORDS is cut with an ellipsis.
- Once a sentence drops out of the summary it is gone; only the LLM summarizer re-reads
  history it has compressed.
- A previous summary written by the LLM (prose) is treated as unattributed sentences.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from reasoners.text.sentences import split_sentences
from reasoners.text.terms import content_terms

MAX_SENTENCE_WORDS = 40
FIRST_SENTENCE_WEIGHT = 1.0
LATER_SENTENCE_WEIGHT = 0.6
QUESTION_WEIGHT = 0.7
KEPT_BONUS = 1.25

_LINE = re.compile(r"^(?P<speaker>[A-Za-z0-9_.:@-]{1,100}): (?P<text>.+)$")


class Spoken(Protocol):
    @property
    def peer(self) -> str: ...

    @property
    def content(self) -> str: ...


@dataclass(frozen=True)
class _Sentence:
    text: str
    speaker: str | None
    group: int  # sentences of one message (or one summary line) print on one line
    weight: float
    terms: frozenset[str]

    @property
    def words(self) -> int:
        return len(self.text.split())


def _clip(sentence: str, cap: int) -> str:
    words = sentence.split()
    return " ".join(words) if len(words) <= cap else " ".join(words[:cap]) + "\u2026"


def _sentences(speaker: str | None, text: str, group: int, cap: int, kept: bool) -> list[_Sentence]:
    found: list[_Sentence] = []
    for sentence in split_sentences(text):
        clipped = _clip(sentence, cap)
        terms = content_terms(clipped)
        if not terms:
            continue  # "Hi!", "ok": nothing to keep, and not the opening that carries the point
        opening = not found
        weight = FIRST_SENTENCE_WEIGHT if opening or kept else LATER_SENTENCE_WEIGHT
        if sentence.rstrip().endswith("?"):
            weight *= QUESTION_WEIGHT
        if kept:
            weight *= KEPT_BONUS
        found.append(_Sentence(clipped, speaker, group, weight, terms))
    return found


def _candidates(previous: str | None, new_messages: Sequence[Spoken], cap: int) -> list[_Sentence]:
    found: list[_Sentence] = []
    group = 0
    for line in (previous or "").splitlines():
        if not line.strip():
            continue
        match = _LINE.match(line.strip())
        speaker, text = (match["speaker"], match["text"]) if match else (None, line)
        found += _sentences(speaker, text, group, cap, kept=True)
        group += 1
    for message in new_messages:
        found += _sentences(message.peer, message.content, group, cap, kept=False)
        group += 1
    return found


def extractive_summary(
    previous: str | None, new_messages: Sequence[Spoken], word_limit: int
) -> str:
    """The previous summary updated with `new_messages`, at most `word_limit` words.

    Speaker labels count as one word each. Returns "" when nothing informative fits.
    """
    if word_limit < 2:
        raise ValueError("word_limit must be >= 2 (a speaker label and one word)")
    cap = min(MAX_SENTENCE_WORDS, word_limit - 1)
    candidates = _candidates(previous, new_messages, cap)
    chosen: set[int] = set()
    covered: set[str] = set()
    groups: set[int] = set()
    used = 0
    # Greedy by new content words, evaluated lazily: a sentence's score only falls as words
    # are covered, so one scored in this round that heads the heap beats every other's stale
    # score, and others are scored again only when they reach the top. The same picks as
    # scoring every sentence each round (ties to the earlier one), which took 35 s for 60 long
    # messages. A sentence that does not fit never will: `used` grows by at least the one
    # label a pick from its message can save it.
    heap = [(-len(s.terms) * s.weight, index, 0) for index, s in enumerate(candidates)]
    heapq.heapify(heap)
    picks = 0
    while heap:
        _, index, scored_at = heapq.heappop(heap)
        sentence = candidates[index]
        label = 1 if sentence.speaker and sentence.group not in groups else 0
        if used + label + sentence.words > word_limit:
            continue
        if scored_at != picks:
            score = len(sentence.terms - covered) * sentence.weight
            if score > 0:
                heapq.heappush(heap, (-score, index, picks))
            continue
        used += sentence.words + label
        chosen.add(index)
        covered |= sentence.terms
        groups.add(sentence.group)
        picks += 1
    return _render([candidates[index] for index in sorted(chosen)])


def _render(sentences: list[_Sentence]) -> str:
    lines: list[str] = []
    current: int | None = None
    for sentence in sentences:
        if sentence.group == current:
            lines[-1] += " " + sentence.text
            continue
        current = sentence.group
        prefix = f"{sentence.speaker}: " if sentence.speaker else ""
        lines.append(prefix + sentence.text)
    return "\n".join(lines)
