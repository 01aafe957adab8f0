"""A seeded fuzz run against the app: generated GraphQL documents and request bodies.

Documents are built from the schema's own fields (so many pass validation and reach the
resolvers) and then damaged: wrong argument types, huge and hostile strings, deep nesting,
fragments that spread each other, aliases, variables of every JSON type, unknown names,
truncation. Bodies vary in type, size, encoding and nesting. Whatever comes in: no 5xx, every
error carries `extensions.code`, and the app answers a health query afterwards.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from graphql import GraphQLObjectType, get_named_type

from resolvers.app import create_app
from resolvers.graphql.schema import build_schema
from resolvers.services import Services

pytestmark = pytest.mark.e2e

SEED = 20261130
DOCUMENTS = 800
BODIES = 400
HEALTH = {"query": "{ health { ok } }"}


@pytest.fixture
async def client(services: Services) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(services.settings, services)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://127.0.0.1", timeout=30
    ) as http:
        yield http


NOT_REQUESTS: list[Any] = [None, 1, -1.5, "s", True, [], {}, [{}], {"query": None}]


def noise(rng: random.Random, alphabet: str, most: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, most)))


def values(rng: random.Random, workspace: str) -> list[Callable[[], str]]:
    """Argument literals, good and bad, as GraphQL text."""
    return [
        lambda: json.dumps(workspace),
        lambda: json.dumps(rng.choice(["alice", "bob", "s1", "x" * 101, "", "a b"])),
        lambda: str(rng.choice([0, 1, -1, 10, 101, 2**31, 2**53])),
        lambda: rng.choice(["true", "false", "null"]),
        lambda: json.dumps(noise(rng, string.printable, 40)),
        lambda: json.dumps("\u202e" + "é" * rng.randint(1, 5) + "🙂"),
        lambda: '"\\ud800"',
        lambda: json.dumps("x" * rng.choice([2001, 30_000])),
        lambda: "[" + ", ".join(json.dumps(str(i)) for i in range(rng.randint(0, 5))) + "]",
        lambda: "{ " + rng.choice(['peer: "alice"', "levels: [EXPLICIT]", "x: 1", ""]) + " }",
        lambda: rng.choice(["LOW", "MAX", "EXPLICIT", "ADMIN", "NOPE"]),
        lambda: "$" + rng.choice(["w", "v", "missing"]),
        lambda: str(rng.random() * 10 ** rng.randint(0, 30)),
    ]


class Documents:
    """Random documents over the real schema's fields."""

    def __init__(self, rng: random.Random, workspace: str) -> None:
        self.rng = rng
        self.schema = build_schema(services_settings())._schema
        self.values = values(rng, workspace)

    def selection(self, kind: GraphQLObjectType, depth: int) -> str:
        rng = self.rng
        fields = list(kind.fields.items())
        picked = rng.sample(fields, k=min(len(fields), rng.randint(1, 4)))
        parts = []
        for name, field in picked:
            alias = f"a{rng.randint(0, 99)}: " if rng.random() < 0.2 else ""
            args = ""
            if field.args and rng.random() < 0.9:
                chosen = [a for a in field.args if rng.random() < 0.8]
                if rng.random() < 0.1:
                    chosen.append("bogus")
                args = "(" + ", ".join(f"{a}: {rng.choice(self.values)()}" for a in chosen) + ")"
            inner = get_named_type(field.type)
            below = ""
            if isinstance(inner, GraphQLObjectType):
                inside = self.selection(inner, depth + 1) if depth < 6 else "__typename"
                below = " { " + inside + " }"
            parts.append(f"{alias}{name}{args}{below}")
        if rng.random() < 0.1:
            parts.append("__typename")
        return " ".join(parts)

    def document(self) -> str:
        rng = self.rng
        operation = rng.choices(["query", "mutation", "subscription", ""], [6, 3, 1, 1])[0]
        root = {
            "query": self.schema.query_type,
            "mutation": self.schema.mutation_type,
            "subscription": self.schema.subscription_type,
            "": self.schema.query_type,
        }[operation]
        assert root is not None
        variables = "($w: String!, $v: JSON)" if operation and rng.random() < 0.5 else ""
        head = f"{operation} Op{variables}" if operation else ""
        text = f"{head} {{ {self.selection(root, 0)} }}"
        roll = rng.random()
        if roll < 0.1:  # fragments spreading each other
            levels = rng.randint(2, 80)
            chain = [
                f"fragment F{i} on Query {{ ...F{i - 1} ...F{i - 1} }}"
                for i in range(1, levels + 1)
            ]
            base = "fragment F0 on Query { health { ok } }"
            text = " ".join([f"{head} {{ ...F{levels} }}", base, *chain])
        elif roll < 0.15:  # deep nesting
            depth = rng.randint(10, 1500)
            text = '{ workspace(name: "w") ' + "{ name " * depth + "}" * depth + " }"
        elif roll < 0.2:  # truncated
            text = text[: rng.randint(0, len(text))]
        elif roll < 0.25:  # many aliases
            aliases = [f"h{i}: health {{ ok }}" for i in range(rng.randint(10, 60))]
            text = "{ " + " ".join(aliases) + " }"
        elif roll < 0.3:  # lexer garbage
            text = noise(rng, '{}[]()$@!:=|&"\\#.\n\t ab', 300)
        return text

    def variables(self, workspace: str) -> Any:
        rng = self.rng
        return rng.choice(
            [
                None,
                {},
                {"w": workspace},
                {"w": workspace, "v": {"k": [1, "x", None, True]}},
                {"w": 5},
                {"w": None},
                {"v": "x" * 10_000},
                [1, 2],
                "not an object",
            ]
        )


