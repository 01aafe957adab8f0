"""The shape the summarizer's LLM must fill (its prompt is prompt.py)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class SummaryOutput(BaseModel):
    summary: str = Field(description="The updated summary of the whole conversation.")
