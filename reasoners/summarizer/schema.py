"""The shape the summarizer's LLM must fill (its prompt is prompt.py)."""

from __future__ import annotations

from functools import cache

from pydantic import BaseModel, Field, field_validator

# The prompt asks for "at most about N words": an answer past twice that ignored it. Characters
# are bounded too, since one run-on "word" of megabytes is a single word.
WORDS_OVER_LIMIT = 2
CHARS_PER_WORD = 15


class SummaryOutput(BaseModel):
    summary: str = Field(description="The updated summary of the whole conversation.")


_Summary = SummaryOutput


@cache
def bounded_summary(word_limit: int) -> type[SummaryOutput]:
    """SummaryOutput refusing a summary far over `word_limit` words: the model is re-asked
    with the reason, and a summary that never fits fails the job instead of being stored."""
    max_words = WORDS_OVER_LIMIT * word_limit
    max_chars = CHARS_PER_WORD * max_words

    class SummaryOutput(_Summary):  # the name the model sees in the JSON schema
        summary: str = Field(
            description=f"The updated summary of the whole conversation, at most about "
            f"{word_limit} words."
        )

        @field_validator("summary")
        @classmethod
        def _within_limit(cls, text: str) -> str:
            words = len(text.split())
            if words > max_words or len(text) > max_chars:
                raise ValueError(
                    f"the summary has {words} words and {len(text)} characters; write at most "
                    f"about {word_limit} words"
                )
            return text

    return SummaryOutput