def services_settings() -> Any:
    from graph.settings import Settings

    return Settings.from_env({})


def assert_coded(response: httpx.Response, what: str) -> None:
    assert response.status_code < 500, (what, response.status_code, response.text[:300])
    body = response.json()
    for error in body.get("errors") or []:
        code = (error.get("extensions") or {}).get("code")
        assert isinstance(code, str) and code, (what, error)


async def test_generated_documents_never_break_the_app(
    client: httpx.AsyncClient, workspace: str
) -> None:
    rng = random.Random(SEED)
    docs = Documents(rng, workspace)
    for n in range(DOCUMENTS):
        document = docs.document()
        payload: Any = {"query": document, "variables": docs.variables(workspace)}
        if rng.random() < 0.3:
            payload["operationName"] = rng.choice(["Op", "Other", 5, None])
        text = json.dumps(payload)
        # The same document over GET, when a URL can hold it (the client refuses a query
        # string over 64 KiB; the server answers 414 past its own limit).
        if rng.random() < 0.1 and len(urlencode({"query": document})) < 60_000:
            response = await client.get("/graphql", params={"query": document})
        else:
            response = await client.post(
                "/graphql", content=text, headers={"content-type": "application/json"}
            )
        assert_coded(response, f"document {n}: {document[:200]}")
    health = await client.post("/graphql", json=HEALTH)
    assert health.json()["data"]["health"]["ok"] is True


def bodies(rng: random.Random) -> list[Callable[[], bytes]]:
    def nested(opening: str, closing: str) -> bytes:
        depth = rng.choice([10, 63, 65, 1000, 50_000])
        return (opening * depth + closing * depth).encode()

    return [
        lambda: json.dumps(rng.choice(NOT_REQUESTS)).encode(),
        lambda: bytes(rng.randrange(256) for _ in range(rng.randint(0, 2000))),
        lambda: json.dumps({"query": "{ health { ok } }"}).encode("utf-16"),
        lambda: nested("[", "]"),
        lambda: nested('{"a":', "}")[:-1] + b"1}",
        lambda: b'{"query": "' + b"\\ud800" * rng.randint(1, 5) + b'"}',
        lambda: b'{"query": "{ health { ok } }", "variables": ' + nested("[", "]") + b"}",
        lambda: json.dumps({"query": "{ health { ok } }" * rng.randint(1, 3000)}).encode(),
        lambda: b'{"query": "{ health { ok } }"}' + b" " * rng.randint(0, 10) + b"garbage",
        lambda: ("\ufeff" + json.dumps(HEALTH)).encode(),
        lambda: json.dumps({"query": "{ health { ok } }", "extensions": {"x": 1}}).encode(),
    ]


async def test_generated_bodies_never_break_the_app(client: httpx.AsyncClient) -> None:
    rng = random.Random(SEED + 1)
    makers = bodies(rng)
    types = ["application/json", "application/json; charset=utf-8", "text/plain", "", "x/y"]
    for n in range(BODIES):
        body = rng.choice(makers)()
        kind = rng.choice(types)
        headers = {"content-type": kind} if kind else {}
        response = await client.post("/graphql", content=body, headers=headers)
        assert_coded(response, f"body {n}: {body[:120]!r} as {kind!r}")
    health = await client.post("/graphql", json=HEALTH)
    assert health.json()["data"]["health"]["ok"] is True
