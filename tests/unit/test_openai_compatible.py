"""OpenAICompatibleLLM against a fake HTTP endpoint serving canned chat-completion JSON."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from pydantic import BaseModel, Field

from graph.errors import ErrorCode, InvalidInput
from reasoners.llm.config import LLM_SETTINGS, LLMConfig, llm_config_from_env, role_env
from reasoners.llm.interface import (
    ROLES,
    ChatMessage,
    LLMOutputInvalid,
    LLMUnavailable,
    ToolSpec,
    assistant_turn,
    parse_tool_arguments,
    system,
    tool_result,
    user,
)
from reasoners.llm.openai_compatible import OpenAICompatibleLLM, openai_client

try:  # openai >= 3 sends through httpx2 (the httpx successor), older releases through httpx
    import httpx2 as http
except ImportError:  # pragma: no cover
    import httpx as http  # type: ignore[no-redef]

pytestmark = pytest.mark.unit

BASE_URL = "http://llm.test/v1"
Answer = Callable[[dict[str, Any]], http.Response]


class Pet(BaseModel):
    name: str
    legs: int = Field(ge=0)


def completion(
    content: str | None = None,
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    usage: tuple[int, int] = (10, 5),
    finish: str = "stop",
) -> Answer:
    body = completion_body(content, tool_calls=tool_calls, usage=usage, finish=finish)
    return lambda request: http.Response(200, json=body)


def completion_body(
    content: str | None,
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    usage: tuple[int, int] = (10, 5),
    finish: str = "stop",
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "cmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "served-model",
        "choices": [{"index": 0, "finish_reason": finish, "message": message}],
        "usage": {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": sum(usage),
        },
    }


def status(code: int, message: str = "boom", **headers: str) -> Answer:
    return lambda request: http.Response(
        code, json={"error": {"message": message}}, headers=headers
    )


def refuse_connection(request: dict[str, Any]) -> http.Response:
    raise http.ConnectError("connection refused")


def chunk(delta: str, finish: str | None = None) -> str:
    event = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "served-model",
        "choices": [{"index": 0, "delta": {"content": delta}, "finish_reason": finish}],
    }
    return f"data: {json.dumps(event)}\n\n"


def sse(*deltas: str, finish: str | None = "stop", done: bool = True) -> Answer:
    """An answer streamed as OpenAI streams it: a delta per event, then an empty delta with the
    finish reason, then [DONE]."""
    events = [chunk(delta) for delta in deltas]
    events += [chunk("", finish)] if finish else []
    payload = "".join(events) + ("data: [DONE]\n\n" if done else "")
    return lambda request: http.Response(
        200, content=payload.encode(), headers={"content-type": "text/event-stream"}
    )


class Endpoint:
    """Answers requests in order and keeps their JSON bodies."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: http.Request) -> http.Response:
        body = json.loads(request.content)
        self.requests.append(body)
        assert self.answers, f"unexpected extra request: {body}"
        return self.answers.pop(0)(body)


@pytest.fixture
async def make() -> AsyncIterator[Callable[..., OpenAICompatibleLLM]]:
    made: list[OpenAICompatibleLLM] = []

    def factory(endpoint: Endpoint, **config: Any) -> OpenAICompatibleLLM:
        settings = LLMConfig(**{"base_url": BASE_URL, "api_key": "k", "max_retries": 1, **config})
        transport = http.MockTransport(endpoint)
        client = openai_client(settings, http_client=http.AsyncClient(transport=transport))
        llm = OpenAICompatibleLLM(settings, client=client)
        made.append(llm)
        return llm

    yield factory
    for llm in made:
        await llm.aclose()


MESSAGES: list[ChatMessage] = [system("You name pets."), user("Name a dog.")]


# --- structured -------------------------------------------------------------------------------


