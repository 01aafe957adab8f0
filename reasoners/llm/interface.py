"""The one LLM interface: structured output, tool-calling chat and text streaming, by role.

Every reasoner talks to an `LLM`; adapters sit behind it (`OpenAICompatibleLLM` for any
OpenAI-compatible endpoint, a scripted fake in the tests). A role ("deriver",
"summarizer", "dialectic-low", ...) rather than a model name is passed, so which model serves
which task is configuration, not code.

Messages are TypedDicts in the OpenAI chat wire format, so they can be logged, stored as JSON
and sent without translation; the helpers below build them.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, Literal, NotRequired, Protocol, TypedDict, TypeVar

from pydantic import BaseModel

from graph.errors import BeliefgraphError, ErrorCode, Unavailable
from graph.validation import is_text

M = TypeVar("M", bound=BaseModel)


# Roles the configuration knows; a role outside this list is served by the default model.
class DialecticLevel(StrEnum):
    """The dialectic's reasoning levels; each is an LLM role of its own (dialectic-<level>)."""

    MINIMAL = "minimal"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    MAX = "max"


ROLES: tuple[str, ...] = (
    "deriver",
    "summarizer",
    "dreamer-deduction",
    "dreamer-induction",
    *(f"dialectic-{level}" for level in DialecticLevel),
)


# --- errors -----------------------------------------------------------------------------------


class LLMError(BeliefgraphError):
    """Anything that kept an LLM call from producing a usable answer."""

    # The tokens billed for the failed work before it failed, when known (see `billed`): a
    # job runner charges them to the attempt.
    usage: Usage


class LLMUnavailable(LLMError, Unavailable):
    """The endpoint could not be reached or refused the call (network, timeout, 429, 5xx, auth).

    `retryable` tells a job runner whether trying again later can help: a timeout can, a
    rejected API key cannot.
    """

    code = ErrorCode.UNAVAILABLE

    def __init__(self, message: str, *, retryable: bool = True, **details: Any) -> None:
        super().__init__(message, retryable=retryable, **details)
        self.retryable = retryable


class LLMOutputInvalid(LLMError):
    """The model kept answering with output that does not fit the schema, after all re-asks.
    The service is fine and the request was too: what failed is upstream (UNAVAILABLE)."""

    code = ErrorCode.UNAVAILABLE

    def __init__(
        self, message: str, *, last_error: str, attempts: int, usage: Usage | None = None
    ) -> None:
        super().__init__(message, last_error=last_error, attempts=attempts)
        self.last_error = last_error
        self.attempts = attempts
        self.usage = usage if usage is not None else Usage()


# --- results ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Usage:
    """Tokens billed for a call, summed over every attempt it took."""

    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens
        )

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def split(self, weights: Sequence[int]) -> list[Usage]:
        """This usage in parts proportional to `weights` (each at least 1) that add up to it
        exactly: the tokens rounding leaves go to the parts with the largest remainders,
        earlier parts first, so a run's jobs are billed what the run was, no token lost."""
        return [
            Usage(i, o)
            for i, o in zip(
                _apportion(self.input_tokens, weights),
                _apportion(self.output_tokens, weights),
                strict=True,
            )
        ]


