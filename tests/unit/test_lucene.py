"""Free text to Lucene queries: nothing the user types reaches Lucene as syntax."""

from __future__ import annotations

import pytest

from graph.keys import scope_key
from graph.lucene import scoped_terms_query, terms_query
from graph.repo.scope_index import scope_label


def test_words_are_quoted_and_operators_are_plain_words() -> None:
    assert terms_query('cats AND "dogs" -fish*') == '"cats" OR "AND" OR "dogs" OR "fish"'
    assert terms_query("?!* ") == ""


def test_a_scoped_query_requires_the_scope_term() -> None:
    key = scope_key("ws", "bob", "alice")
    assert scoped_terms_query("Porto vet", field="content", scope_field="scope_key", scope=key) == (
        f'+scope_key:{key} +content:("Porto" OR "vet")'
    )
    assert scoped_terms_query("...", field="content", scope_field="scope_key", scope=key) == ""
    with pytest.raises(ValueError):
        scoped_terms_query("x", field="content", scope_field="scope_key", scope="a b")


def test_scope_keys_are_stable_single_tokens_that_keep_scopes_apart() -> None:
    key = scope_key("ws", "bob", "alice")
    assert key == scope_key("ws", "bob", "alice") and key.isalnum() and len(key) == 33
    # The separator keeps ("a", "bc") and ("ab", "c") apart.
    assert scope_key("ws", "a", "bc") != scope_key("ws", "ab", "c")
    assert scope_key("ws", "bob", "alice") != scope_key("ws", "alice", "bob")
    assert scope_label(key) == f"ObsScope_{key}"
