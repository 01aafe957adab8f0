"""The scripted fake behaves like the real provider where tests depend on it."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from reasoners.llm.interface import (
    LLM,
    ChatMessage,
    ChatTurn,
    LLMOutputInvalid,
    LLMUnavailable,
    ToolCall,
    Usage,
    user,
)
from tests.fakes.llm import ScriptedLLM, ScriptExhausted, word_deltas

pytestmark = pytest.mark.unit


class Pet(BaseModel):
    name: str
    legs: int


ASK: list[ChatMessage] = [user("Name a dog please")]


async def test_replies_are_validated_against_the_schema_in_order() -> None:
    llm: LLM = ScriptedLLM(
        {
            "deriver": [
                Pet(name="Rex", legs=4),
                {"name": "Tom", "legs": 3},
                '{"name": "Kit", "legs": 2}',
            ]
        }
    )
    names = [(await llm.structured("deriver", ASK, Pet)).value.name for _ in range(3)]
    assert names == ["Rex", "Tom", "Kit"]
    assert llm.mode == "scripted"


async def test_usage_counts_words_and_calls_are_recorded() -> None:
    llm = ScriptedLLM({"deriver": [{"name": "Rex", "legs": 4}]}, model="fake-1")
    result = await llm.structured("deriver", ASK, Pet, max_tokens=10)
    assert result.usage == Usage(input_tokens=4, output_tokens=4)  # '{"name": "Rex", "legs": 4}'
    assert result.model == "fake-1"
    (call,) = llm.calls
    assert (call.kind, call.role, call.schema, call.max_tokens, call.attempt) == (
        "structured", "deriver", Pet, 10, 1,
    )  # fmt: skip
    assert call.messages == ASK


async def test_invalid_output_is_re_asked_then_gives_up_after_max_retries() -> None:
    llm = ScriptedLLM({"deriver": ["not json", {"name": "Rex"}, {"name": "Rex", "legs": 4}]})
    assert (await llm.structured("deriver", ASK, Pet)).value.legs == 4
    assert [call.attempt for call in llm.calls] == [1, 2, 3]
    reask = llm.calls[1].messages
    assert reask[-2] == {"role": "assistant", "content": "not json"}
    assert "Invalid JSON" in str(reask[-1]["content"])

    failing = ScriptedLLM({"deriver": ["a", "b", "c", "never used"]}, max_retries=2)
    with pytest.raises(LLMOutputInvalid) as caught:
        await failing.structured("deriver", ASK, Pet)
    assert caught.value.attempts == 3 and "Invalid JSON" in caught.value.last_error
    assert failing.remaining("deriver") == 1


async def test_exceptions_are_raised_and_an_empty_script_says_so() -> None:
    llm = ScriptedLLM({"deriver": [LLMUnavailable("down")]})
    with pytest.raises(LLMUnavailable, match="down"):
        await llm.structured("deriver", ASK, Pet)
    with pytest.raises(ScriptExhausted, match="'deriver'"):
        await llm.structured("deriver", ASK, Pet)
    with pytest.raises(ScriptExhausted, match="'summarizer'"):
        await llm.structured("summarizer", ASK, Pet)


async def test_callables_answer_from_the_prompt() -> None:
    def echo(messages: list[ChatMessage], schema: type[BaseModel] | None) -> dict[str, Any]:
        assert schema is Pet
        return {"name": str(messages[-1]["content"]).split()[-1], "legs": 4}

    llm = ScriptedLLM({"deriver": echo}).add("dreamer", echo)
    for _ in range(3):  # a role mapped to a callable never runs out
        assert (await llm.structured("deriver", ASK, Pet)).value.name == "please"
    assert (await llm.structured("dreamer", ASK, Pet)).value.name == "please"
    assert llm.remaining("dreamer") == 0


async def test_a_model_of_the_wrong_type_is_a_script_error() -> None:
    class Cat(BaseModel):
        name: str

    llm = ScriptedLLM({"deriver": [Cat(name="Tom")]})
    with pytest.raises(TypeError, match="Cat"):
        await llm.structured("deriver", ASK, Pet)


async def test_chat_turns_and_tool_calls() -> None:
    search = ToolCall("c1", "search", {"query": "dog"})
    llm = ScriptedLLM(
        {"dialectic-low": [[search], "Alice has a dog.", ChatTurn("done", usage=Usage(1, 1))]}
    )
    first = await llm.chat("dialectic-low", ASK)
    assert first.content is None and first.tool_calls == [search]
    assert first.usage == Usage(4, 2) and first.model == "scripted"  # {"query": "dog"}
    second = await llm.chat("dialectic-low", ASK)
    assert second.content == "Alice has a dog." and second.tool_calls == []
    assert (await llm.chat("dialectic-low", ASK)).usage == Usage(1, 1)
    assert [call.kind for call in llm.calls] == ["chat"] * 3


async def test_stream_splits_text_into_deltas_and_can_fail_midway() -> None:
    llm = ScriptedLLM({"dialectic-low": ["Alice  has a\ndog.", ["Ali", LLMUnavailable("cut")]]})
    deltas = [delta async for delta in llm.stream("dialectic-low", ASK)]
    assert deltas == ["Alice  ", "has ", "a\n", "dog."]
    received: list[str] = []
    with pytest.raises(LLMUnavailable, match="cut"):
        async for delta in llm.stream("dialectic-low", ASK):
            received.append(delta)
    assert received == ["Ali"]


def test_word_deltas_join_back_exactly() -> None:
    for text in ["", " lead", "trail ", "a  b\n\nc", "one"]:
        assert "".join(word_deltas(text)) == text
