"""The configuration keys Honcho clients read back are held to their types."""

from __future__ import annotations

from typing import Any

import pytest

from graph.configuration import ConfigKind, check_configuration, readable
from graph.errors import InvalidInput

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("kind", "configuration"),
    [
        ("workspace", {"reasoning": {"enabled": False, "custom_instructions": "be brief"}}),
        ("workspace", {"summary": {"messages_per_short_summary": 20}, "extraction_context": "x"}),
        ("workspace", {"my_app": {"anything": [1, "two"]}, "dream": None}),
        ("session", {"peer_card": {"use": True, "create": None}, "custom_instructions": None}),
        ("peer", {"observe_me": False, "theme": "dark"}),
        ("message", {"reasoning": {"enabled": True}}),
    ],
)
def test_what_clients_can_read_is_stored(kind: ConfigKind, configuration: dict[str, Any]) -> None:
    check_configuration(kind, configuration)
    assert readable(kind, configuration) == configuration


@pytest.mark.parametrize(
    ("kind", "configuration", "words"),
    [
        ("workspace", {"reasoning": {"enabled": "sometimes"}}, "reasoning.enabled must be true"),
        ("workspace", {"reasoning": True}, "reasoning must be an object"),
        ("workspace", {"reasoning": {"enable": True}}, "has no key 'enable'"),
        ("workspace", {"summary": {"messages_per_long_summary": True}}, "a whole number"),
        ("workspace", {"summary": {"messages_per_long_summary": 2.5}}, "a whole number"),
        ("session", {"summary": {"messages_per_short_summary": 0}}, "a whole number from 1"),
        ("session", {"summary": {"messages_per_long_summary": 2**63}}, "to 1,000,000"),
        ("workspace", {"custom_instructions": 7}, "custom_instructions must be a string"),
        ("workspace", {"extraction_context": ["x"]}, "extraction_context must be a string"),
        ("session", {"dream": {"enabled": 1}}, "dream.enabled must be true"),
        ("peer", {"observe_me": "yes"}, "observe_me must be true"),
        ("peer", {"observe_me": {"a": 1}}, "observe_me must be true"),
        ("message", {"reasoning": {"enabled": "no"}}, "reasoning.enabled"),
    ],
)
def test_what_clients_cannot_read_is_refused(
    kind: ConfigKind, configuration: dict[str, Any], words: str
) -> None:
    """One such value stored made every Honcho client call naming the workspace fail."""
    with pytest.raises(InvalidInput, match=words):
        check_configuration(kind, configuration)


def test_what_was_stored_before_the_checks_is_read_without_what_clients_cannot_read() -> None:
    stored = {
        "reasoning": {"enabled": "sometimes", "custom_instructions": "kept"},
        "summary": "oops",
        "dream": None,
        "custom_instructions": 3,
        "app": {"free": True},
    }
    assert readable("workspace", stored) == {
        "reasoning": {"custom_instructions": "kept"},
        "dream": None,
        "app": {"free": True},
    }
    assert readable("peer", {"observe_me": "yes", "x": 1}) == {"x": 1}