async def test_structured_answer_uses_role_model_schema_and_reports_usage(
    make: Callable[..., OpenAICompatibleLLM],
) -> None:
    endpoint = Endpoint(completion('{"name": "Rex", "legs": 4}', usage=(12, 7)))
    llm = make(endpoint, models={"deriver": "small-model"}, max_tokens=300)

    result = await llm.structured("deriver", MESSAGES, Pet)

    assert result.value == Pet(name="Rex", legs=4)
    assert (result.usage.input_tokens, result.usage.output_tokens) == (12, 7)
    assert result.model == "served-model"
    assert llm.mode == "openai"
    (request,) = endpoint.requests
    assert request["model"] == "small-model"
    assert request["max_tokens"] == 300
    assert request["messages"][:2] == [dict(m) for m in MESSAGES]
    assert request["response_format"]["type"] == "json_schema"
    assert request["response_format"]["json_schema"]["schema"]["required"] == ["name", "legs"]


async def test_roles_without_a_model_use_the_default(
    make: Callable[..., OpenAICompatibleLLM],
) -> None:
    endpoint = Endpoint(completion('{"name": "Rex", "legs": 4}'))
    llm = make(endpoint, model="big-model", models={"deriver": "small-model"})
    await llm.structured("summarizer", MESSAGES, Pet, max_tokens=50)
    assert endpoint.requests[0]["model"] == "big-model"
    assert endpoint.requests[0]["max_tokens"] == 50


async def test_invalid_json_is_re_asked_with_the_error_and_usage_adds_up(
    make: Callable[..., OpenAICompatibleLLM],
) -> None:
    endpoint = Endpoint(
        completion("Sure! Rex, four legs.", usage=(10, 5)),
        completion('{"name": "Rex", "legs": 4}', usage=(30, 8)),
    )
    llm = make(endpoint, max_retries=1)

    result = await llm.structured("deriver", MESSAGES, Pet)

    assert result.value.name == "Rex"
    assert (result.usage.input_tokens, result.usage.output_tokens) == (40, 13)
    reask = endpoint.requests[1]["messages"]
    assert reask[-2] == {"role": "assistant", "content": "Sure! Rex, four legs."}
    assert reask[-1]["role"] == "user" and "Invalid JSON" in reask[-1]["content"]


async def test_invalid_after_all_retries_raises_output_invalid_with_the_last_error(
    make: Callable[..., OpenAICompatibleLLM],
) -> None:
    endpoint = Endpoint(completion('{"name": "Rex"}'), completion('{"name": "Rex", "legs": -1}'))
    llm = make(endpoint, max_retries=1)

    with pytest.raises(LLMOutputInvalid) as caught:
        await llm.structured("deriver", MESSAGES, Pet)

    error = caught.value
    assert error.code is ErrorCode.UNAVAILABLE
    assert error.attempts == 2
    assert "legs" in error.last_error and "greater than or equal to 0" in error.last_error
    assert error.usage.input_tokens == 20
    assert len(endpoint.requests) == 2


async def test_truncated_answer_says_to_raise_max_tokens(
    make: Callable[..., OpenAICompatibleLLM],
) -> None:
    llm = make(Endpoint(completion('{"name": "Re', finish="length")))
    with pytest.raises(LLMOutputInvalid, match="BELIEFGRAPH_LLM_MAX_TOKENS"):
        await llm.structured("deriver", MESSAGES, Pet)


@pytest.mark.parametrize(
    ("answer", "retryable", "hint"),
    [
        (status(500), True, "answered 500"),
        (status(429, "slow down"), True, "answered 429"),
        (refuse_connection, True, "cannot reach"),
        (status(401, "bad key"), False, "BELIEFGRAPH_LLM_API_KEY"),
        (status(404, "no such model"), False, "not found"),
        (status(400, "response_format unsupported"), False, "BELIEFGRAPH_LLM_MODE"),
    ],
    ids=["500", "429", "connection", "401", "404", "400"],
)
async def test_transport_failures_raise_unavailable(
    make: Callable[..., OpenAICompatibleLLM], answer: Answer, retryable: bool, hint: str
) -> None:
    llm = make(Endpoint(answer), max_retries=0)
    with pytest.raises(LLMUnavailable) as caught:
        await llm.structured("deriver", MESSAGES, Pet)
    assert caught.value.code is ErrorCode.UNAVAILABLE
    assert caught.value.retryable is retryable
    assert hint in caught.value.message


