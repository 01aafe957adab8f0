"""GraphQL document limits and request size limits, each with its error code."""

from __future__ import annotations

import pytest

from tests.conftest import GraphQLClient

pytestmark = pytest.mark.integration


async def test_too_deep_query_is_refused(gql: GraphQLClient, workspace: str) -> None:
    # __schema > types > fields > type > ofType x20 > name: depth 25, past even the depth
    # allowed to introspection (GraphiQL's own query nests ofType to depth 15 or so).
    deep = "query { __schema { types { fields { type " + "{ ofType " * 20 + "{ name }" + " }" * 24
    body = await gql.raw(deep)
    assert body["errors"][0]["extensions"] == {"code": "LIMIT_EXCEEDED", "limit": "depth"}


async def test_introspection_nested_too_deep_is_a_limit(gql: GraphQLClient) -> None:
    """graphql-core's own rule refused it as INVALID_INPUT, saying only "Maximum introspection
    depth exceeded" (probe W)."""
    nested = "query { __schema { types { fields { type { fields { type { fields { name }"
    nested += " }" * 7
    body = await gql.raw(nested)
    error = body["errors"][0]
    assert error["extensions"] == {"code": "LIMIT_EXCEEDED", "limit": "introspection"}
    assert "3 levels deep or more" in error["message"]
    two = "query { __schema { types { fields { type { fields { name } } } } } }"
    assert await gql.ok(two)


@pytest.mark.parametrize(
    "query",
    [
        "query($w: String!, $m: JSON) { peers(workspace: $w, metadata: $m) { nodes { name } } }",
        "query($w: String!, $m: JSON) { sessions(workspace: $w, metadata: $m) { nodes { name } } }",
        "query($w: String!, $m: JSON) { messages(workspace: $w, filter: {metadata: $m}) "
        "{ nodes { id } } }",
    ],
)
async def test_a_metadata_filter_is_no_larger_than_metadata(
    gql: GraphQLClient, workspace: str, query: str
) -> None:
    """A filter of 300,000 keys went to Neo4j, holding the server 1.5 s a request (probe W);
    none larger than stored metadata may be can match."""
    await gql.ok("mutation($w: String!) { createWorkspace(name: $w) { name } }", {"w": workspace})
    wide = {f"k{i}": i for i in range(2_000)}
    body = await gql.raw(query, {"w": workspace, "m": wide})
    assert body["errors"][0]["extensions"] == {"code": "LIMIT_EXCEEDED", "limit": "metadata"}
    assert await gql.ok(query, {"w": workspace, "m": {"k1": 1}})


async def test_too_many_aliases_are_refused(gql: GraphQLClient) -> None:
    aliases = " ".join(f"v{i}: version" for i in range(16))
    body = await gql.raw(f"query {{ {aliases} }}")
    assert body["errors"][0]["extensions"]["code"] == "LIMIT_EXCEEDED"
    assert body["errors"][0]["extensions"]["limit"] == "aliases"
    ok = await gql.ok("query { " + " ".join(f"v{i}: version" for i in range(15)) + " }")
    assert len(ok) == 15


def named(field: str, i: int) -> str:
    return field.replace("{i}", str(i))


CHAT = 'c{i}: chat(workspace: "w", peer: "p", query: "q") { answer }'
SEARCH = 's{i}: searchMessages(workspace: "w", query: "q") { score }'
CONTEXT = 'x{i}: context(workspace: "w", tokens: 100) { text }'


@pytest.mark.parametrize(
    ("fields", "refused"),
    [
        ([named(CHAT, 0)], False),
        ([named(CHAT, 0), named(SEARCH, 0)], False),  # the README's "A team" example
        ([named(CHAT, 0), named(CONTEXT, 0)], False),
        ([named(CHAT, i) for i in range(2)], True),
        ([named(SEARCH, i) for i in range(10)], False),
        ([named(SEARCH, i) for i in range(11)], True),
        ([named(CONTEXT, i) for i in range(5)], False),
        ([named(CONTEXT, i) for i in range(6)], True),
        ([named(CHAT, 0), named(CONTEXT, 0), named(SEARCH, 0)], True),
    ],
)
async def test_aliases_cannot_multiply_costly_root_fields(
    gql: GraphQLClient, fields: list[str], refused: bool
) -> None:
    """Sixteen aliased chats, each a tool loop of model calls, passed every limit in one
    query: the per-key limits count operations, not the fields in them."""
    body = await gql.raw("query { " + " ".join(fields) + " }")
    limits = [e["extensions"].get("limit") for e in body.get("errors") or []]
    assert ("cost" in limits) is refused, body


