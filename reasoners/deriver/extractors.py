"""Fact extraction for one deriver batch: by an LLM, or by the extractive (no-LLM) provider.

Both return facts that cite a target message by id with a span; the deriver then checks every
span against its message, whichever extractor produced it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Protocol

from reasoners.deriver import first_person as extractive
from reasoners.deriver.batching import DeriverBatch
from reasoners.deriver.prompt import InstructionHierarchy, cited_message, deriver_messages
from reasoners.deriver.schema import DeriverOutput
from reasoners.llm.interface import LLM, Usage


@dataclass(frozen=True)
class Fact:
    content: str
    message_id: str
    span: str


@dataclass(frozen=True)
class Extraction:
    facts: list[Fact]
    usage: Usage = field(default_factory=Usage)
    bad_citations: int = 0  # cited an index outside the batch or another speaker's turn


class Extractor(Protocol):
    async def extract(
        self, batch: DeriverBatch, target: str, instructions: InstructionHierarchy
    ) -> Extraction: ...


class LLMExtractor:
    def __init__(self, llm: LLM) -> None:
        self._llm = llm

    async def extract(
        self, batch: DeriverBatch, target: str, instructions: InstructionHierarchy
    ) -> Extraction:
        result = await self._llm.structured(
            "deriver", deriver_messages(batch, target, instructions), DeriverOutput
        )
        facts: list[Fact] = []
        bad = 0
        for item in result.value.observations:
            message = cited_message(batch, item.source_message_index)
            if message is None:
                bad += 1
                continue
            facts.append(Fact(item.content, message.id, item.source_span))
        return Extraction(facts, result.usage, bad)


class ExtractiveExtractor:
    """Sentence-level facts with no model at all (see first_person.py for its limits)."""

    async def extract(
        self, batch: DeriverBatch, target: str, instructions: InstructionHierarchy
    ) -> Extraction:
        messages = batch.target_messages
        # CPU work on up to a batch of long messages: off the event loop, which serves requests.
        found = await asyncio.to_thread(extractive.extract, messages, target)
        return Extraction([Fact(f.content, messages[f.message_index].id, f.span) for f in found])