async def test_the_endpoint_and_its_error_text_reach_the_log_not_the_caller(
    make: Callable[..., OpenAICompatibleLLM], caplog: pytest.LogCaptureFixture
) -> None:
    """Answers and job errors, which every client of a workspace reads, carried the endpoint's
    address and the provider's error body (a traceback, a key)."""
    llm = make(Endpoint(status(500, "Traceback ... secret=sk-LEAK")), max_retries=0)
    with pytest.raises(LLMUnavailable) as caught:
        await llm.chat("dialectic-low", [user("Hi")])
    assert "sk-LEAK" not in caught.value.message and "llm.test" not in caught.value.message
    assert "sk-LEAK" in caplog.text and "llm.test" in caplog.text


async def test_a_server_error_is_retried_by_the_client(
    make: Callable[..., OpenAICompatibleLLM],
) -> None:
    # retry-after-ms keeps the client's backoff to a millisecond.
    endpoint = Endpoint(
        status(503, **{"retry-after-ms": "1"}), completion('{"name": "Rex", "legs": 4}')
    )
    llm = make(endpoint, max_retries=1)
    assert (await llm.structured("deriver", MESSAGES, Pet)).value.legs == 4
    assert len(endpoint.requests) == 2


async def test_tools_mode_reads_the_answer_from_a_forced_function_call(
    make: Callable[..., OpenAICompatibleLLM],
) -> None:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "Pet", "arguments": '{"name": "Tom", "legs": 4}'},
    }
    endpoint = Endpoint(completion(None, tool_calls=[call], finish="tool_calls"))
    llm = make(endpoint, mode="tools")

    result = await llm.structured("deriver", MESSAGES, Pet)

    assert result.value == Pet(name="Tom", legs=4)
    request = endpoint.requests[0]
    assert request["tools"][0]["function"]["name"] == "Pet"
    assert request["tool_choice"]["function"]["name"] == "Pet"
    assert "response_format" not in request


async def test_json_object_mode_and_max_completion_tokens(
    make: Callable[..., OpenAICompatibleLLM],
) -> None:
    endpoint = Endpoint(completion('{"name": "Rex", "legs": 4}'))
    llm = make(endpoint, mode="json_object", max_tokens_param="max_completion_tokens")
    await llm.structured("deriver", MESSAGES, Pet)
    request = endpoint.requests[0]
    assert request["response_format"] == {"type": "json_object"}
    assert request["max_completion_tokens"] == 2048
    assert "max_tokens" not in request


async def test_md_json_mode_accepts_json_in_a_markdown_block(
    make: Callable[..., OpenAICompatibleLLM],
) -> None:
    endpoint = Endpoint(completion('Here you go:\n```json\n{"name": "Rex", "legs": 4}\n```'))
    llm = make(endpoint, mode="md_json")
    assert (await llm.structured("deriver", MESSAGES, Pet)).value == Pet(name="Rex", legs=4)
    assert "response_format" not in endpoint.requests[0]


# --- chat and stream --------------------------------------------------------------------------


SEARCH = ToolSpec(
    "search",
    "Search observations.",
    {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
)


async def test_chat_turn_with_tool_calls_round_trips_into_the_next_request(
    make: Callable[..., OpenAICompatibleLLM],
) -> None:
    calls = [
        {
            "id": "c1",
            "type": "function",
            "function": {"name": "search", "arguments": '{"query": "dog"}'},
        },
        {"id": "c2", "type": "function", "function": {"name": "search", "arguments": "{oops"}},
    ]
    endpoint = Endpoint(
        completion(None, tool_calls=calls, finish="tool_calls", usage=(20, 9)),
        completion("Alice has a dog."),
    )
    llm = make(endpoint, models={"dialectic-low": "chat-model"})
    history: list[ChatMessage] = [system("Answer with tools."), user("Does Alice have pets?")]

    turn = await llm.chat("dialectic-low", history, tools=[SEARCH])

    assert turn.content is None
    assert [(c.id, c.name, c.arguments) for c in turn.tool_calls] == [
        ("c1", "search", {"query": "dog"}),
        ("c2", "search", {}),
    ]
    assert turn.tool_calls[0].arguments_error is None
    assert turn.tool_calls[1].arguments_error is not None
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (20, 9)
    first = endpoint.requests[0]
    assert first["model"] == "chat-model"
    assert first["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "search",
                "description": "Search observations.",
                "parameters": SEARCH.parameters,
            },
        }
    ]

    history += [assistant_turn(turn), tool_result("c1", "alice: I have a dog")]
    final = await llm.chat("dialectic-low", history, tools=[SEARCH])

    assert final.content == "Alice has a dog." and final.tool_calls == []
    sent = endpoint.requests[1]["messages"]
    assert sent[2]["tool_calls"][0] == {
        "id": "c1",
        "type": "function",
        "function": {"name": "search", "arguments": '{"query": "dog"}'},
    }
    assert sent[3] == {"role": "tool", "tool_call_id": "c1", "content": "alice: I have a dog"}


