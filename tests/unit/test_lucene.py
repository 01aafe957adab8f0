"""Free text to Lucene queries: nothing the user types reaches Lucene as syntax."""

from __future__ import annotations

import pytest

from graph.keys import peer_key, scope_key, session_key, workspace_key
from graph.lucene import scoped_query, terms_query

pytestmark = pytest.mark.unit


def test_words_are_quoted_and_operators_are_plain_words() -> None:
    assert terms_query('cats AND "dogs" -fish*') == '"cats" OR "AND" OR "dogs" OR "fish"'
    assert terms_query("?!* ") == ""


def test_a_scoped_query_requires_the_scope_terms() -> None:
    key = scope_key("ws", "bob", "alice")
    assert scoped_query("Porto vet", field="content", required={"scope_key": [key]}) == (
        f'+scope_key:{key} +content:("Porto" OR "vet")'
    )
    other = scope_key("ws", "bob", "carol")
    both = scoped_query("vet", field="content", required={"scope_key": [key, other]})
    assert both == f'+scope_key:({key} OR {other}) +content:("vet")'
    w, p = workspace_key("ws"), peer_key("ws", "bob")
    assert scoped_query(
        "hi", field="content", required={"workspace_key": [w], "peer_key": [p]}
    ) == (f'+workspace_key:{w} +peer_key:{p} +content:("hi")')
    assert scoped_query("...", field="content", required={"scope_key": [key]}) == ""
    with pytest.raises(ValueError):
        scoped_query("x", field="content", required={"scope_key": ["a b"]})
    with pytest.raises(ValueError):
        scoped_query("x", field="content", required={"scope_key": []})


def test_keys_are_stable_single_tokens_that_keep_scopes_apart() -> None:
    key = scope_key("ws", "bob", "alice")
    assert key == scope_key("ws", "bob", "alice") and key.isalnum() and len(key) == 33
    # The separator keeps ("a", "bc") and ("ab", "c") apart.
    assert scope_key("ws", "a", "bc") != scope_key("ws", "ab", "c")
    assert scope_key("ws", "bob", "alice") != scope_key("ws", "alice", "bob")
    # Different kinds never share a key, even over the same names.
    keys = {
        workspace_key("ws"),
        session_key("ws", "x"),
        peer_key("ws", "x"),
        scope_key("ws", "x", "x"),
    }
    assert len(keys) == 4 and all(k.isalnum() for k in keys)


def test_a_query_can_match_the_text_in_several_fields() -> None:
    w = workspace_key("ws")
    assert scoped_query(
        "dana bought", field="content", required={"workspace_key": [w]}, also=("peer",)
    ) == (f'+workspace_key:{w} +(content:("dana" OR "bought") OR peer:("dana" OR "bought"))')
