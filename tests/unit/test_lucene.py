"""Free text to Lucene queries: nothing the user types reaches Lucene as syntax."""

from __future__ import annotations

import pytest

from graph.keys import peer_key, scope_key, session_key, workspace_key
from graph.lucene import MAX_KEY_CLAUSES, NO_MATCH, scoped_query, terms_query
from graph.repo.retrieval import text_by_key_parts

pytestmark = pytest.mark.unit


def test_words_are_quoted_and_operators_are_plain_words() -> None:
    assert terms_query('cats ANDY "dogs" -fish*') == '"cats" OR "ANDY" OR "dogs" OR "fish"'
    assert terms_query("?!* ") == ""
    assert terms_query('x\\"y') == '"x" OR "y"'


def test_stop_words_alone_make_no_query() -> None:
    """The analyzer drops them: Lucene then dropped the words clause, and every item in scope
    matched with the best text score."""
    for text in ("to be or not to be", "Is it?", "AND then", "___", "½", "to be ²", "①"):
        assert terms_query(text) == "", text
    assert terms_query("The cats AND the dogs") == '"cats" OR "dogs"'


@pytest.mark.parametrize(
    ("text", "query"),
    [
        # Marks belong to their word: `\\w` cut at each one.
        ("हिन्दी भाषा", '"हिन्दी" OR "भाषा"'),
        ("สวัสดีครับ", '"สวัสดีครับ"'),
        ("re\u0301sume\u0301", '"r\u00e9sum\u00e9"'),
        # One ideograph, one word (a run quoted whole was one exact phrase).
        ("爱丽丝喜欢", '"爱" OR "丽" OR "丝" OR "喜" OR "欢"'),
        ("ひらがな カタカナ", '"ひ" OR "ら" OR "が" OR "な" OR "カタカナ"'),
        ("foo_bar 42", '"foo_bar" OR "42"'),
    ],
)
def test_words_are_read_as_the_analyzer_reads_them(text: str, query: str) -> None:
    assert terms_query(text) == query


def test_a_scoped_query_requires_the_scope_terms() -> None:
    key = scope_key("ws", "bob", "alice")
    assert scoped_query("Porto vet", field="content", required={"scope_key": [key]}) == (
        f'+scope_key:{key} +content:("Porto" OR "vet" OR "{NO_MATCH}")'
    )
    other = scope_key("ws", "bob", "carol")
    both = scoped_query("vet", field="content", required={"scope_key": [key, other]})
    assert both == f'+scope_key:({key} OR {other}) +content:("vet" OR "{NO_MATCH}")'
    w, p = workspace_key("ws"), peer_key("ws", "bob")
    assert scoped_query(
        "hi", field="content", required={"workspace_key": [w], "peer_key": [p]}
    ) == (f'+workspace_key:{w} +peer_key:{p} +content:("hi" OR "{NO_MATCH}")')
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
    ) == (
        f'+workspace_key:{w} +(content:("dana" OR "bought" OR "{NO_MATCH}") '
        f'OR peer:("dana" OR "bought" OR "{NO_MATCH}"))'
    )


def test_a_field_with_more_keys_than_lucene_takes_is_left_to_the_statement() -> None:
    # A read of a 1,641-peer tree named every peer key: Lucene refused the query (over 1,024
    # clauses) and the read answered INTERNAL.
    keys = [peer_key("w", f"p{i}") for i in range(MAX_KEY_CLAUSES + 1)]
    some = keys[:MAX_KEY_CLAUSES]
    wide = scoped_query("bees", field="content", required={"ws": ["k1"], "peer_key": keys})
    assert wide == f'+ws:k1 +content:("bees" OR "{NO_MATCH}")'
    narrow = scoped_query("bees", field="content", required={"ws": ["k1"], "peer_key": some})
    assert narrow.count(" OR ") == MAX_KEY_CLAUSES and some[-1] in narrow  # and NO_MATCH


async def test_a_search_over_more_keys_than_a_clause_holds_runs_in_parts() -> None:
    """Past MAX_KEY_CLAUSES keys the query left its scope out: Lucene's best hits, before the
    statement kept the scope's, could all be another tenant's (beliefs or files over 512
    peers)."""
    keys = [f"k{i}" for i in range(2 * MAX_KEY_CLAUSES + 3)]
    asked: list[list[str]] = []

    async def search(part: list[str]) -> list[tuple[str, float, float | None]]:
        asked.append(part)
        return [(key, float(int(key[1:])), None) for key in part if int(key[1:]) % 100 == 7]

    found = await text_by_key_parts(keys, 4, search)
    assert [len(part) for part in asked] == [MAX_KEY_CLAUSES, MAX_KEY_CLAUSES, 3]
    assert [key for part in asked for key in part] == keys
    assert [hit[0] for hit in found] == ["k1007", "k907", "k807", "k707"]  # best of all parts
    asked.clear()
    assert await text_by_key_parts(keys[:5], 4, search) == [] and asked == [keys[:5]]