async def test_chat_without_tools_sends_none(make: Callable[..., OpenAICompatibleLLM]) -> None:
    endpoint = Endpoint(completion("Hello."))
    turn = await make(endpoint).chat("dialectic-low", [user("Hi")])
    assert turn.content == "Hello."
    assert "tools" not in endpoint.requests[0]


async def test_stream_yields_text_deltas(make: Callable[..., OpenAICompatibleLLM]) -> None:
    endpoint = Endpoint(sse("Alice ", "has ", "", "a dog."))
    llm = make(endpoint)
    deltas = [delta async for delta in llm.stream("dialectic-low", [user("Pets?")])]
    assert deltas == ["Alice ", "has ", "a dog."]
    assert endpoint.requests[0]["stream"] is True


async def test_stream_failure_raises_unavailable(make: Callable[..., OpenAICompatibleLLM]) -> None:
    llm = make(Endpoint(status(502)), max_retries=0)
    with pytest.raises(LLMUnavailable, match="502"):
        async for _ in llm.stream("dialectic-low", [user("Pets?")]):
            pass


class CutStream(http.AsyncByteStream):
    """An event stream whose connection fails after its first delta."""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield chunk("partial ").encode()
        raise http.RemoteProtocolError("peer closed connection without sending complete message")


class Trickle(http.AsyncByteStream):
    """A body sent a byte at a time, each well within the timeout, never finishing."""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:
            await asyncio.sleep(0.05)
            yield b" "


async def test_a_stream_cut_short_is_unavailable_not_a_complete_answer(
    make: Callable[..., OpenAICompatibleLLM],
) -> None:
    """A stream whose connection failed mid-answer raised a transport error the callers did not
    know (INTERNAL); one that just ended, with no finish reason, read as a complete answer."""
    cut = Endpoint(
        lambda request: http.Response(
            200, stream=CutStream(), headers={"content-type": "text/event-stream"}
        )
    )
    for endpoint in (cut, Endpoint(sse("partial ", finish=None, done=False))):
        seen: list[str] = []
        with pytest.raises(LLMUnavailable, match="cut short"):
            async for delta in make(endpoint, max_retries=0).stream("dialectic-low", [user("?")]):
                seen.append(delta)
        assert seen == ["partial "]


async def test_an_endpoint_that_trickles_is_cut_off_at_the_deadline(
    make: Callable[..., OpenAICompatibleLLM],
) -> None:
    """The timeout bounds each wait for bytes, so a byte every 50 ms held a call for ever (a
    worker slot, a chat request): a call's deadline is the timeout x (retries + 1), and a
    stream's each event must arrive within the timeout."""

    def trickle(request: http.Request) -> http.Response:
        return http.Response(200, stream=Trickle(), headers={"content-type": "application/json"})

    llm = make(Endpoint(trickle), timeout_s=0.3, max_retries=0)
    started = asyncio.get_running_loop().time()
    with pytest.raises(LLMUnavailable, match=r"took longer than 0\.3 s"):
        await llm.chat("dialectic-low", [user("Hi")])
    with pytest.raises(LLMUnavailable, match="took longer"):
        await make(Endpoint(trickle), timeout_s=0.3, max_retries=0).structured(
            "deriver", MESSAGES, Pet
        )
    streamed = make(Endpoint(trickle), timeout_s=0.3, max_retries=0)
    with pytest.raises(LLMUnavailable, match=r"sent nothing of its answer for 0\.3 s"):
        async for _ in streamed.stream("dialectic-low", [user("Hi")]):
            pass
    assert asyncio.get_running_loop().time() - started < 3


