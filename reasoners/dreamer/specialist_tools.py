"""The dream specialists' tools: their argument models and the specs the model is shown."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, StringConstraints

from graph.repo.peer_cards import MAX_ENTRY_CHARS
from reasoners.dreamer.rules import MAX_CARD_LINES
from reasoners.llm.interface import ToolSpec

MAX_CONTENT = 1000

# A belief's words, stripped: blank text passed `min_length` and was written as a belief.
Text = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_CONTENT)
]


class SearchArgs(BaseModel):
    query: str = Field(min_length=1, max_length=500, description="what to look for")
    limit: int = Field(default=10, ge=1, le=30)


class SimilarArgs(BaseModel):
    observation_id: str = Field(description="a belief id shown to you")
    limit: int = Field(default=10, ge=1, le=30)


class SourcesArgs(BaseModel):
    observation_ids: list[str] = Field(min_length=1, max_length=20)


class UpdateArgs(BaseModel):
    old_id: str = Field(description="the outdated belief")
    new_id: str | None = Field(default=None, description="the newer belief that replaces it")
    content: str | None = Field(
        default=None,
        max_length=MAX_CONTENT,
        description="or: the updated statement, written as a new belief",
    )
    premise_ids: list[str] = Field(
        default_factory=list, description="with content: the beliefs the update rests on"
    )


class DeductionArgs(BaseModel):
    content: Text
    premise_ids: list[str] = Field(description="every belief the deduction rests on (1 or more)")


class ContradictionArgs(BaseModel):
    content: Text = Field(description="what conflicts")
    observation_ids: list[str] = Field(description="the conflicting beliefs (2 or more)")


class PruneArgs(BaseModel):
    observation_id: str = Field(description="a deductive or inductive belief")
    reason: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300)]


class CardLineArgs(BaseModel):
    text: Annotated[
        str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_ENTRY_CHARS)
    ]
    support: list[str] = Field(description="ids of the beliefs this line rests on")


class CardArgs(BaseModel):
    lines: list[CardLineArgs] = Field(max_length=MAX_CARD_LINES)


class InductionArgs(BaseModel):
    content: Text
    pattern_type: Literal["preference", "behaviour", "trait", "temporal trend"]
    premise_ids: list[str] = Field(description="every supporting belief (2 or more)")


def _spec(name: str, description: str, model: type[BaseModel]) -> ToolSpec:
    return ToolSpec.from_model(name, description, model)


DISCOVERY = [
    _spec("search_beliefs", "Search this representation's current beliefs.", SearchArgs),
    _spec("similar_beliefs", "The current beliefs most similar to one belief.", SimilarArgs),
    _spec(
        "source_messages",
        "The premises and source message spans of beliefs.",
        SourcesArgs,
    ),
]
DEDUCTION_ACTIONS = [
    _spec("update_belief", "A knowledge update: replace an outdated belief.", UpdateArgs),
    _spec("add_deduction", "Write a deduction citing its premises.", DeductionArgs),
    _spec("add_contradiction", "Flag beliefs that cannot all be true.", ContradictionArgs),
    _spec("prune_belief", "Mark a derived belief that no longer holds as stale.", PruneArgs),
    _spec("set_peer_card", "Replace the peer card (every line cites beliefs).", CardArgs),
]
INDUCTION_ACTIONS = [
    _spec("add_induction", "Write a pattern citing its supporting beliefs.", InductionArgs),
]