def _apportion(total: int, weights: Sequence[int]) -> list[int]:
    whole = sum(weights)
    parts = [total * w // whole for w in weights]
    left = total - sum(parts)
    by_remainder = sorted(range(len(weights)), key=lambda k: (-(total * weights[k] % whole), k))
    for k in by_remainder[:left]:
        parts[k] += 1
    return parts


@dataclass(frozen=True)
class Structured(Generic[M]):
    value: M
    usage: Usage
    model: str


@dataclass(frozen=True)
class ToolSpec:
    """A function the model may call; `parameters` is a JSON schema object."""

    name: str
    description: str
    parameters: dict[str, Any]

    @classmethod
    def from_model(cls, name: str, description: str, model: type[BaseModel]) -> ToolSpec:
        return cls(name, description, model.model_json_schema())


@dataclass(frozen=True)
class ToolCall:
    """One call the model asked for.

    When the model's arguments are not a JSON object, `arguments` is empty and
    `arguments_error` says why: answer the call with that error so the model can fix it.
    """

    id: str
    name: str
    arguments: dict[str, Any]
    arguments_error: str | None = None


@dataclass(frozen=True)
class ChatTurn:
    """The model's reply in a chat: text, tool calls, or both."""

    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    model: str = ""


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def parse_tool_arguments(raw: str | None) -> tuple[dict[str, Any], str | None]:
    """Decode a tool call's JSON arguments into (arguments, error)."""
    if not raw or not raw.strip():
        return {}, None  # a call without parameters
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return {}, f"arguments are not valid JSON: {exc.msg} at position {exc.pos}"
    if not isinstance(value, dict):
        return {}, f"arguments must be a JSON object, got {type(value).__name__}"
    # A \ud800 escape decodes to a lone surrogate, which the database and the tokenizer
    # cannot encode: the tool call failed the whole turn.
    if _SURROGATE_ESCAPE.search(raw) and not is_text(json.dumps(value, ensure_ascii=False)):
        return {}, "arguments hold a string that is not valid Unicode (a lone surrogate)"
    return value, None


# --- messages (OpenAI chat wire format) ---------------------------------------------------


class FunctionCallWire(TypedDict):
    name: str
    arguments: str  # JSON text, as the wire format has it


class ToolCallWire(TypedDict):
    id: str
    type: Literal["function"]
    function: FunctionCallWire


class SystemMessage(TypedDict):
    role: Literal["system"]
    content: str


class UserMessage(TypedDict):
    role: Literal["user"]
    content: str


class AssistantMessage(TypedDict):
    role: Literal["assistant"]
    content: str | None
    tool_calls: NotRequired[list[ToolCallWire]]


class ToolMessage(TypedDict):
    role: Literal["tool"]
    tool_call_id: str
    content: str


ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage


def system(content: str) -> SystemMessage:
    return {"role": "system", "content": content}


def user(content: str) -> UserMessage:
    return {"role": "user", "content": content}


def assistant(content: str | None, tool_calls: list[ToolCall] | None = None) -> AssistantMessage:
    message: AssistantMessage = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
            }
            for call in tool_calls
        ]
    return message


def assistant_turn(turn: ChatTurn) -> AssistantMessage:
    """The message that puts a model's turn back into the history of a tool loop."""
    return assistant(turn.content, turn.tool_calls)


def tool_result(call_id: str, content: str) -> ToolMessage:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


# --- the interface ----------------------------------------------------------------------------


class LLM(Protocol):
    @property
    def mode(self) -> str:
        """Which provider answers ("openai", "scripted", ...); responses report it."""
        ...

    async def structured(
        self,
        role: str,
        messages: list[ChatMessage],
        schema: type[M],
        *,
        max_tokens: int | None = None,
    ) -> Structured[M]:
        """An answer validated against `schema`, re-asking on invalid output.

        Raises LLMUnavailable or LLMOutputInvalid.
        """
        ...

    async def chat(
        self,
        role: str,
        messages: list[ChatMessage],
        *,
        tools: list[ToolSpec] | None = None,
        max_tokens: int | None = None,
    ) -> ChatTurn:
        """One model turn, possibly asking for tool calls. Raises LLMUnavailable."""
        ...

    def stream(
        self, role: str, messages: list[ChatMessage], *, max_tokens: int | None = None
    ) -> AsyncIterator[str]:
        """Text deltas of one answer, as they arrive. Raises LLMUnavailable."""
        ...

    async def aclose(self) -> None:
        """Release the connections the provider holds (called once, at shutdown)."""
        ...


def billed(error: LLMError, spent: Usage) -> LLMError:
    """`error`, carrying `spent` besides what it reports already: a dream that fails on its
    twentieth call was billed for the nineteen before, which its job records."""
    error.usage = spent + getattr(error, "usage", Usage())
    return error