async def test_answers_that_are_not_completions_or_not_text_are_handled(
    make: Callable[..., OpenAICompatibleLLM],
) -> None:
    """A 200 whose body was HTML failed with AttributeError (INTERNAL); a lone surrogate in an
    answer failed every response that held it. (Structured answers cannot carry one: their JSON
    is parsed strictly, and such an answer is re-asked.)"""
    html = Endpoint(
        lambda request: http.Response(
            200, content=b"<html>gateway</html>", headers={"content-type": "text/html"}
        )
    )
    with pytest.raises(LLMUnavailable, match="other than a chat completion"):
        await make(html, max_retries=0).chat("dialectic-low", [user("Hi")])
    escaped = Endpoint(
        lambda request: http.Response(
            200,
            # json.dumps writes the lone surrogate as the \ud800 escape an endpoint would send
            content=json.dumps(completion_body("bad \ud800 text")).encode(),
            headers={"content-type": "application/json"},
        )
    )
    turn = await make(escaped).chat("dialectic-low", [user("Hi")])
    assert turn.content == "bad \ufffd text"
    turn.content.encode("utf-8")
    deltas = [d async for d in make(Endpoint(sse("a\ud800"))).stream("dialectic-low", MESSAGES)]
    assert deltas == ["a\ufffd"]