async def test_costly_fields_in_fragments_count_once_per_response_key(gql: GraphQLClient) -> None:
    two = "fragment F on Query { " + named(CHAT, 0) + " } fragment G on Query { ...F ...F }"
    body = await gql.raw("query { ...F ...G ... on Query { ...F } } " + two)
    assert "cost" not in [e["extensions"].get("limit") for e in body.get("errors") or []]
    other = "fragment H on Query { " + named(CHAT, 1) + " }"
    body = await gql.raw("query { ...F ...H } " + two + " " + other)
    assert "cost" in [e["extensions"].get("limit") for e in body["errors"]]


async def test_one_schema_introspection_a_document(gql: GraphQLClient) -> None:
    """Sixteen aliased __schema fields in a 5 KB document, sent with no key, built 3 MB of
    answer on the event loop, stalling every request for 0.65 s."""
    many = " ".join(f"s{i}: __schema {{ types {{ name }} }}" for i in range(2))
    body = await gql.raw(f"query {{ {many} }}")
    assert body["errors"][0]["extensions"] == {"code": "LIMIT_EXCEEDED", "limit": "introspection"}
    assert await gql.ok('query { __schema { types { name } } __type(name: "Query") { name } }')


async def test_too_many_tokens_are_refused(gql: GraphQLClient) -> None:
    fields = " ".join(["version"] * 2100)
    body = await gql.raw(f"query {{ {fields} }}")
    assert body["errors"][0]["extensions"]["code"] == "LIMIT_EXCEEDED"
    assert body["errors"][0]["extensions"]["limit"] == "tokens"


async def test_a_document_too_complex_to_validate_says_so(gql: GraphQLClient) -> None:
    """One field repeated 1,900 times (under the token limit) passed every limit of ours and
    ran out graphql-core's budget for comparing fields: "Validation aborted.", INVALID_INPUT,
    no limit named."""
    fields = " ".join(["pending"] * 1900)
    body = await gql.raw(f'query {{ queueStatus(workspace: "w") {{ {fields} }} }}')
    [error] = body["errors"]
    assert error["extensions"] == {"code": "LIMIT_EXCEEDED", "limit": "complexity"}
    assert "too complex to validate" in error["message"]


@pytest.mark.parametrize("padding", ["#" + "x" * 120_000 + "\n", " " * 120_000, "," * 120_000])
async def test_a_document_padded_past_its_length_is_refused_unread(
    gql: GraphQLClient, padding: str
) -> None:
    """Comments, blank space and commas are not tokens: 4 MB of them around one field passed
    the token limit and held the event loop for seconds while the lexer read them, twice."""
    body = await gql.raw(f"query {{ {padding} version }}")
    assert body["errors"][0]["extensions"] == {"code": "LIMIT_EXCEEDED", "limit": "document"}
    assert await gql.ok(f"query {{ {padding[:1000]}\n version }}")


async def test_long_lists_and_operation_names_are_refused(gql: GraphQLClient) -> None:
    """700,000 items of a list variable held the loop three seconds as GraphQL typed them; a
    megabyte operation name came back in full in the error."""
    query = "query($s: [String!]) { version }"
    for body, limit in (
        ({"query": query, "variables": {"s": ["s"] * 10_001}}, "list_items"),
        ({"query": "query A { version }", "operationName": "A" * 1001}, None),
    ):
        response = await gql.http.post("/graphql", json=body)
        assert response.status_code == 400, response.text[:200]
        assert len(response.content) < 1000
        assert response.json()["errors"][0]["extensions"]["code"] == (
            "LIMIT_EXCEEDED" if limit else "INVALID_INPUT"
        )
    response = await gql.http.post(
        "/graphql", json={"query": query, "variables": {"s": ["s"] * 10_000}}
    )
    # Within the limit, the list reaches validation (which finds $s unused).
    assert response.status_code == 200
    assert [e["extensions"]["code"] for e in response.json()["errors"]] == ["INVALID_INPUT"]


