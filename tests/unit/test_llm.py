"""The LLM interface's own helpers: usage sums, tool-call messages, error codes."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from graph.errors import ErrorCode, Unavailable
from reasoners.llm.interface import (
    ROLES,
    ChatTurn,
    LLMOutputInvalid,
    LLMUnavailable,
    ToolCall,
    ToolSpec,
    Usage,
    assistant,
    assistant_turn,
    parse_tool_arguments,
    tool_result,
)

pytestmark = pytest.mark.unit


def test_usage_adds_up() -> None:
    total = sum([Usage(3, 1), Usage(10, 2)], Usage())
    assert total == Usage(13, 3) and total.total_tokens == 16


@pytest.mark.parametrize(
    ("raw", "arguments", "failed"),
    [
        ('{"query": "dog"}', {"query": "dog"}, False),
        ("", {}, False),
        (None, {}, False),
        ("{oops", {}, True),
        ("[1, 2]", {}, True),
    ],
)
def test_tool_arguments_are_parsed_or_explained(
    raw: str | None, arguments: dict[str, str], failed: bool
) -> None:
    parsed, error = parse_tool_arguments(raw)
    assert parsed == arguments
    assert (error is not None) is failed


def test_a_tool_turn_becomes_an_openai_assistant_message() -> None:
    turn = ChatTurn(None, [ToolCall("c1", "search", {"query": "dog"})])
    assert assistant_turn(turn) == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "search", "arguments": '{"query": "dog"}'},
            }
        ],
    }
    assert assistant("plain") == {"role": "assistant", "content": "plain"}
    assert tool_result("c1", "found") == {"role": "tool", "tool_call_id": "c1", "content": "found"}


def test_tool_spec_from_a_model_uses_its_json_schema() -> None:
    class Search(BaseModel):
        query: str

    spec = ToolSpec.from_model("search", "Search observations.", Search)
    assert spec.parameters["required"] == ["query"]


def test_errors_carry_the_codes_the_api_maps() -> None:
    down = LLMUnavailable("down", retryable=False)
    assert isinstance(down, Unavailable) and down.code is ErrorCode.UNAVAILABLE
    assert down.retryable is False and down.details["retryable"] is False
    invalid = LLMOutputInvalid("bad", last_error="legs missing", attempts=3)
    assert invalid.code is ErrorCode.UNAVAILABLE and invalid.usage == Usage()


def test_roles_cover_the_pipeline_and_every_dialectic_level() -> None:
    assert {"deriver", "summarizer", "dialectic-low", "dialectic-high"} <= set(ROLES)


@pytest.mark.parametrize(
    ("usage", "weights", "expected"),
    [
        (Usage(10, 7), [1, 1, 1], [(4, 3), (3, 2), (3, 2)]),
        (Usage(100, 1), [3, 1], [(75, 1), (25, 0)]),
        (Usage(5, 5), [1, 2, 2], [(1, 1), (2, 2), (2, 2)]),
        (Usage(2, 0), [1, 1, 1], [(1, 0), (1, 0), (0, 0)]),
        (Usage(0, 0), [4], [(0, 0)]),
    ],
)
def test_a_usage_splits_into_parts_that_add_up_to_it(
    usage: Usage, weights: list[int], expected: list[tuple[int, int]]
) -> None:
    """A run's tokens shared over its jobs: none lost to rounding (a dream of three jobs that
    billed 10 tokens charged 9)."""
    parts = usage.split(weights)
    assert [(p.input_tokens, p.output_tokens) for p in parts] == expected
    assert sum(parts, Usage()) == usage
