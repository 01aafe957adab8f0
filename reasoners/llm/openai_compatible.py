"""The LLM interface over any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, LM Studio, ...).

Structured output goes through `instructor`, which validates the answer against the schema and
re-asks with the validation errors on failure. The structured-output mode is configurable
because many local servers ignore `response_format: json_schema` but follow tool calling, or
only manage plain JSON.

One `max_retries` setting serves twice: the openai client retries transport failures (429, 5xx,
timeouts, with backoff) and instructor re-asks after invalid output.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Awaitable
from typing import Any, TypeVar, cast

import instructor
import openai
from httpx2 import HTTPError as TransportFailure  # openai >= 3 sends through httpx2
from instructor.core import Hooks, IncompleteOutputException, InstructorRetryException
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionMessageFunctionToolCallParam,
    ChatCompletionMessageParam,
    ChatCompletionToolParam,
)

from reasoners.llm.config import LLMConfig, StructuredMode
from reasoners.llm.interface import (
    ChatMessage,
    ChatTurn,
    LLMOutputInvalid,
    LLMUnavailable,
    M,
    Structured,
    ToolCall,
    ToolSpec,
    Usage,
    parse_tool_arguments,
)

_INSTRUCTOR_MODES: dict[StructuredMode, instructor.Mode] = {
    "json_schema": instructor.Mode.JSON_SCHEMA,  # response_format json_schema
    "tools": instructor.Mode.TOOLS,  # a forced function call carries the JSON
    "json_object": instructor.Mode.JSON,  # response_format json_object + schema in the prompt
    "md_json": instructor.Mode.MD_JSON,  # JSON in a markdown block, for models with no JSON mode
}
OPENAI_BASE_URL = "https://api.openai.com/v1"
# Local servers accept any key, but the openai client refuses to start without one.
_KEYLESS = "not-needed"
_MAX_ERROR_CHARS = 300
log = logging.getLogger(__name__)
# A lone surrogate cannot be encoded as UTF-8: an answer carrying one failed every response
# and every write that held it.
_SURROGATE = re.compile("[\ud800-\udfff]")
T = TypeVar("T")


# --- the provider -----------------------------------------------------------------------------


def openai_client(config: LLMConfig, **options: Any) -> openai.AsyncOpenAI:
    """An AsyncOpenAI client for `config`; `options` go to the client (e.g. `http_client`).

    Base URL and key are always passed explicitly so the client never falls back to reading
    OPENAI_BASE_URL / OPENAI_API_KEY from the process environment by itself.
    """
    return openai.AsyncOpenAI(
        base_url=config.base_url or OPENAI_BASE_URL,
        api_key=config.api_key or _KEYLESS,
        timeout=config.timeout_s,
        max_retries=config.max_retries,
        **options,
    )


class OpenAICompatibleLLM:
    """The `LLM` interface over an OpenAI-compatible chat-completions endpoint."""

    def __init__(self, config: LLMConfig, *, client: openai.AsyncOpenAI | None = None) -> None:
        self.config = config
        self._client = client if client is not None else openai_client(config)
        self._instructor = instructor.from_openai(self._client, mode=_INSTRUCTOR_MODES[config.mode])

    @property
    def mode(self) -> str:
        return "openai"

    async def aclose(self) -> None:
        await self._client.close()

    def _limit(self, max_tokens: int | None) -> tuple[int | openai.Omit, int | openai.Omit]:
        """(max_tokens, max_completion_tokens) for a request: one is set, the other omitted."""
        limit = max_tokens or self.config.max_tokens
        if self.config.max_tokens_param == "max_completion_tokens":
            return openai.omit, limit
        return limit, openai.omit

    async def structured(
        self,
        role: str,
        messages: list[ChatMessage],
        schema: type[M],
        *,
        max_tokens: int | None = None,
    ) -> Structured[M]:
        model = self.config.model_for(role)
        # Usage of every attempt, copied as each response arrives: instructor reports only the
        # last completion, and a re-asked call is billed for all of them.
        attempts: list[Usage] = []
        hooks = Hooks()
        hooks.on("completion:response", lambda response: attempts.append(_usage(response)))
        # Only the configured limit field is sent: instructor passes kwargs through as given.
        limit: dict[str, Any] = {self.config.max_tokens_param: max_tokens or self.config.max_tokens}
        try:
            value, completion = await self._within_deadline(
                self.config.structured_deadline_s,
                self._instructor.create_with_completion(
                    messages=[_wire(message) for message in messages],
                    response_model=schema,
                    max_retries=self.config.max_retries,
                    hooks=hooks,
                    model=model,
                    **limit,
                ),
                model,
            )
        except InstructorRetryException as exc:
            raise self._failure(exc, model, attempts) from exc
        except IncompleteOutputException as exc:
            raise LLMOutputInvalid(
                f"{model} stopped at the output token limit before finishing its answer; "
                "raise BELIEFGRAPH_LLM_MAX_TOKENS",
                last_error="output truncated (finish_reason=length)",
                attempts=len(attempts),
                usage=sum(attempts, Usage()),
            ) from exc
        except openai.APIError as exc:
            raise _unavailable(exc, self._base_url, model) from exc
        served_by = getattr(completion, "model", None) or model
        return Structured(
            value=_plain(schema, value), usage=sum(attempts, Usage()), model=served_by
        )

    async def _within_deadline(self, seconds: float, call: Awaitable[T], model: str) -> T:
        try:
            async with asyncio.timeout(seconds):
                return await call
        except TimeoutError as exc:
            raise LLMUnavailable(
                f"{model} took longer than {seconds:g} s in all, its retries included "
                "(BELIEFGRAPH_LLM_TIMEOUT, BELIEFGRAPH_LLM_MAX_RETRIES)"
            ) from exc

    def _failure(
        self, exc: InstructorRetryException, model: str, attempts: list[Usage]
    ) -> LLMUnavailable | LLMOutputInvalid:
        cause = exc.__cause__
        if isinstance(cause, openai.APIError):
            return _unavailable(cause, self._base_url, model)
        failed = exc.failed_attempts or []
        last_error = str(failed[-1].exception) if failed else str(exc.args[0] if exc.args else exc)
        count = len(failed) or exc.n_attempts
        return LLMOutputInvalid(
            f"{model} gave no answer matching the schema in {count} attempt(s); the last "
            f"error was: {_shorten(last_error)}",
            last_error=last_error,
            attempts=count,
            usage=sum(attempts, Usage()),
        )

    @property
    def _base_url(self) -> str:
        return str(self._client.base_url)

    async def chat(
        self,
        role: str,
        messages: list[ChatMessage],
        *,
        tools: list[ToolSpec] | None = None,
        max_tokens: int | None = None,
    ) -> ChatTurn:
        model = self.config.model_for(role)
        tool_params: list[ChatCompletionToolParam] = [
            {
                "type": "function",
                "function": {
                    "name": spec.name,
                    "description": spec.description,
                    "parameters": spec.parameters,
                },
            }
            for spec in tools or []
        ]
        limit, completion_limit = self._limit(max_tokens)
        try:
            completion = await self._within_deadline(
                self.config.deadline_s,
                self._client.chat.completions.create(
                    model=model,
                    messages=[_wire(message) for message in messages],
                    tools=tool_params or openai.omit,
                    max_tokens=limit,
                    max_completion_tokens=completion_limit,
                ),
                model,
            )
        except openai.APIError as exc:
            raise _unavailable(exc, self._base_url, model) from exc
        if not isinstance(completion, ChatCompletion):  # a 200 whose body is not JSON
            raise LLMUnavailable(f"{model} answered with something other than a chat completion")
        return _turn(completion, model)

    async def stream(
        self, role: str, messages: list[ChatMessage], *, max_tokens: int | None = None
    ) -> AsyncIterator[str]:
        model = self.config.model_for(role)
        limit, completion_limit = self._limit(max_tokens)
        # The stream's start (its retries included) is bounded as a call is, then each event
        # by the timeout: an answer arriving byte by byte never completes an event in time,
        # while a slow model's long answer, event after event, is not cut off. (A timeout
        # around the whole generator would also cancel its consumer between deltas.)
        wait = self.config.timeout_s
        finished = False
        try:
            chunks = await asyncio.wait_for(
                self._client.chat.completions.create(
                    model=model,
                    messages=[_wire(message) for message in messages],
                    stream=True,
                    max_tokens=limit,
                    max_completion_tokens=completion_limit,
                ),
                self.config.deadline_s,
            )
            async with chunks:  # closes the connection when the consumer stops early
                pending = aiter(chunks)
                while True:
                    try:
                        async with asyncio.timeout(wait):
                            chunk = await anext(pending)
                    except StopAsyncIteration:
                        break
                    for choice in chunk.choices:
                        finished = finished or choice.finish_reason is not None
                        if choice.delta.content:
                            yield _SURROGATE.sub("\ufffd", choice.delta.content)
        except TimeoutError as exc:
            raise LLMUnavailable(
                f"{model} sent nothing of its answer for {wait:g} s (BELIEFGRAPH_LLM_TIMEOUT)"
            ) from exc
        except openai.APIError as exc:
            raise _unavailable(exc, self._base_url, model) from exc
        except TransportFailure as exc:
            raise LLMUnavailable(f"{model}'s answer was cut short: the connection failed") from exc
        if not finished:  # the stream ended without saying why: the connection was cut
            raise LLMUnavailable(f"{model}'s answer was cut short: it never said it was done")


# --- translation ------------------------------------------------------------------------------


def _wire(message: ChatMessage) -> ChatCompletionMessageParam:
    """Our message TypedDicts as the openai package types them (same JSON on the wire)."""
    if message["role"] == "system":
        return {"role": "system", "content": message["content"]}
    if message["role"] == "user":
        return {"role": "user", "content": message["content"]}
    if message["role"] == "tool":
        return {
            "role": "tool",
            "tool_call_id": message["tool_call_id"],
            "content": message["content"],
        }
    calls: list[ChatCompletionMessageFunctionToolCallParam] = [
        {
            "id": call["id"],
            "type": "function",
            "function": {
                "name": call["function"]["name"],
                "arguments": call["function"]["arguments"],
            },
        }
        for call in message.get("tool_calls", [])
    ]
    if calls:
        return {"role": "assistant", "content": message["content"], "tool_calls": calls}
    return {"role": "assistant", "content": message["content"]}


def _plain(schema: type[M], value: M) -> M:
    """`value` as an instance of `schema` itself.

    instructor returns an instance of a subclass it generates, carrying the raw completion;
    callers get the schema's own class (so equality and `type()` behave) with the already
    validated field values, and the response is not kept alive.
    """
    if type(value) is schema:
        return value
    fields = {name: getattr(value, name) for name in schema.model_fields}
    return schema.model_construct(_fields_set=set(value.model_fields_set), **fields)


def _usage(response: Any) -> Usage:
    usage = getattr(response, "usage", None)
    if usage is None:  # some local servers omit it
        return Usage()
    return Usage(
        input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
    )


def _turn(completion: ChatCompletion, model: str) -> ChatTurn:
    served_by = completion.model or model
    if not completion.choices:
        raise LLMOutputInvalid(
            f"{served_by} returned no choices", last_error="empty choices", attempts=1
        )
    message = completion.choices[0].message
    calls: list[ToolCall] = []
    for call in message.tool_calls or []:
        if call.type != "function":
            continue  # custom (free-text) tools are never offered, so never expected
        arguments, error = parse_tool_arguments(call.function.arguments)
        calls.append(ToolCall(call.id, call.function.name, arguments, error))
    content = _SURROGATE.sub("\ufffd", message.content) if message.content else message.content
    return ChatTurn(content=content, tool_calls=calls, usage=_usage(completion), model=served_by)


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_ERROR_CHARS else text[: _MAX_ERROR_CHARS - 1] + "\u2026"


def _server_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return _shorten(cast(str, inner["message"]))
    return _shorten(exc.message)


def _unavailable(exc: openai.APIError, base_url: str, model: str) -> LLMUnavailable:
    """The failure as callers see it: what went wrong and which setting to check. The endpoint's
    address and whatever its error body said go to the log only: an answer or a job's error
    reaches every client of the workspace, and a provider's error text can carry anything."""
    detail = _server_message(exc) if isinstance(exc, openai.APIStatusError) else str(exc)
    log.warning("LLM call to %s for %s failed: %s: %s", base_url, model, type(exc).__name__, detail)
    if isinstance(exc, openai.APITimeoutError):
        return LLMUnavailable("the LLM endpoint timed out; raise BELIEFGRAPH_LLM_TIMEOUT")
    if isinstance(exc, openai.APIConnectionError):
        return LLMUnavailable("cannot reach the LLM endpoint; check BELIEFGRAPH_LLM_BASE_URL")
    if not isinstance(exc, openai.APIStatusError):
        return LLMUnavailable(
            "the LLM endpoint sent an unusable response (the server log says more)"
        )
    status = exc.status_code
    if status in (401, 403):
        return LLMUnavailable(
            f"the LLM endpoint rejected the API key ({status}); check BELIEFGRAPH_LLM_API_KEY",
            retryable=False,
            status=status,
        )
    if status == 404:
        return LLMUnavailable(
            f"model {model!r} or the chat-completions route was not found at the LLM endpoint "
            "(404); check BELIEFGRAPH_LLM_MODEL and BELIEFGRAPH_LLM_BASE_URL",
            retryable=False,
            status=status,
        )
    retryable = status in (408, 409, 429) or status >= 500
    # A 400 on a structured call is most often a server without JSON-schema support.
    hint = "" if retryable else "; without JSON-schema support, set BELIEFGRAPH_LLM_MODE=tools"
    return LLMUnavailable(
        f"the LLM endpoint answered {status} (the server log has its message){hint}",
        retryable=retryable,
        status=status,
    )