async def test_oversized_body_is_refused(gql: GraphQLClient) -> None:
    response = await gql.http.post(
        "/graphql",
        content=b"{" + b" " * 5_000_000 + b"}",
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 413
    assert response.json()["errors"][0]["extensions"]["code"] == "LIMIT_EXCEEDED"


async def test_syntax_error_is_invalid_input(gql: GraphQLClient) -> None:
    assert await gql.error_code("query { version ") == "INVALID_INPUT"
    assert await gql.error_code("query { noSuchField }") == "INVALID_INPUT"


async def test_health_answers(gql: GraphQLClient) -> None:
    data = await gql.ok("query { health { ok neo4j version } }")
    assert data["health"]["ok"] is True
    response = await gql.http.get("/health")
    assert response.status_code == 200 and response.json()["neo4j"] is True


@pytest.mark.parametrize(
    "document",
    [
        '{ messages(workspace: "w", first: %s) { nodes { id } } }' % ("9" * 5000),
        "query($a: Int = %s) { health { ok } }" % ("9" * 5000),
    ],
)
async def test_a_number_too_long_for_python_is_refused_and_not_logged(
    gql: GraphQLClient, document: str, caplog: pytest.LogCaptureFixture
) -> None:
    """graphql-core read a 5,000-digit Int with int(), which refuses past 4,300 digits: the
    answer was INTERNAL and each request logged two tracebacks (anyone could fill the log)."""
    body = await gql.raw(document)
    assert body["errors"][0]["extensions"] == {"code": "LIMIT_EXCEEDED", "limit": "number"}
    assert [r for r in caplog.records if r.levelname == "ERROR"] == []


async def test_several_operations_without_a_name_run_none(gql: GraphQLClient) -> None:
    """Over HTTP the first operation ran, here a mutation the client may not have meant."""
    document = 'mutation B { createWorkspace(name: "several-ops") { name } } query A { version }'
    response = await gql.http.post("/graphql", json={"query": document})
    assert response.status_code == 400, response.text
    assert response.json()["errors"][0]["extensions"]["code"] == "INVALID_INPUT"
    assert "operationName" in response.json()["errors"][0]["message"]
    named = await gql.http.post("/graphql", json={"query": document, "operationName": "A"})
    assert named.status_code == 200 and "version" in named.json()["data"]
    assert (await gql.raw('{ workspace(name: "several-ops") { name } }')).get("errors")


@pytest.mark.parametrize(
    ("document", "variables", "limit"),
    [
        (
            "mutation($w: String!, $ids: [ID!]!) { deleteMessages(workspace: $w, ids: $ids) "
            "{ ids } }",
            {"ids": [f"m{i}" for i in range(1001)]},
            "ids",
        ),
        (
            "mutation($w: String!, $ids: [ID!]!) { purgeMessages(workspace: $w, ids: $ids) "
            "{ messages } }",
            {"ids": [f"m{i}" for i in range(1001)]},
            "ids",
        ),
        (
            "mutation($w: String!, $ids: [ID!]) { retryJobs(workspace: $w, ids: $ids) }",
            {"ids": [f"j{i}" for i in range(1001)]},
            "ids",
        ),
        (
            "mutation($w: String!, $s: [String!]!) { mergePeers(workspace: $w, sources: $s, "
            'target: "t") { operation } }',
            {"s": [f"p{i}" for i in range(101)]},
            "peers",
        ),
    ],
)
async def test_lists_of_ids_a_call_names_are_bounded(
    gql: GraphQLClient, workspace: str, document: str, variables: dict[str, object], limit: str
) -> None:
    """Bounded only by the size of a JSON list (10,000): each id is read or written in the
    call's one transaction."""
    await gql.ok("mutation($w: String!) { createWorkspace(name: $w) { name } }", {"w": workspace})
    body = await gql.raw(document, {"w": workspace, **variables})
    assert body["errors"][0]["extensions"] == {"code": "LIMIT_EXCEEDED", "limit": limit}, body