async def test_a_slow_stream_that_keeps_sending_events_is_not_cut_off(
    make: Callable[..., OpenAICompatibleLLM],
) -> None:
    """A total deadline cut off a slow model's long answer mid-stream."""

    class Slow(http.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            for i in range(8):
                await asyncio.sleep(0.1)  # 0.8 s in all, past the whole-call deadline of 0.3
                yield chunk(f"w{i} ").encode()
            yield chunk("", "stop").encode() + b"data: [DONE]\n\n"

    slow = Endpoint(
        lambda request: http.Response(
            200, stream=Slow(), headers={"content-type": "text/event-stream"}
        )
    )
    llm = make(slow, timeout_s=0.3, max_retries=0)
    deltas = [d async for d in llm.stream("dialectic-low", [user("Hi")])]
    assert len(deltas) == 8


def test_tool_arguments_with_a_lone_surrogate_are_an_argument_error() -> None:
    """json.loads turns "\\ud800" into a lone surrogate, which failed the tool and the turn."""
    arguments, error = parse_tool_arguments('{"query": "a\\ud800"}')
    assert arguments == {} and error is not None and "lone surrogate" in error
    assert parse_tool_arguments('{"query": "caf\\u00e9"}') == ({"query": "café"}, None)


# --- configuration ----------------------------------------------------------------------------


def test_no_endpoint_and_no_key_means_extractive_mode() -> None:
    assert llm_config_from_env({}) is None
    assert (
        llm_config_from_env({"BELIEFGRAPH_LLM_MODEL": "x", "BELIEFGRAPH_LLM_API_KEY": ""}) is None
    )


def test_config_from_env_reads_every_setting() -> None:
    config = llm_config_from_env(
        {
            "BELIEFGRAPH_LLM_BASE_URL": "http://localhost:11434/v1",
            "BELIEFGRAPH_LLM_MODEL": "llama3.1",
            "BELIEFGRAPH_LLM_MODEL_DERIVER": "qwen2.5:7b",
            "BELIEFGRAPH_LLM_MODEL_DIALECTIC_HIGH": "llama3.1:70b",
            "BELIEFGRAPH_LLM_MODEL_SUMMARIZER": "",
            "BELIEFGRAPH_LLM_TIMEOUT": "5.5",
            "BELIEFGRAPH_LLM_MAX_RETRIES": "0",
            "BELIEFGRAPH_LLM_MODE": "tools",
            "BELIEFGRAPH_LLM_MAX_TOKENS": "512",
            "BELIEFGRAPH_LLM_MAX_TOKENS_PARAM": "max_completion_tokens",
        }
    )
    assert config == LLMConfig(
        base_url="http://localhost:11434/v1",
        api_key="",
        model="llama3.1",
        models={"deriver": "qwen2.5:7b", "dialectic-high": "llama3.1:70b"},
        timeout_s=5.5,
        max_retries=0,
        mode="tools",
        max_tokens=512,
        max_tokens_param="max_completion_tokens",
    )
    assert config.model_for("deriver") == "qwen2.5:7b"
    assert config.model_for("summarizer") == "llama3.1"


def test_openai_api_key_is_the_fallback_and_defaults_apply() -> None:
    config = llm_config_from_env({"OPENAI_API_KEY": "sk-test"})
    assert config == LLMConfig(api_key="sk-test")
    assert (config.timeout_s, config.max_retries, config.mode, config.max_tokens) == (
        60.0,
        2,
        "json_schema",
        2048,
    )
    assert "sk-test" not in repr(config)
    with_own = llm_config_from_env({"OPENAI_API_KEY": "a", "BELIEFGRAPH_LLM_API_KEY": "b"})
    assert with_own is not None and with_own.api_key == "b"


@pytest.mark.parametrize(
    ("name", "value", "complaint"),
    [
        ("BELIEFGRAPH_LLM_TIMEOUT", "soon", "not a valid float"),
        ("BELIEFGRAPH_LLM_MAX_RETRIES", "-1", "max_retries"),
        ("BELIEFGRAPH_LLM_MODE", "xml", "json_schema, tools, json_object, md_json"),
        ("BELIEFGRAPH_LLM_MODEL_DERIVR", "m", "names no role"),
    ],
)
def test_bad_settings_are_refused_with_a_hint(name: str, value: str, complaint: str) -> None:
    with pytest.raises(InvalidInput, match=complaint):
        llm_config_from_env({"OPENAI_API_KEY": "k", name: value})


def test_every_setting_is_listed_once_with_a_description() -> None:
    names = [name for name, _, _ in LLM_SETTINGS]
    assert len(names) == len(set(names))
    assert {role_env(role) for role in ROLES} <= set(names)
    assert role_env("dialectic-low") == "BELIEFGRAPH_LLM_MODEL_DIALECTIC_LOW"
    assert all(description for _, _, description in LLM_SETTINGS)
    defaults = {name: default for name, default, _ in LLM_SETTINGS}
    config = LLMConfig()
    assert defaults["BELIEFGRAPH_LLM_MODEL"] == config.model
    assert float(defaults["BELIEFGRAPH_LLM_TIMEOUT"]) == config.timeout_s
    assert int(defaults["BELIEFGRAPH_LLM_MAX_RETRIES"]) == config.max_retries
    assert defaults["BELIEFGRAPH_LLM_MODE"] == config.mode
    assert int(defaults["BELIEFGRAPH_LLM_MAX_TOKENS"]) == config.max_tokens
    assert defaults["BELIEFGRAPH_LLM_MAX_TOKENS_PARAM"] == config.max_tokens_param


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("BELIEFGRAPH_LLM_TIMEOUT", "nan"),
        ("BELIEFGRAPH_LLM_TIMEOUT", "inf"),
        ("BELIEFGRAPH_LLM_TIMEOUT", "1e300"),
        ("BELIEFGRAPH_LLM_MAX_RETRIES", "1000000000000"),
        ("BELIEFGRAPH_LLM_MAX_TOKENS", "1000000000000"),
    ],
)
def test_llm_numbers_are_finite_and_bounded_with_or_without_an_endpoint(
    name: str, value: str
) -> None:
    """A timeout of inf or 1e300 and 10^12 retries were accepted."""
    for endpoint in ({}, {"BELIEFGRAPH_LLM_BASE_URL": "http://127.0.0.1:9/v1"}):
        with pytest.raises(InvalidInput, match=name):
            llm_config_from_env({**endpoint, name: value})
