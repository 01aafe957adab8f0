"""Reasoning levels: how many tool-calling turns the dialectic may take, and which LLM role
(so which model) serves each level, and the time those turns share. The budgets and the time
are settings (BELIEFGRAPH_DIALECTIC_LEVELS, BELIEFGRAPH_DIALECTIC_TOOL_SECONDS)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from graph.errors import InvalidInput
from reasoners.llm.interface import DialecticLevel

LEVEL_NAMES = tuple(level.value for level in DialecticLevel)
TOOL_SECONDS = 120.0  # the setting's default
# Tool output one question reads, all calls together (about 24,000 tokens): 12,000 characters
# a call, 8 calls a turn and up to 50 turns overran any model's context, and the endpoint's
# refusal failed the whole question.
TOOL_CHARS = 96_000


@dataclass(frozen=True)
class ReasoningLevel:
    name: str
    max_tool_iterations: int  # model turns that may call tools before the answer is forced
    tool_seconds: float = TOOL_SECONDS  # what those turns and their tools may take in all
    tool_chars: int = TOOL_CHARS  # what their tools' output may add up to

    @property
    def role(self) -> str:
        """The LLM role, so each level's model is configuration, not code."""
        return f"dialectic-{self.name}"


@dataclass(frozen=True)
class ReasoningLevels:
    """The table of levels; `parse` overrides budgets from a setting such as "low=3,max=12"."""

    budgets: Mapping[str, int]
    tool_seconds: float = TOOL_SECONDS
    tool_chars: int = TOOL_CHARS

    def __post_init__(self) -> None:
        unknown = set(self.budgets) - set(LEVEL_NAMES)
        if unknown:
            raise InvalidInput(
                f"unknown reasoning level(s) {sorted(unknown)}; "
                f"the levels are {', '.join(LEVEL_NAMES)}"
            )
        for name, budget in self.budgets.items():
            if not 0 <= budget <= 50:
                raise InvalidInput(f"reasoning level {name}: budget {budget} is not in 0..50")

    def get(self, name: str) -> ReasoningLevel:
        if name not in self.budgets:
            raise InvalidInput(f"reasoning level {name!r} is not one of {', '.join(self.budgets)}")
        return ReasoningLevel(name, self.budgets[name], self.tool_seconds, self.tool_chars)

    @classmethod
    def parse(
        cls, text: str, base: ReasoningLevels | None = None, *, tool_seconds: float = TOOL_SECONDS
    ) -> ReasoningLevels:
        budgets = dict((base or DEFAULT_LEVELS).budgets)
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, sep, value = part.partition("=")
            if not sep or not value.strip().isdigit():
                raise InvalidInput(
                    f"BELIEFGRAPH_DIALECTIC_LEVELS: {part!r} is not <level>=<iterations>"
                )
            budgets[name.strip()] = int(value)
        try:
            return cls(budgets, tool_seconds, (base or DEFAULT_LEVELS).tool_chars)
        except InvalidInput as exc:
            raise InvalidInput(f"BELIEFGRAPH_DIALECTIC_LEVELS: {exc.message}") from exc


DEFAULT_LEVELS = ReasoningLevels({"minimal": 0, "low": 2, "medium": 4, "high": 6, "max": 10})
