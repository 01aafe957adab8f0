"""ScriptedLLM: the LLM interface answering from a script, for tests (no network, no model).

A script maps a role to its replies, consumed in order by every call for that role:

- a pydantic instance: the structured answer;
- a dict or a str: the model's raw output, validated against the requested schema like real
  output (a str that is not valid JSON for the schema is an invalid answer);
- an exception instance: raised, as a transport failure would be (e.g. LLMUnavailable);
- for `chat`: a ChatTurn, a str (text only) or a list of ToolCall;
- for `stream`: a str (split into word deltas) or a list of str deltas, which may end with
  an exception to fail mid-stream;
- a callable (messages, schema) -> one of the above, for answers that depend on the prompt
  (schema is None for chat and stream).

A role mapped to a callable instead of a list answers every call with it and never runs out.

Like the real provider, an invalid structured answer is re-asked: the fake appends the raw
answer and the validation error to the conversation and takes the role's next reply; after
`max_retries + 1` invalid answers it raises LLMOutputInvalid. Every request, re-asks included,
is recorded in `calls`. Usage is deterministic: words in, words out.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from reasoners.llm.interface import (
    ChatMessage,
    ChatTurn,
    LLMOutputInvalid,
    M,
    Structured,
    ToolCall,
    ToolSpec,
    Usage,
    assistant,
    user,
)

Dynamic = Callable[[list[ChatMessage], type[BaseModel] | None], Any]
Reply = BaseModel | dict[str, Any] | str | BaseException | ChatTurn | list[Any] | Dynamic


class ScriptExhausted(AssertionError):
    """A call came for a role whose script has no reply left: the test scripted too few."""


@dataclass(frozen=True)
class Call:
    """One request the code under test made."""

    kind: Literal["structured", "chat", "stream"]
    role: str
    messages: list[ChatMessage]
    schema: type[BaseModel] | None = None
    tools: list[ToolSpec] | None = None
    max_tokens: int | None = None
    attempt: int = 1  # > 1 for a re-ask after invalid output


def _words(text: str | None) -> int:
    return len(text.split()) if text else 0


def _input_words(messages: Sequence[ChatMessage]) -> int:
    return sum(_words(message["content"]) for message in messages)


def word_deltas(text: str) -> list[str]:
    """`text` cut after each run of whitespace; the deltas join back to `text` exactly."""
    deltas: list[str] = []
    current = ""
    for char in text:
        if current and not char.isspace() and current[-1].isspace():
            deltas.append(current)
            current = ""
        current += char
    return [*deltas, current] if current else deltas


class ScriptedLLM:
    """The LLM protocol, answering from a per-role script."""

    def __init__(
        self,
        script: Mapping[str, Sequence[Reply] | Dynamic] | None = None,
        *,
        max_retries: int = 2,
        model: str = "scripted",
    ) -> None:
        self.max_retries = max_retries
        self.model = model
        self.calls: list[Call] = []
        self._queues: dict[str, deque[Reply]] = {}
        self.closed = False
        self._always: dict[str, Dynamic] = {}
        for role, replies in (script or {}).items():
            if callable(replies):
                self._always[role] = replies
            else:
                self.add(role, *replies)

    @property
    def mode(self) -> str:
        return "scripted"

    async def aclose(self) -> None:
        self.closed = True

    def add(self, role: str, *replies: Reply) -> ScriptedLLM:
        """Append replies to a role's script; returns self for chaining."""
        self._queues.setdefault(role, deque()).extend(replies)
        return self

    def remaining(self, role: str) -> int:
        return len(self._queues.get(role, ()))

    def calls_for(self, role: str) -> list[Call]:
        return [call for call in self.calls if call.role == role]

    def _next(self, role: str, messages: list[ChatMessage], schema: type[BaseModel] | None) -> Any:
        if role in self._always:
            return self._always[role](messages, schema)
        queue = self._queues.get(role)
        if not queue:
            made = len(self.calls_for(role))
            raise ScriptExhausted(f"no scripted reply left for role {role!r} (call #{made})")
        reply = queue.popleft()
        return reply(messages, schema) if callable(reply) else reply

    # --- structured ---------------------------------------------------------------------------

    async def structured(
        self,
        role: str,
        messages: list[ChatMessage],
        schema: type[M],
        *,
        max_tokens: int | None = None,
    ) -> Structured[M]:
        history = list(messages)
        usage = Usage()
        error = ""
        for attempt in range(1, self.max_retries + 2):
            self.calls.append(
                Call("structured", role, list(history), schema, None, max_tokens, attempt)
            )
            reply = self._next(role, history, schema)
            if isinstance(reply, BaseException):
                raise reply
            raw, value, error = _parse(reply, schema)
            usage += Usage(_input_words(history), _words(raw))
            if value is not None:
                return Structured(value=value, usage=usage, model=self.model)
            history += [
                assistant(raw),
                user(f"Your answer failed validation; correct it:\n{error}"),
            ]
        raise LLMOutputInvalid(
            f"{self.model} gave no answer matching {schema.__name__} in "
            f"{self.max_retries + 1} attempt(s)",
            last_error=error,
            attempts=self.max_retries + 1,
            usage=usage,
        )

    # --- chat ---------------------------------------------------------------------------------

    async def chat(
        self,
        role: str,
        messages: list[ChatMessage],
        *,
        tools: list[ToolSpec] | None = None,
        max_tokens: int | None = None,
    ) -> ChatTurn:
        self.calls.append(Call("chat", role, list(messages), None, tools, max_tokens))
        reply = self._next(role, messages, None)
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, str):
            turn = ChatTurn(content=reply)
        elif isinstance(reply, list) and all(isinstance(call, ToolCall) for call in reply):
            turn = ChatTurn(content=None, tool_calls=reply)
        elif isinstance(reply, ChatTurn):
            turn = reply
        else:
            raise TypeError(f"a chat call needs a ChatTurn, str or [ToolCall], not {reply!r}")
        if turn.usage == Usage():
            spoken = [turn.content or ""] + [json.dumps(c.arguments) for c in turn.tool_calls]
            usage = Usage(_input_words(messages), sum(_words(text) for text in spoken))
            turn = replace(turn, usage=usage)
        return replace(turn, model=turn.model or self.model)

    # --- stream -------------------------------------------------------------------------------

    def stream(
        self, role: str, messages: list[ChatMessage], *, max_tokens: int | None = None
    ) -> AsyncIterator[str]:
        # Recorded and consumed at call time, not at first iteration, so call order is exact.
        self.calls.append(Call("stream", role, list(messages), None, None, max_tokens))
        reply = self._next(role, messages, None)
        if isinstance(reply, str):
            return _emit(word_deltas(reply))
        if isinstance(reply, BaseException):
            return _emit([reply])
        if isinstance(reply, list) and all(isinstance(i, str | BaseException) for i in reply):
            return _emit(reply)
        raise TypeError(f"a stream call needs a str or a list of deltas, not {reply!r}")


async def _emit(items: Sequence[str | BaseException]) -> AsyncIterator[str]:
    for item in items:
        if isinstance(item, BaseException):
            raise item
        yield item


def _parse(reply: Any, schema: type[M]) -> tuple[str, M | None, str]:
    """(raw output, validated value or None, validation error)."""
    if isinstance(reply, BaseModel):
        if not isinstance(reply, schema):
            raise TypeError(f"scripted a {type(reply).__name__} for a {schema.__name__} call")
        return reply.model_dump_json(), reply, ""
    if isinstance(reply, dict):
        raw = json.dumps(reply, default=str)
        try:
            return raw, schema.model_validate(reply), ""
        except ValidationError as exc:
            return raw, None, str(exc)
    if isinstance(reply, str):
        try:
            return reply, schema.model_validate_json(reply), ""
        except ValidationError as exc:
            return reply, None, str(exc)
    raise TypeError(f"a structured call needs a model, dict, str or exception, not {reply!r}")
