"""The shape the deriver's LLM must fill, next to the prompt that asks for it (prompt.py).

Field descriptions end up in the JSON schema the model sees, so they are written for the model.
Limits are generous but finite: an answer outside them is re-asked, never silently truncated.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field, StringConstraints

# One call covers a batch of the target's messages, up to 20 facts each (the handler keeps a
# message's first 20 and counts the rest): 50 a call refused a whole batch of three messages of
# 20 facts, where the handler would have kept all 60. 1,000 is 20 facts for each of a run's
# 50 messages.
MAX_OBSERVATIONS = 1000
MAX_OBSERVATION_CHARS = 500
MAX_SPAN_CHARS = 1000


class DeriverObservation(BaseModel):
    content: Annotated[
        str,
        StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_OBSERVATION_CHARS),
    ] = Field(
        description="One atomic, self-contained fact about the target peer, naming them, "
        "with absolute dates."
    )
    source_message_index: int = Field(
        ge=0, description="The [index] of the target message that states the fact."
    )
    source_span: Annotated[
        str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_SPAN_CHARS)
    ] = Field(description="The exact words of that message that state the fact, copied verbatim.")


class DeriverOutput(BaseModel):
    observations: list[DeriverObservation] = Field(
        max_length=MAX_OBSERVATIONS,
        description="Every explicit fact about the target peer; empty when there is none.",
    )
