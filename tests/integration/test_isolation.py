"""Invariant 1, workspace isolation, for every GraphQL field and every key scope.

Two workspaces, A and B, are filled with the same peer, session and clientId names. Every root
field of the schema (queries, mutations, subscriptions) has a row in `CASES` (a new field without
one fails `test_every_schema_field_has_an_isolation_case`), and each row is asked:
- as admin in A: the answer shows A's data and nothing of B's (B's name, ids, contents);
- with an id from B while asking in A: NOT_FOUND;
- with a workspace, peer or session key for A: FORBIDDEN in B, and allowed in A exactly for the
  scopes the row lists;
- with no key, a forged, tampered or expired key: UNAUTHENTICATED.
After all of it, B's nodes and edges are exactly what they were.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from graphql import GraphQLError

from graph import models
from graph.errors import BeliefgraphError
from graph.keys import Representation, scope_key
from graph.props import node_props
from graph.repo import dream_runs
from graph.validation import now
from reasoners.dreamer import scheduling
from resolvers.app import create_app
from resolvers.auth import KeyScope, Principal, issue_key, verify_key
from resolvers.graphql.context import Context
from resolvers.graphql.schema import build_schema
from resolvers.services import Services
from tests.conftest import GraphQLClient
from tests.integration.derive_helpers import worker_for
from tests.integration.tx_helpers import closing, while_held

pytestmark = pytest.mark.integration

SECRET = "isolation-test-secret-" + "x" * 24
ADMIN_KEY = issue_key(SECRET, Principal(KeyScope.ADMIN))
ALL_SCOPES = frozenset(KeyScope)
Vars = dict[str, Any]


# --- two workspaces with the same names inside -------------------------------------------------


@dataclass
class Side:
    """One workspace of the pair, and the ids its setup produced."""

    name: str
    messages: dict[tuple[str, str], str] = field(default_factory=dict)  # (peer, session) -> id
    observations: dict[str, str] = field(default_factory=dict)  # "observer->observed" -> id
    jobs: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> session, peer, status
    runs: list[str] = field(default_factory=list)  # dream run ids

    @property
    def own_peer(self) -> str:
        """A peer only this workspace has (its name contains the workspace name)."""
        return f"{self.name}-own"

    def secrets(self) -> list[str]:
        """Strings that appear only in this workspace's data: its name (in every content,
        metadata and own-peer name), its message, observation and job ids."""
        return [
            self.name,
            *self.messages.values(),
            *self.observations.values(),
            *self.jobs,
            *self.runs,
        ]

    def dead_job(self) -> str:
        return next(i for i, job in self.jobs.items() if job["status"] == "dead")

    def key(self, scope: KeyScope, peer: str = "alice") -> str:
        """A key of `scope` for this workspace: peer keys are `peer`'s, session keys s1's."""
        return issue_key(
            SECRET,
            Principal(
                scope,
                workspace=None if scope is KeyScope.ADMIN else self.name,
                peer=peer if scope is KeyScope.PEER else None,
                session="s1" if scope is KeyScope.SESSION else None,
            ),
        )


@dataclass
class World:
    a: Side
    b: Side


CREATE_WORKSPACE = """
mutation($w: String!, $m: JSON) { createWorkspace(name: $w, metadata: $m) { name } }"""
CREATE_PEER = """
mutation($w: String!, $n: String!, $m: JSON) {
  createPeer(workspace: $w, name: $n, metadata: $m) { name }
}"""
CREATE_SESSION = """
mutation($w: String!, $n: String!, $m: JSON, $peers: [SessionPeerInput!]) {
  createSession(workspace: $w, name: $n, metadata: $m, peers: $peers) { name }
}"""
ADD_MESSAGES = """
mutation($w: String!, $s: String!, $msgs: [MessageInput!]!) {
  addMessages(workspace: $w, session: $s, messages: $msgs) {
    created messages { id peer session content clientId }
  }
}"""

# Nothing in the API writes observations yet (the deriver and dreamer will), so the test writes
# them directly, with the property map of the model, linked the way the reasoners link them.
CREATE_EXPLICIT = """
MATCH (m:Message {id: $message})
CREATE (o:Observation) SET o = $props
CREATE (o)-[:DERIVED_FROM {span: $span}]->(m)
RETURN o.id AS id"""
CREATE_DEDUCTIVE = """
MATCH (premise:Observation {id: $premise})
CREATE (o:Observation) SET o = $props
CREATE (o)-[:DERIVED_FROM]->(premise)
RETURN o.id AS id"""
# addMessages queues derive jobs that wait for more input; one of them is made dead-lettered, as
# if it had failed for good, so that retryJobs has something to act on.
KILL_JOB = """
MATCH (j:Job {workspace: $w, session: 's2', peer: 'bob', status: 'pending'})
SET j.status = 'dead', j.error = 'failed in a test'"""
LIST_JOBS = """
MATCH (j:Job {workspace: $w})
RETURN j.id AS id, j.session AS session, j.peer AS peer, j.status AS status"""
# Every node of a workspace with its edges (both directions), embeddings left out.
SNAPSHOT = """
MATCH (n)
WHERE n.workspace = $w OR (n:Workspace AND n.name = $w)
OPTIONAL MATCH (n)-[r]-(other)
WITH n, collect(CASE WHEN r IS NULL THEN null ELSE
  [type(r), startNode(r) = n, properties(r), labels(other), coalesce(other.id, other.name)]
END) AS edges
RETURN labels(n) AS labels, n {.*, embedding: null} AS props, edges"""


async def cypher(services: Services, query: str, **params: Any) -> list[dict[str, Any]]:
    records, _, _ = await services.db.driver.execute_query(
        query, params, database_=services.db.database
    )
    return [r.data() for r in records]


async def snapshot(services: Services, workspace: str) -> list[str]:
    """Everything stored for `workspace`, as sorted text: equal snapshots, untouched data."""
    rows = await cypher(services, SNAPSHOT, w=workspace)
    assert rows, f"workspace {workspace} has no nodes"

    def text(value: Any) -> str:
        return json.dumps(value, sort_keys=True, default=str)

    return sorted(
        text([r["labels"], r["props"], sorted(text(e) for e in r["edges"])]) for r in rows
    )


async def add_observation(
    services: Services,
    side: Side,
    observer: str,
    observed: str,
    *,
    level: str = "explicit",
    source: tuple[str, str] | None = None,
    premise: str | None = None,
) -> str:
    props = node_props(
        models.Observation,
        {
            "uid": str(uuid.uuid4()),
            "workspace": side.name,
            "observer": observer,
            "observed": observed,
            "level": level,
            "content": f"{side.name}: {observer} believes something about {observed}",
            "scope_key": scope_key(side.name, observer, observed),
            "created_at": now(),
            "valid_at": now(),
            "times_derived": 1,
            "session": "s1",
        },
    )
    if premise is not None:
        rows = await cypher(services, CREATE_DEDUCTIVE, premise=premise, props=props)
    else:
        assert source is not None
        rows = await cypher(
            services, CREATE_EXPLICIT, message=side.messages[source], span="a span", props=props
        )
    identifier: str = rows[0]["id"]
    return identifier


async def fill(api: Api, services: Services, name: str) -> Side:
    """Peers alice, bob (alice's sub-peer) and one own peer; sessions s1 (all three) and s2;
    four messages with
    fixed clientIds; observations alice->bob (explicit, plus a deduction), bob->alice, bob->bob;
    the jobs those messages queued, bob's in s2 dead-lettered."""
    side = Side(name)
    home = {"home": name}
    await api.ok(CREATE_WORKSPACE, {"w": name, "m": home}, key=ADMIN_KEY)
    # dora, in no session, is the merge case's source, and erin the purge case's peer: each
    # restructuring or purge case changes peers of its own, as an operation on a peer a queued
    # one changes is refused.
    for peer in ("alice", "bob", "dora", "erin", side.own_peer):
        await api.ok(CREATE_PEER, {"w": name, "n": peer, "m": home}, key=ADMIN_KEY)
    for session, present in (("s1", ["alice", "bob", side.own_peer]), ("s2", ["alice", "bob"])):
        await api.ok(
            CREATE_SESSION,
            {"w": name, "n": session, "m": home, "peers": [{"peer": p} for p in present]},
            key=ADMIN_KEY,
        )
    lines = {
        "s1": [("alice", "I adopted a golden retriever puppy"), ("bob", "What is her name?")],
        "s2": [("alice", "The train was late again"), ("bob", "Mine too, forty minutes")],
    }
    for session, said in lines.items():
        batch = [
            {"peer": peer, "content": f"{name} {peer}: {text}", "clientId": f"{session}-{i}"}
            for i, (peer, text) in enumerate(said)
        ]
        data = await api.ok(ADD_MESSAGES, {"w": name, "s": session, "msgs": batch}, key=ADMIN_KEY)
        # The same clientIds are used in both workspaces: each must store its own messages.
        assert data["addMessages"]["created"] == len(batch)
        for m in data["addMessages"]["messages"]:
            side.messages[(m["peer"], m["session"])] = m["id"]
    o = side.observations
    o["alice->bob"] = await add_observation(services, side, "alice", "bob", source=("bob", "s1"))
    o["alice->bob:deduction"] = await add_observation(
        services, side, "alice", "bob", level="deductive", premise=o["alice->bob"]
    )
    o["bob->alice"] = await add_observation(services, side, "bob", "alice", source=("alice", "s1"))
    o["bob->bob"] = await add_observation(services, side, "bob", "bob", source=("bob", "s2"))
    # bob is a sub-peer of alice in both workspaces: each tree must stay in its own.
    await api.ok(ADD_SUB_PEER, {"w": name, "parent": "alice", "child": "bob"}, key=ADMIN_KEY)
    # Files of alice and of bob, her sub-peer, each naming the workspace.
    for peer, path in (("alice", "notes.md"), ("alice", "todo.md"), ("bob", "notes.md")):
        content = f"# {name}\n\n{peer} keeps notes about the golden retriever puppy."
        variables = {"w": name, "p": peer, "path": path, "c": content}
        await api.ok(CREATE_FILE, variables, key=ADMIN_KEY)
    # One dream of alice's view of bob, run now (the derive jobs wait for their max age).
    alice_bob = Representation(name, "alice", "bob")
    await scheduling.on_demand(services.db, services.settings, alice_bob)
    assert await worker_for(services, name, None).drain() == 1
    side.runs = [
        r.id for r in await dream_runs.list_runs(services.db, alice_bob, before=None, limit=5)
    ]
    await cypher(services, KILL_JOB, w=name)
    side.jobs = {r.pop("id"): r for r in await cypher(services, LIST_JOBS, w=name)}
    statuses = sorted(job["status"] for job in side.jobs.values())
    assert statuses == ["dead", "done", "pending", "pending", "pending"], (
        "update KILL_JOB and LIST_JOBS"
    )
    return side


@pytest.fixture
def secured(services: Services) -> Services:
    """The test services with auth on."""
    settings = dataclasses.replace(services.settings, auth="on", auth_secret=SECRET)
    return dataclasses.replace(services, settings=settings)


class Api(GraphQLClient):
    """Queries and mutations over HTTP; subscriptions through the schema, first event only
    (apps use graphql-transport-ws, which the in-process transport cannot carry)."""

    def __init__(self, http: httpx.AsyncClient, services: Services) -> None:
        super().__init__(http)
        self.services = services
        self.schema = build_schema(services.settings)

    async def raw(self, query: str, variables: Vars | None = None, key: str | None = None) -> Vars:
        if not query.lstrip().startswith("subscription"):
            return await super().raw(query, variables, key)
        context = Context(self.services, f"Bearer {key}" if key else None)
        stream = await self.schema.subscribe(
            query, variable_values=variables, context_value=context
        )
        if not isinstance(stream, AsyncGenerator):
            result = stream
        else:
            result = await anext(stream)
            await stream.aclose()
        body: Vars = {"data": result.data}
        if result.errors:
            body["errors"] = [
                {"message": e.message, "extensions": {"code": subscription_error_code(e)}}
                for e in result.errors
            ]
        return body


def subscription_error_code(error: GraphQLError) -> str:
    """The code of an error from a subscription. Subscription errors reach clients without
    `extensions.code` (the error mapping only sees queries and mutations), so the code is
    taken from the error raised when the mapping left none."""
    code = (error.extensions or {}).get("code")
    if code is None and isinstance(error.original_error, BeliefgraphError):
        code = error.original_error.code.value
    return str(code)


@pytest.fixture
async def api(secured: Services) -> AsyncIterator[Api]:
    app = create_app(secured.settings, secured)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        yield Api(http, secured)


@pytest.fixture
async def world(api: Api, services: Services) -> World:
    suffix = uuid.uuid4().hex[:10]
    return World(
        a=await fill(api, services, f"t-a-{suffix}"), b=await fill(api, services, f"t-b-{suffix}")
    )


# --- one row per schema field ------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    field: str
    document: str
    variables: Callable[[Side], Vars]
    allowed: frozenset[KeyScope]  # key scopes (for their own workspace) that may call it
    # Variables for the widest read, used by the leak check (default: `variables`).
    widest: Callable[[Side], Vars] | None = None
    # For fields that take an id: variables asking in the first side for an id of the second.
    foreign: Callable[[Side, Side], Vars] | None = None
    # What asking with `foreign` gives: an error code, or the exact answer.
    foreign_answer: str | Vars = "NOT_FOUND"
    # The answer shows its workspace's data (false for keys, counts and the admin-wide list).
    echoes: bool = True
    # For answers that are counts: whether the widest answer counts exactly this side's data.
    counts: Callable[[Side, Vars], bool] | None = None
    # Lists every workspace by design (admin keys only): exempt from the leak checks.
    admin_wide: bool = False
    # What a key of its own workspace not allowed gets: a thing looked up by id is not found,
    # as one that does not exist (FORBIDDEN told the key that it does).
    denied: str = "FORBIDDEN"

    @property
    def kind(self) -> str:
        """query, mutation or subscription."""
        return self.document.split("(")[0].split("{")[0].strip()

    @property
    def key(self) -> str:
        """How the schema test names it: "Query.peers", "Subscription.queueStatus"."""
        return f"{self.kind.capitalize()}.{self.field}"

    @property
    def is_mutation(self) -> bool:
        return self.kind == "mutation"


def only(*scopes: KeyScope) -> frozenset[KeyScope]:
    return frozenset({KeyScope.ADMIN, *scopes})


def counts_all_jobs(side: Side, data: Vars) -> bool:
    status = data["queueStatus"]
    return bool(sum(status[s] for s in ("pending", "running", "done", "dead")) == len(side.jobs))


ALICE_IN_S1 = {"peer": "alice", "session": "s1"}
CREATE_FILE = """mutation($w: String!, $p: String!, $path: String!, $c: String!) {
  createFile(workspace: $w, peer: $p, path: $path, content: $c) { peer path content }
}"""
ADD_SUB_PEER = """mutation($w: String!, $parent: String!, $child: String!) {
  addSubPeer(workspace: $w, parent: $parent, child: $child) { parent child changed }
}"""
QUEUE_STATUS = """{kind}($w: String!, $p: String, $s: String) {{
  queueStatus(workspace: $w, peer: $p, session: $s) {{ pending running done dead }}
}}"""
MESSAGE_FIELDS = "id workspace peer session content"
OBSERVATION_FIELDS = "id workspace observer observed content"

# Queries first, then mutations; deleteWorkspace stays last (an admin run deletes the workspace).
CASES = [
    Case(
        "workspace",
        "query($w: String!) { workspace(name: $w) { name metadata } }",
        lambda s: {"w": s.name},
        ALL_SCOPES,
    ),
    Case(
        "workspaces",
        "query { workspaces(first: 100) { nodes { name } } }",
        lambda s: {},
        only(),
        echoes=False,
        admin_wide=True,
    ),
    Case(
        "peer",
        'query($w: String!) { peer(workspace: $w, name: "alice") { workspace name metadata } }',
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
    ),
    Case(
        "peers",
        "query($w: String!) { peers(workspace: $w) { nodes { workspace name metadata } } }",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE),
    ),
    Case(
        "session",
        'query($w: String!) { session(workspace: $w, name: "s1") { workspace name metadata } }',
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.SESSION),
    ),
    Case(
        "sessions",
        """query($w: String!, $p: String) {
          sessions(workspace: $w, peer: $p) { nodes { workspace name metadata } }
        }""",
        lambda s: {"w": s.name, "p": "alice"},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
        widest=lambda s: {"w": s.name, "p": None},
    ),
    Case(
        "sessionPeers",
        """query($w: String!) {
          sessionPeers(workspace: $w, session: "s1", includePast: true) { peer session }
        }""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.SESSION),
    ),
    Case(
        "message",
        f"""query($w: String!, $id: ID!) {{
          message(workspace: $w, id: $id) {{ {MESSAGE_FIELDS} }}
        }}""",
        lambda s: {"w": s.name, "id": s.messages[("alice", "s1")]},
        ALL_SCOPES,
        foreign=lambda asked, owner: {"w": asked.name, "id": owner.messages[("alice", "s1")]},
    ),
    Case(
        "messages",
        f"""query($w: String!, $f: MessageFilterInput) {{
          messages(workspace: $w, filter: $f, first: 100) {{ nodes {{ {MESSAGE_FIELDS} }} }}
        }}""",
        lambda s: {"w": s.name, "f": ALICE_IN_S1},
        ALL_SCOPES,
        widest=lambda s: {"w": s.name, "f": None},
    ),
    Case(
        "searchMessages",
        f"""query($w: String!, $f: MessageFilterInput, $depth: Depth) {{
          searchMessages(workspace: $w, query: "golden retriever puppy", filter: $f, limit: 50,
                         depth: $depth) {{
            message {{ {MESSAGE_FIELDS} }}
          }}
        }}""",
        lambda s: {"w": s.name, "f": ALICE_IN_S1, "depth": "ALL"},
        ALL_SCOPES,
        widest=lambda s: {"w": s.name, "f": None},  # depth needs a peer: the default
    ),
    Case(
        "observations",
        f"""query($w: String!) {{
          observations(workspace: $w, observer: "alice", observed: "bob",
                       includeStale: true, includeSuperseded: true, depth: "ALL",
                       excludeSessionIds: ["s9"], excludeDerived: false) {{
            nodes {{ {OBSERVATION_FIELDS} }}
          }}
        }}""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
    ),
    Case(
        "observation",
        f"""query($w: String!, $id: ID!) {{
          observation(workspace: $w, id: $id) {{
            observation {{ {OBSERVATION_FIELDS} }}
            premises {{ {OBSERVATION_FIELDS} }}
            sources {{ span message {{ {MESSAGE_FIELDS} }} }}
            dependents {{ {OBSERVATION_FIELDS} }}
          }}
        }}""",
        lambda s: {"w": s.name, "id": s.observations["alice->bob"]},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
        foreign=lambda asked, owner: {"w": asked.name, "id": owner.observations["alice->bob"]},
        denied="NOT_FOUND",
    ),
    Case(
        "queueStatus",
        QUEUE_STATUS.format(kind="query"),
        lambda s: {"w": s.name, "p": "alice", "s": "s1"},
        ALL_SCOPES,
        widest=lambda s: {"w": s.name},
        echoes=False,
        counts=counts_all_jobs,
    ),
    Case(
        "jobs",
        """query($w: String!, $p: String, $s: String) {
          jobs(workspace: $w, peer: $p, session: $s, first: 100) { id session peer status }
        }""",
        lambda s: {"w": s.name, "p": "alice", "s": "s1"},
        ALL_SCOPES,
        widest=lambda s: {"w": s.name},
    ),
    Case(
        "queueStatus",
        QUEUE_STATUS.format(kind="subscription"),
        lambda s: {"w": s.name, "p": "alice", "s": "s1"},
        ALL_SCOPES,
        widest=lambda s: {"w": s.name},
        echoes=False,
        counts=counts_all_jobs,
    ),
    Case(
        "searchObservations",
        f"""query($w: String!) {{
          searchObservations(workspace: $w, observer: "alice", observed: "bob",
                             query: "bob alice believes", depth: "ALL",
                             filter: {{excludeSessionIds: ["s9"]}}) {{
            observation {{ {OBSERVATION_FIELDS} }}
          }}
        }}""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
        echoes=False,  # hits depend on the words; the leak check still runs
    ),
    Case(
        "peerCard",
        """query($w: String!) {
          peerCard(workspace: $w, observer: "alice", observed: "bob") { observer entries }
        }""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
        echoes=False,
    ),
    Case(
        "subPeers",
        """query($w: String!) {
          subPeers(workspace: $w, peer: "alice", depth: "ALL") { peer { workspace name } distance }
        }""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
    ),
    Case(
        "file",
        """query($w: String!) {
          file(workspace: $w, peer: "alice", path: "notes.md") { workspace peer path content }
        }""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
    ),
    Case(
        "files",
        """query($w: String!) {
          files(workspace: $w, peer: "alice", first: 10) { nodes { workspace path content } }
        }""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
    ),
    Case(
        "searchFiles",
        """query($w: String!) {
          searchFiles(workspace: $w, peer: "alice", query: "puppy notes", depth: "ALL") {
            peer path chunkIndex content
          }
        }""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
    ),
    Case(
        "parentPeers",
        """query($w: String!) {
          parentPeers(workspace: $w, peer: "bob") { peer { workspace name } distance }
        }""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE),
    ),
    Case(
        "dreamRuns",
        """query($w: String!) {
          dreamRuns(workspace: $w, observer: "alice", observed: "bob") { id observer trigger }
        }""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
    ),
    Case(
        "dreamEvents",
        """subscription($w: String!) {
          dreamEvents(workspace: $w, observer: "alice", observed: "bob", afterRun: 0) {
            run kind mode
          }
        }""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
    ),
    Case(
        "context",
        f"""query($w: String!) {{
          context(workspace: $w, tokens: 2000, peerTarget: "bob", peerPerspective: "alice",
                  searchQuery: "bob", depth: "ALL", excludeSessionIds: ["s9"]) {{
            text peerCard representation {{ {OBSERVATION_FIELDS} }}
          }}
        }}""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
    ),
    Case(
        "chat",
        f"""query($w: String!) {{
          chat(workspace: $w, peer: "alice", target: "bob", query: "what does bob believe",
               depth: "ALL", excludeSessionIds: ["s9"]) {{
            answer mode citations {{ observations {{ {OBSERVATION_FIELDS} }}
              messages {{ id span message {{ {MESSAGE_FIELDS} }} }} }}
          }}
        }}""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
        echoes=False,  # that world's observations have no embeddings: nothing is prefetched
    ),
    Case(
        "chatStream",
        f"""subscription($w: String!) {{
          chatStream(workspace: $w, peer: "alice", target: "bob", query: "what does bob believe",
                     depth: "ALL", sessionIds: ["s1", "s2"]) {{
            delta done citations {{ observations {{ {OBSERVATION_FIELDS} }}
              messages {{ id span message {{ {MESSAGE_FIELDS} }} }} }}
          }}
        }}""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
        echoes=False,
    ),
    Case(
        "addSubPeer",
        ADD_SUB_PEER,
        lambda s: {"w": s.name, "parent": "alice", "child": "bob"},
        only(KeyScope.WORKSPACE),
        echoes=False,
    ),
    Case(
        "removeSubPeer",
        """mutation($w: String!) {
          removeSubPeer(workspace: $w, parent: "bob", child: "alice") { parent child changed }
        }""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE),
        echoes=False,
    ),
    Case(
        "scheduleDream",
        """mutation($w: String!) {
          scheduleDream(workspace: $w, observer: "alice", observed: "bob") { jobId created }
        }""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
        echoes=False,
    ),
    Case(
        "setPeerCard",
        """mutation($w: String!) {
          setPeerCard(workspace: $w, observer: "alice", observed: "bob",
                      entries: ["Bob of this workspace"]) { observer observed entries }
        }""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
        echoes=False,
    ),
    Case(
        "createFile",
        CREATE_FILE,
        lambda s: {"w": s.name, "p": "alice", "path": "new.md", "c": f"{s.name}: a new file"},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
    ),
    Case(
        "updateFile",
        """mutation($w: String!, $c: String!) {
          updateFile(workspace: $w, peer: "alice", path: "notes.md", content: $c) {
            workspace path content
          }
        }""",
        lambda s: {"w": s.name, "c": f"{s.name}: notes rewritten"},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
    ),
    Case(
        "deleteFile",
        """mutation($w: String!) {
          deleteFile(workspace: $w, peer: "alice", path: "todo.md")
        }""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
        echoes=False,
    ),
    Case(
        "createWorkspace",
        "mutation($w: String!) { createWorkspace(name: $w) { name metadata } }",
        lambda s: {"w": s.name},
        only(),
    ),
    Case(
        "updateWorkspace",
        """mutation($w: String!, $m: JSON) {
          updateWorkspace(name: $w, metadata: $m) { name metadata }
        }""",
        lambda s: {"w": s.name, "m": {"home": s.name, "touched": True}},
        only(KeyScope.WORKSPACE),
    ),
    Case(
        "createPeer",
        'mutation($w: String!) { createPeer(workspace: $w, name: "alice") { workspace name } }',
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
    ),
    Case(
        "updatePeer",
        """mutation($w: String!, $m: JSON) {
          updatePeer(workspace: $w, name: "alice", metadata: $m, extractionContext: "likes dogs") {
            workspace name metadata extractionContext
          }
        }""",
        lambda s: {"w": s.name, "m": {"home": s.name, "touched": True}},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
    ),
    Case(
        "createSession",
        """mutation($w: String!) {
          createSession(workspace: $w, name: "s1", peers: [{peer: "alice"}]) { workspace name }
        }""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.SESSION),
    ),
    Case(
        "updateSession",
        """mutation($w: String!) {
          updateSession(workspace: $w, name: "s1", context: "a walk in the park") {
            workspace name context
          }
        }""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.SESSION),
    ),
    Case(
        "addSessionPeers",
        """mutation($w: String!) {
          addSessionPeers(workspace: $w, session: "s1", peers: [{peer: "bob", observeMe: false}]) {
            peer session observeMe
          }
        }""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.SESSION),
    ),
    Case(
        "removeSessionPeers",
        """mutation($w: String!) {
          removeSessionPeers(workspace: $w, session: "s1", peers: ["bob"]) { peer session }
        }""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE, KeyScope.SESSION),
    ),
    Case(
        "setSessionPeers",
        """mutation($w: String!, $peers: [SessionPeerInput!]!) {
          setSessionPeers(workspace: $w, session: "s1", peers: $peers) { peer session }
        }""",
        lambda s: {"w": s.name, "peers": [{"peer": p} for p in ("alice", "bob", s.own_peer)]},
        only(KeyScope.WORKSPACE, KeyScope.SESSION),
    ),
    Case(
        "addMessages",
        f"""mutation($w: String!, $msgs: [MessageInput!]!) {{
          addMessages(workspace: $w, session: "s1", messages: $msgs) {{
            created messages {{ {MESSAGE_FIELDS} }}
          }}
        }}""",
        lambda s: {"w": s.name, "msgs": [{"peer": "alice", "content": f"{s.name} alice: hi"}]},
        ALL_SCOPES,
    ),
    Case(
        "flushQueue",
        """mutation($w: String!, $p: String, $s: String) {
          flushQueue(workspace: $w, peer: $p, session: $s)
        }""",
        lambda s: {"w": s.name, "p": "alice", "s": "s1"},
        ALL_SCOPES,
        echoes=False,
    ),
    Case(
        "retryJobs",
        "mutation($w: String!, $ids: [ID!]) { retryJobs(workspace: $w, ids: $ids) }",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE),
        foreign=lambda asked, owner: {"w": asked.name, "ids": [owner.dead_job()]},
        foreign_answer={"retryJobs": 0},
        echoes=False,
    ),
    Case(
        "createKey",
        'mutation($w: String!) { createKey(scope: PEER, workspace: $w, peer: "alice") }',
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE),
        echoes=False,
    ),
    # Correcting and forgetting: after the other mutations, which they would disturb.
    Case(
        "editMessage",
        """mutation($w: String!, $id: ID!, $c: String!) {
          editMessage(workspace: $w, id: $id, content: $c) {
            message { id content } staleObservations reconcileDreams
          }
        }""",
        lambda s: {"w": s.name, "id": s.messages[("alice", "s1")], "c": f"{s.name} alice: hi"},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
        foreign=lambda asked, owner: {
            "w": asked.name,
            "id": owner.messages[("alice", "s1")],
            "c": "edited",
        },
    ),
    Case(
        "deleteMessages",
        """mutation($w: String!, $ids: [ID!]!) {
          deleteMessages(workspace: $w, ids: $ids) { ids staleObservations reconcileDreams }
        }""",
        lambda s: {"w": s.name, "ids": [s.messages[("alice", "s2")]]},
        only(KeyScope.WORKSPACE, KeyScope.PEER),
        foreign=lambda asked, owner: {"w": asked.name, "ids": [owner.messages[("alice", "s2")]]},
    ),
    Case(
        "deleteSession",
        """mutation($w: String!) {
          deleteSession(workspace: $w, session: "s2") { ids staleObservations }
        }""",
        lambda s: {"w": s.name},
        only(KeyScope.WORKSPACE),
    ),
    Case(
        "correctObservation",
        """mutation($w: String!, $id: ID!, $c: String!) {
          correctObservation(workspace: $w, id: $id, content: $c) {
            observation { id workspace content } replaced staleObservations
          }
        }""",
        lambda s: {"w": s.name, "id": s.observations["alice->bob"], "c": f"{s.name}: fixed"},
        only(KeyScope.WORKSPACE),
        foreign=lambda asked, owner: {
            "w": asked.name,
            "id": owner.observations["alice->bob"],
            "c": "fixed",
        },
    ),
    Case(
        "deleteObservation",
        """mutation($w: String!, $id: ID!) {
          deleteObservation(workspace: $w, id: $id) { ids staleObservations }
        }""",
        lambda s: {"w": s.name, "id": s.observations["bob->alice"]},
        only(KeyScope.WORKSPACE),
        foreign=lambda asked, owner: {"w": asked.name, "id": owner.observations["bob->alice"]},
    ),
    Case(
        "purgeMessages",
        """mutation($w: String!, $ids: [ID!]!) {
          purgeMessages(workspace: $w, ids: $ids) { messages observations { explicit } jobs }
        }""",
        lambda s: {"w": s.name, "ids": [s.messages[("bob", "s1")]]},
        only(KeyScope.WORKSPACE),
        foreign=lambda asked, owner: {"w": asked.name, "ids": [owner.messages[("bob", "s1")]]},
        echoes=False,
    ),
    Case(
        "renamePeer",
        """mutation($w: String!, $p: String!, $n: String!) {
          renamePeer(workspace: $w, peer: $p, newName: $n) { operation target }
        }""",
        lambda s: {"w": s.name, "p": s.own_peer, "n": f"{s.name}-renamed"},
        only(KeyScope.WORKSPACE),
    ),
    Case(
        "mergePeers",
        """mutation($w: String!, $sources: [String!]!) {
          mergePeers(workspace: $w, sources: $sources, target: "alice") { operation target }
        }""",
        lambda s: {"w": s.name, "sources": ["dora"]},
        only(KeyScope.WORKSPACE),
        echoes=False,
    ),
    Case(
        "splitPeer",
        """mutation($w: String!, $parts: [SplitPart!]!) {
          splitPeer(workspace: $w, peer: "bob", parts: $parts) { operation target }
        }""",
        lambda s: {"w": s.name, "parts": [{"child": f"{s.name}-bob-s2", "sessions": ["s2"]}]},
        only(KeyScope.WORKSPACE),
        echoes=False,
    ),
    Case(
        "purgePeer",
        """mutation($w: String!, $p: String!) {
          purgePeer(workspace: $w, peer: $p) { messages files cards peers }
        }""",
        lambda s: {"w": s.name, "p": "erin"},
        only(KeyScope.WORKSPACE),
        echoes=False,
    ),
    Case(
        "deleteWorkspace",
        "mutation($w: String!) { deleteWorkspace(name: $w) { deletedNodes } }",
        lambda s: {"w": s.name},
        only(),
        echoes=False,
    ),
]
CASE = {case.key: case for case in CASES}
# Fields that read no workspace data and need no key.
EXEMPT = {"Query.health", "Query.version"}

INTROSPECT = """
query {
  __schema {
    queryType { fields { name args { name } } }
    mutationType { fields { name args { name } } }
    subscriptionType { fields { name args { name } } }
  }
}"""


def schema_fields(services: Services) -> dict[str, set[str]]:
    """Every root field of the schema ("Query.peers", "Mutation.addMessages", ...) with the
    names of its arguments."""
    result = build_schema(services.settings).execute_sync(INTROSPECT)
    assert result.errors is None and result.data is not None, result.errors
    fields: dict[str, set[str]] = {}
    for root, kind in result.data["__schema"].items():
        name = root.removesuffix("Type").capitalize()
        for f in (kind or {}).get("fields") or []:
            fields[f"{name}.{f['name']}"] = {a["name"] for a in f["args"]}
    return fields


def error_code(body: dict[str, Any]) -> str | None:
    errors = body.get("errors")
    return str(errors[0]["extensions"]["code"]) if errors else None


def leaks(data: Any, other: Side) -> list[str]:
    text = json.dumps(data)
    return [secret for secret in other.secrets() if secret in text]


def shows(data: Any, side: Side) -> bool:
    text = json.dumps(data)
    return any(secret in text for secret in side.secrets())


# --- the table covers the schema ---------------------------------------------------------------


def test_every_schema_field_has_an_isolation_case(services: Services) -> None:
    fields = schema_fields(services)
    assert {"Query.workspace", "Mutation.addMessages"} <= set(fields)  # the introspection worked
    missing = sorted(set(fields) - set(CASE) - EXEMPT)
    assert missing == [], f"add a row to CASES in {__name__} for {missing}"
    stale = sorted(set(CASE) - set(fields))
    assert stale == [], f"CASES names fields the schema no longer has: {stale}"
    by_id = sorted(name for name, args in fields.items() if args & {"id", "ids"})
    assert by_id, "no field takes an id any more: is the introspection still right?"
    unchecked = [name for name in by_id if CASE[name].foreign is None]
    assert unchecked == [], f"give these id-taking fields a `foreign` case: {unchecked}"


# --- admin reads and writes in A never reach B -------------------------------------------------


async def test_no_query_shows_another_workspaces_data(api: Api, world: World) -> None:
    a, b = world.a, world.b
    problems = []
    for case in CASES:
        if case.is_mutation or case.admin_wide:
            continue
        variables = (case.widest or case.variables)(a)
        data = await api.ok(case.document, variables, key=ADMIN_KEY)
        if case.echoes and not shows(data, a):
            problems.append(f"{case.key}: the answer in A shows nothing of A: {data}")
        if case.counts and not case.counts(a, data):
            problems.append(f"{case.key}: the answer in A does not count A's data: {data}")
        if leaked := leaks(data, b):
            problems.append(f"{case.key}: the answer in A shows B's {leaked}")
    assert problems == []


async def test_ids_from_another_workspace_are_not_found(
    api: Api, secured: Services, world: World
) -> None:
    a, b = world.a, world.b
    cases = [case for case in CASES if case.foreign is not None]
    assert {case.key for case in cases} >= {"Query.message", "Query.observation"}
    before = await snapshot(secured, b.name)
    for case in cases:
        assert case.foreign is not None
        # Asked in A, B's id is unknown (or, for a list of ids, matches nothing) ...
        body = await api.raw(case.document, case.foreign(a, b), key=ADMIN_KEY)
        if isinstance(case.foreign_answer, str):
            assert error_code(body) == case.foreign_answer, (case.key, body)
        else:
            assert body == {"data": case.foreign_answer}, (case.key, body)
    assert await snapshot(secured, b.name) == before
    for case in cases:
        assert case.foreign is not None
        # ... while in B the same id answers.
        data = await api.ok(case.document, case.foreign(b, b), key=ADMIN_KEY)
        assert data != case.foreign_answer, case.key


async def test_mutations_in_one_workspace_leave_the_other_untouched(
    api: Api, secured: Services, world: World
) -> None:
    a, b = world.a, world.b
    before = await snapshot(secured, b.name)
    problems = []
    for case in CASES:
        if not case.is_mutation:
            continue
        data = await api.ok(case.document, case.variables(a), key=ADMIN_KEY)
        if case.echoes and not shows(data, a):
            problems.append(f"{case.key}: the answer in A shows nothing of A: {data}")
        if leaked := leaks(data, b):
            problems.append(f"{case.key}: the answer in A shows B's {leaked}")
    assert problems == []
    assert await snapshot(secured, b.name) == before
    # The last case deleted A: B still answers.
    workspace = await api.ok(CASE["Query.workspace"].document, {"w": b.name}, key=ADMIN_KEY)
    assert workspace["workspace"]["name"] == b.name


async def test_observation_detail_ignores_edges_into_another_workspace(
    api: Api, secured: Services, world: World
) -> None:
    """No statement may return B's data, even if a faulty write once linked A to B."""
    a, b = world.a, world.b
    await cypher(
        secured,
        """
        MATCH (o:Observation {id: $a_obs}), (p:Observation {id: $b_obs}), (m:Message {id: $b_msg})
        CREATE (o)-[:DERIVED_FROM]->(p), (o)-[:DERIVED_FROM {span: 'x'}]->(m),
               (p)-[:DERIVED_FROM]->(o)""",
        a_obs=a.observations["alice->bob"],
        b_obs=b.observations["bob->alice"],
        b_msg=b.messages[("alice", "s1")],
    )
    case = CASE["Query.observation"]
    data = await api.ok(case.document, case.variables(a), key=ADMIN_KEY)
    detail = data["observation"]
    assert leaks(detail, b) == []
    assert detail["premises"] == []
    # A's own links are still there: the source message and the deduction built on it.
    assert [s["message"]["id"] for s in detail["sources"]] == [a.messages[("bob", "s1")]]
    assert [d["id"] for d in detail["dependents"]] == [a.observations["alice->bob:deduction"]]


async def unseen(api: Api, document: str, variables: Vars, key: str) -> bool:
    """The key is answered for the id exactly as for an id that does not exist: FORBIDDEN
    told a narrow key which ids exist beyond its reach (probe G)."""
    real = await api.raw(document, variables, key=key)
    made_up = await api.raw(document, {**variables, "id": "no-such-id"}, key=key)
    said = [e["message"].replace(str(variables["id"]), "ID") for e in real["errors"]]
    expected = [e["message"].replace("no-such-id", "ID") for e in made_up["errors"]]
    return error_code(real) == error_code(made_up) == "NOT_FOUND" and said == expected


# --- keys -----------------------------------------------------------------------------------


@pytest.mark.parametrize("scope", list(KeyScope), ids=lambda s: s.value)
async def test_each_key_scope_reaches_only_what_it_may(
    api: Api, secured: Services, world: World, scope: KeyScope
) -> None:
    """A key of `scope` for A: FORBIDDEN on every field asked about B; in A, allowed exactly
    where the case says (FORBIDDEN elsewhere); and B is left as it was."""
    a, b = world.a, world.b
    key = a.key(scope)
    before = await snapshot(secured, b.name)
    problems = []
    for case in CASES:
        if scope is not KeyScope.ADMIN:
            body = await api.raw(case.document, case.variables(b), key=key)
            if error_code(body) != "FORBIDDEN":
                problems.append(f"{case.key} in B: expected FORBIDDEN, got {body}")
        body = await api.raw(case.document, case.variables(a), key=key)
        if scope in case.allowed:
            if body.get("errors"):
                problems.append(f"{case.key} in A: expected an answer, got {body['errors']}")
            elif not case.admin_wide and (leaked := leaks(body["data"], b)):
                problems.append(f"{case.key} in A: the answer shows B's {leaked}")
        elif error_code(body) != case.denied:
            problems.append(f"{case.key} in A: expected {case.denied}, got {body}")
    assert problems == []
    assert await snapshot(secured, b.name) == before


def tampered(key: str, **changes: str) -> str:
    """The key with its claims edited and its signature kept."""
    payload, signature = key.removeprefix("bgk_").split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims.update(changes)
    edited = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    return f"bgk_{edited}.{signature}"


async def test_without_a_valid_key_only_health_and_version_answer(
    api: Api, secured: Services, world: World
) -> None:
    a, b = world.a, world.b
    workspace_key = a.key(KeyScope.WORKSPACE)
    bad_keys = {
        "no key": None,
        "malformed": "not-a-key",
        "forged with another secret": issue_key(
            "another-secret-" + "y" * 30, Principal(KeyScope.ADMIN)
        ),
        "tampered workspace": tampered(workspace_key, w=b.name),
        "tampered scope": tampered(workspace_key, sc="admin"),
        "expired": issue_key(
            SECRET, Principal(KeyScope.ADMIN), ttl_seconds=60, now=time.time() - 3600
        ),
    }
    before = {side.name: await snapshot(secured, side.name) for side in (a, b)}
    problems = []
    for label, key in bad_keys.items():
        for case in CASES:
            body = await api.raw(case.document, case.variables(a), key=key)
            if error_code(body) != "UNAUTHENTICATED":
                problems.append(f"{label}: {case.key} gave {body}")
        health = await api.ok("query { health { ok } version }", key=key)
        assert health["health"]["ok"] is True
    assert problems == []
    assert {side.name: await snapshot(secured, side.name) for side in (a, b)} == before
    # The untampered key still works, so the failures above come from the edits.
    await api.ok(CASE["Query.peers"].document, {"w": a.name}, key=workspace_key)


MESSAGES = """
query($w: String!, $f: MessageFilterInput) {
  messages(workspace: $w, filter: $f, first: 100) { nodes { id peer session content } }
}"""
SEARCH = """
query($w: String!, $f: MessageFilterInput, $depth: Depth) {
  searchMessages(workspace: $w, query: "train late puppy", filter: $f, limit: 50, depth: $depth) {
    message { id peer session }
  }
}"""
OBSERVATIONS = """
query($w: String!, $observer: String!, $observed: String!, $depth: Depth) {
  observations(workspace: $w, observer: $observer, observed: $observed, depth: $depth) {
    nodes { id content }
  }
}"""
OBSERVATION = (
    "query($w: String!, $id: ID!) { observation(workspace: $w, id: $id) { observation { id } } }"
)
MESSAGE = "query($w: String!, $id: ID!) { message(workspace: $w, id: $id) { id peer } }"
PEER = "query($w: String!, $n: String!) { peer(workspace: $w, name: $n) { name metadata } }"
SESSIONS = """
query($w: String!, $p: String) { sessions(workspace: $w, peer: $p) { nodes { name } } }"""
SESSION_SUMMARIES = """
query($w: String!, $p: String, $first: Int! = 10) {
  sessions(workspace: $w, peer: $p) { nodes { name summaries(first: $first) { content } } }
}"""
UPDATE_PEER = """
mutation($w: String!, $n: String!, $m: JSON) {
  updatePeer(workspace: $w, name: $n, metadata: $m) { name metadata }
}"""


async def all_messages(api: Api, side: Side) -> list[dict[str, Any]]:
    data = await api.ok(MESSAGES, {"w": side.name}, key=ADMIN_KEY)
    nodes: list[dict[str, Any]] = data["messages"]["nodes"]
    return nodes


async def test_a_peer_key_acts_only_as_its_peer(api: Api, world: World, services: Services) -> None:
    a = world.a
    alice = a.key(KeyScope.PEER)
    w = a.name

    # Its own peer, not another one, nor the list of peers.
    assert (await api.ok(PEER, {"w": w, "n": "alice"}, key=alice))["peer"]["name"] == "alice"
    assert await api.error_code(PEER, {"w": w, "n": "bob"}, key=alice) == "FORBIDDEN"
    assert await api.error_code(CASE["Query.peers"].document, {"w": w}, key=alice) == "FORBIDDEN"

    # Its own messages only.
    mine = await api.ok(MESSAGES, {"w": w, "f": {"peer": "alice"}}, key=alice)
    assert {m["id"] for m in mine["messages"]["nodes"]} == {
        a.messages[("alice", "s1")],
        a.messages[("alice", "s2")],
    }
    for f in ({"peer": "bob"}, None, {"session": "s1"}):
        assert await api.error_code(MESSAGES, {"w": w, "f": f}, key=alice) == "FORBIDDEN", f
    found = await api.ok(SEARCH, {"w": w, "f": {"peer": "alice"}, "depth": 0}, key=alice)
    assert {h["message"]["peer"] for h in found["searchMessages"]} == {"alice"}
    # It reads down its tree: bob is alice's sub-peer, so a search of alice covers bob.
    found = await api.ok(SEARCH, {"w": w, "f": {"peer": "alice"}}, key=alice)
    assert {h["message"]["peer"] for h in found["searchMessages"]} == {"alice", "bob"}
    assert await api.error_code(SEARCH, {"w": w, "f": {"peer": "bob"}}, key=alice) == "FORBIDDEN"
    own_message = {"w": w, "id": a.messages[("alice", "s2")]}
    assert (await api.ok(MESSAGE, own_message, key=alice))["message"]["peer"] == "alice"
    # bob's, its sub-peer's, opens by id, as the search above lists it (it was NOT_FOUND); it
    # may not change it, and is told so, as it may read it.
    bobs = {"w": w, "id": a.messages[("bob", "s1")]}
    assert (await api.ok(MESSAGE, bobs, key=alice))["message"]["peer"] == "bob"
    edit = CASE["Mutation.editMessage"].document
    assert await api.error_code(edit, {**bobs, "c": "x"}, key=alice) == "FORBIDDEN"
    # A message of a peer outside its tree is unseen, as an id that does not exist; nor may it
    # act on it, told so in the same words (probe H: FORBIDDEN, naming the sender).
    said = [{"peer": a.own_peer, "content": "not alice's to see"}]
    added = await api.ok(ADD_MESSAGES, {"w": w, "s": "s1", "msgs": said}, key=ADMIN_KEY)
    others = {"w": w, "id": added["addMessages"]["messages"][0]["id"]}
    a.messages[(a.own_peer, "s1")] = others["id"]
    assert await unseen(api, MESSAGE, others, alice)
    assert await unseen(api, edit, {**others, "c": "x"}, alice)

    # Representations where it is the observer or the observed, no others.
    as_observer = await api.ok(
        OBSERVATIONS, {"w": w, "observer": "alice", "observed": "bob"}, key=alice
    )
    assert {o["id"] for o in as_observer["observations"]["nodes"]} == {
        a.observations["alice->bob"],
        a.observations["alice->bob:deduction"],
    }
    as_observed = await api.ok(
        OBSERVATIONS, {"w": w, "observer": "bob", "observed": "alice", "depth": 0}, key=alice
    )
    assert [o["id"] for o in as_observed["observations"]["nodes"]] == [a.observations["bob->alice"]]
    # Down its tree: bob's view of alice and of bob, alice's sub-peer.
    down = await api.ok(OBSERVATIONS, {"w": w, "observer": "bob", "observed": "alice"}, key=alice)
    assert {o["id"] for o in down["observations"]["nodes"]} == {
        a.observations["bob->alice"],
        a.observations["bob->bob"],
    }
    others = {"w": w, "observer": "bob", "observed": "bob"}
    assert await api.error_code(OBSERVATIONS, others, key=alice) == "FORBIDDEN"
    own_belief = {"w": w, "id": a.observations["bob->alice"]}
    await api.ok(OBSERVATION, own_belief, key=alice)
    # bob's view of itself opens by id, as the aggregated read above lists it.
    bobs_belief = {"w": w, "id": a.observations["bob->bob"]}
    got = await api.ok(OBSERVATION, bobs_belief, key=alice)
    assert got["observation"]["observation"]["id"] == a.observations["bob->bob"]
    outside = await add_observation(services, a, a.own_peer, a.own_peer, source=(a.own_peer, "s1"))
    assert await unseen(api, OBSERVATION, {"w": w, "id": outside}, alice)

    # It writes as alice, in any session, and never as bob (not even in a mixed batch).
    said = {"peer": "alice", "content": "alice again"}
    added = await api.ok(ADD_MESSAGES, {"w": w, "s": "s2", "msgs": [said]}, key=alice)
    assert added["addMessages"]["created"] == 1
    count = len(await all_messages(api, a))
    for batch in (
        [{"peer": "bob", "content": "I am bob"}],
        [said, {"peer": "bob", "content": "me"}],
    ):
        code = await api.error_code(ADD_MESSAGES, {"w": w, "s": "s1", "msgs": batch}, key=alice)
        assert code == "FORBIDDEN", batch
    assert len(await all_messages(api, a)) == count

    # It lists its sessions, not their summaries: one covers what arrived while it was away.
    listed = await api.ok(SESSIONS, {"w": w, "p": "alice"}, key=alice)
    assert {n["name"] for n in listed["sessions"]["nodes"]} == {"s1", "s2"}
    listing = {"w": w, "p": "alice"}
    assert await api.error_code(SESSION_SUMMARIES, listing, key=alice) == "FORBIDDEN"
    everything = {"w": w, "p": "alice", "first": 0}
    assert await api.error_code(SESSION_SUMMARIES, everything, key=ADMIN_KEY) == "INVALID_INPUT"

    # It may not learn which sessions exist by chatting in them: one that does not exist reads
    # as one it was never in (no evidence there); a workspace key is told.
    chat_in = """query($w: String!, $s: String) {
      chat(workspace: $w, peer: "alice", query: "where do I live", session: $s) { mode }
    }"""
    nowhere = {"w": w, "s": "no-such-session"}
    assert (await api.ok(chat_in, nowhere, key=alice))["chat"]["mode"]
    assert await api.error_code(chat_in, nowhere, key=ADMIN_KEY) == "NOT_FOUND"

    # It updates itself, not bob.
    await api.ok(UPDATE_PEER, {"w": w, "n": "alice", "m": {"mood": "happy"}}, key=alice)
    code = await api.error_code(UPDATE_PEER, {"w": w, "n": "bob", "m": {"hacked": True}}, key=alice)
    assert code == "FORBIDDEN"
    bob = await api.ok(PEER, {"w": w, "n": "bob"}, key=ADMIN_KEY)
    assert bob["peer"]["metadata"] == {"home": w}


async def test_a_sub_peer_key_cannot_read_up_its_tree(api: Api, world: World) -> None:
    """bob is alice's sub-peer: its key reads bob, never alice's aggregated views."""
    a = world.a
    bob = a.key(KeyScope.PEER, "bob")
    w = a.name
    mine = await api.ok(OBSERVATIONS, {"w": w, "observer": "alice", "observed": "bob"}, key=bob)
    assert {o["id"] for o in mine["observations"]["nodes"]} == {
        a.observations["alice->bob"],
        a.observations["alice->bob:deduction"],
    }
    up = {"w": w, "observer": "alice", "observed": "alice", "depth": "ALL"}
    assert await api.error_code(OBSERVATIONS, up, key=bob) == "FORBIDDEN"
    up_search = {"w": w, "f": {"peer": "alice"}, "depth": "ALL"}
    assert await api.error_code(SEARCH, up_search, key=bob) == "FORBIDDEN"
    for case in ("Query.searchObservations", "Query.context", "Query.chat"):
        document = CASE[case].document.replace('"bob"', '"alice"', 1)
        assert await api.error_code(document, {"w": w}, key=bob) == "FORBIDDEN", case
    # Its parents are named to it, not their records (the app's metadata and instructions).
    parents = 'query($w: String!) { parentPeers(workspace: $w, peer: "bob") { peer { name%s } } }'
    named = await api.ok(parents % "", {"w": w}, key=bob)
    assert [p["peer"]["name"] for p in named["parentPeers"]] == ["alice"]
    for name in ("metadata", "configuration", "extractionContext"):
        assert await api.error_code(parents % f" {name}", {"w": w}, key=bob) == "FORBIDDEN"
    own = 'query($w: String!) { peer(workspace: $w, name: "bob") { metadata configuration } }'
    assert (await api.ok(own, {"w": w}, key=bob))["peer"] is not None


async def test_a_session_key_acts_only_in_its_session(api: Api, world: World) -> None:
    a = world.a
    s1 = a.key(KeyScope.SESSION)
    w = a.name

    # Adds messages to s1 (as any peer of it), not to s2.
    said = [{"peer": "bob", "content": "bob in s1 via the session key"}]
    added = await api.ok(ADD_MESSAGES, {"w": w, "s": "s1", "msgs": said}, key=s1)
    assert added["addMessages"]["created"] == 1
    assert (
        await api.error_code(ADD_MESSAGES, {"w": w, "s": "s2", "msgs": said}, key=s1) == "FORBIDDEN"
    )
    assert [m["session"] for m in await all_messages(api, a)].count("s2") == 2

    # Lists and searches s1 only.
    listed = await api.ok(MESSAGES, {"w": w, "f": {"session": "s1"}}, key=s1)
    assert {m["session"] for m in listed["messages"]["nodes"]} == {"s1"}
    assert len(listed["messages"]["nodes"]) == 3
    found = await api.ok(SEARCH, {"w": w, "f": {"session": "s1"}}, key=s1)
    assert found["searchMessages"] and {
        h["message"]["session"] for h in found["searchMessages"]
    } == {"s1"}
    for f in ({"session": "s2"}, None, {"peer": "alice"}):
        assert await api.error_code(MESSAGES, {"w": w, "f": f}, key=s1) == "FORBIDDEN", f
        assert await api.error_code(SEARCH, {"w": w, "f": f}, key=s1) == "FORBIDDEN", f
    in_s2 = {"w": w, "id": a.messages[("alice", "s2")]}
    assert await unseen(api, MESSAGE, in_s2, s1)
    in_s1 = {"w": w, "id": a.messages[("alice", "s1")]}
    assert (await api.ok(MESSAGE, in_s1, key=s1))["message"]["id"] == in_s1["id"]

    # The session itself, not the other one.
    session = "query($w: String!, $n: String!) { session(workspace: $w, name: $n) { name } }"
    assert (await api.ok(session, {"w": w, "n": "s1"}, key=s1))["session"]["name"] == "s1"
    assert await api.error_code(session, {"w": w, "n": "s2"}, key=s1) == "FORBIDDEN"

    # It may close its session, not reopen it: a closed session may be one a workspace key
    # deleted (REST deletes by closing).
    active = """mutation($w: String!, $a: Boolean!) {
      updateSession(workspace: $w, name: "s1", active: $a) { active }
    }"""
    still = await api.ok(active, {"w": w, "a": True}, key=s1)  # an open one stays open
    assert still["updateSession"]["active"] is True
    closed = await api.ok(active, {"w": w, "a": False}, key=s1)
    assert closed["updateSession"]["active"] is False
    assert await api.error_code(active, {"w": w, "a": True}, key=s1) == "FORBIDDEN"
    assert (await api.ok(session, {"w": w, "n": "s1"}, key=s1))["session"]["name"] == "s1"
    reopened = await api.ok(active, {"w": w, "a": True}, key=a.key(KeyScope.WORKSPACE))
    assert reopened["updateSession"]["active"] is True


CLOSED_SESSION_CHANGES = {
    "metadata": 'updateSession(workspace: $w, name: "s1", metadata: {k: 1}) { name }',
    "context": 'updateSession(workspace: $w, name: "s1", context: "be brief") { name }',
    "peers added": 'addSessionPeers(workspace: $w, session: "s1", peers: [{peer: "alice"}]) '
    "{ peer }",
    "peers removed": 'removeSessionPeers(workspace: $w, session: "s1", peers: ["bob"]) { peer }',
    "peers set": 'setSessionPeers(workspace: $w, session: "s1", peers: [{peer: "bob"}]) { peer }',
    "created with peers": 'createSession(workspace: $w, name: "s1", peers: [{peer: "alice"}]) '
    "{ name }",
}


async def test_a_session_key_changes_nothing_of_its_closed_session(api: Api, world: World) -> None:
    """A closed session may be a deleted one (REST deletes by closing): its own key kept
    changing its metadata and members, where REST answered that the session was deleted."""
    a, w = world.a, world.a.name
    s1, whole = a.key(KeyScope.SESSION), a.key(KeyScope.WORKSPACE)
    state = """query($w: String!) {
      session(workspace: $w, name: "s1") { metadata context }
      sessionPeers(workspace: $w, session: "s1", includePast: true) { peer joinedAt leftAt }
    }"""
    before = await api.ok(state, {"w": w}, key=s1)
    close = (
        'mutation($w: String!) { updateSession(workspace: $w, name: "s1", active: false) '
        "{ active } }"
    )
    await api.ok(close, {"w": w}, key=whole)
    for case, change in CLOSED_SESSION_CHANGES.items():
        document = f"mutation($w: String!) {{ {change} }}"
        assert await api.error_code(document, {"w": w}, key=s1) == "CONFLICT", case
    assert await api.ok(state, {"w": w}, key=s1) == before
    assert (await api.ok(close, {"w": w}, key=s1))["updateSession"]["active"] is False
    # A workspace key still may.
    for case, change in CLOSED_SESSION_CHANGES.items():
        assert await api.ok(f"mutation($w: String!) {{ {change} }}", {"w": w}, key=whole), case


async def test_a_session_keys_reopen_waits_for_a_close_in_progress(api: Api, world: World) -> None:
    # A workspace key's REST delete closes the session; a session key's reopen that read the
    # session before the close committed brought the deleted session back once it did.
    w = world.a.name

    reopen = """mutation($w: String!) {
      updateSession(workspace: $w, name: "s1", active: true) { active }
    }"""
    key = world.a.key(KeyScope.SESSION)
    answer = await while_held(
        api.services, closing(w, "s1"), lambda: api.raw(reopen, {"w": w}, key)
    )
    assert [e["extensions"]["code"] for e in answer["errors"]] == ["FORBIDDEN"]
    session = 'query($w: String!) { session(workspace: $w, name: "s1") { active } }'
    assert (await api.ok(session, {"w": w}, key=key))["session"]["active"] is False


WORKSPACES = """
query($after: String) {
  workspaces(first: 100, after: $after) { nodes { name } pageInfo { endCursor hasNextPage } }
}"""
CREATE = "mutation($w: String!) { createWorkspace(name: $w) { name } }"
DELETE = "mutation($w: String!) { deleteWorkspace(name: $w) { deletedNodes } }"
GET_WORKSPACE = "query($w: String!) { workspace(name: $w) { name } }"


async def workspace_names(api: Api) -> set[str]:
    """Every workspace, page by page (other tests' workspaces are there too)."""
    names: set[str] = set()
    after = None
    while True:
        page = (await api.ok(WORKSPACES, {"after": after}, key=ADMIN_KEY))["workspaces"]
        names |= {w["name"] for w in page["nodes"]}
        if not page["pageInfo"]["hasNextPage"]:
            return names
        after = page["pageInfo"]["endCursor"]


SEARCH_AS = """
query($w: String!, $f: MessageFilterInput, $asker: String) {
  searchMessages(workspace: $w, query: "what did I adopt", filter: $f, asker: $asker) {
    message { id }
  }
}"""


async def test_a_narrow_key_searches_only_as_a_peer_it_may_act_for(api: Api, world: World) -> None:
    a, w = world.a, world.a.name
    whole = a.key(KeyScope.WORKSPACE)
    await api.ok(CREATE_PEER, {"w": w, "n": "carol"}, key=whole)  # in no session

    # A workspace key may search as any peer of its workspace; an unknown one, or a peer of
    # another workspace, is NOT_FOUND.
    await api.ok(SEARCH_AS, {"w": w, "asker": "carol"}, key=whole)
    for stranger in ("nobody", world.b.own_peer):
        assert await api.error_code(SEARCH_AS, {"w": w, "asker": stranger}, key=whole) == (
            "NOT_FOUND"
        )

    # A peer key only as its own peer; a session key only as a peer of its session. A peer
    # that does not exist gets the same answer as one out of reach.
    alice = {"w": w, "f": {"peer": "alice"}}
    await api.ok(SEARCH_AS, alice | {"asker": "alice"}, key=a.key(KeyScope.PEER))
    s1 = {"w": w, "f": {"session": "s1"}}
    await api.ok(SEARCH_AS, s1 | {"asker": "bob"}, key=a.key(KeyScope.SESSION))
    for asker in ("bob", "carol", "nobody"):
        code = await api.error_code(SEARCH_AS, alice | {"asker": asker}, key=a.key(KeyScope.PEER))
        assert code == "FORBIDDEN", asker
    for asker in ("carol", "nobody"):
        code = await api.error_code(SEARCH_AS, s1 | {"asker": asker}, key=a.key(KeyScope.SESSION))
        assert code == "FORBIDDEN", asker


async def test_only_admin_lists_creates_and_deletes_workspaces(api: Api, world: World) -> None:
    a = world.a
    fresh = f"t-new-{uuid.uuid4().hex[:10]}"
    for scope in (KeyScope.WORKSPACE, KeyScope.PEER, KeyScope.SESSION):
        key = a.key(scope)
        assert await api.error_code(WORKSPACES, key=key) == "FORBIDDEN", scope
        assert await api.error_code(CREATE, {"w": fresh}, key=key) == "FORBIDDEN", scope
        assert await api.error_code(DELETE, {"w": a.name}, key=key) == "FORBIDDEN", scope
    assert await api.error_code(GET_WORKSPACE, {"w": fresh}, key=ADMIN_KEY) == "NOT_FOUND"
    assert (await api.ok(GET_WORKSPACE, {"w": a.name}, key=ADMIN_KEY))["workspace"][
        "name"
    ] == a.name

    await api.ok(CREATE, {"w": fresh}, key=ADMIN_KEY)
    assert {fresh, a.name, world.b.name} <= await workspace_names(api)
    deleted = await api.ok(DELETE, {"w": fresh}, key=ADMIN_KEY)
    assert deleted["deleteWorkspace"]["deletedNodes"] == 1
    assert await api.error_code(GET_WORKSPACE, {"w": fresh}, key=ADMIN_KEY) == "NOT_FOUND"


CREATE_KEY = """
mutation($scope: KeyScope!, $w: String, $p: String, $s: String) {
  createKey(scope: $scope, workspace: $w, peer: $p, session: $s)
}"""


async def test_keys_are_issued_only_inside_the_issuers_workspace(api: Api, world: World) -> None:
    a, b = world.a, world.b
    workspace_key = a.key(KeyScope.WORKSPACE)
    issued = await api.ok(CREATE_KEY, {"scope": "PEER", "w": a.name, "p": "bob"}, key=workspace_key)
    bob = issued["createKey"]
    assert (await api.ok(PEER, {"w": a.name, "n": "bob"}, key=bob))["peer"]["name"] == "bob"
    assert await api.error_code(PEER, {"w": b.name, "n": "bob"}, key=bob) == "FORBIDDEN"
    assert await api.error_code(PEER, {"w": a.name, "n": "alice"}, key=bob) == "FORBIDDEN"

    refused = [
        ({"scope": "PEER", "w": b.name, "p": "bob"}, workspace_key),
        ({"scope": "SESSION", "w": b.name, "s": "s1"}, workspace_key),
        ({"scope": "WORKSPACE", "w": a.name}, workspace_key),
        ({"scope": "ADMIN"}, workspace_key),
        ({"scope": "PEER", "w": a.name, "p": "bob"}, a.key(KeyScope.PEER)),
        ({"scope": "SESSION", "w": a.name, "s": "s2"}, a.key(KeyScope.SESSION)),
    ]
    for variables, key in refused:
        assert await api.error_code(CREATE_KEY, variables, key=key) == "FORBIDDEN", variables
    # A key missing a name its scope needs is the request's fault, whoever asks (a workspace
    # key was told it could not access workspace '').
    for key in (workspace_key, ADMIN_KEY):
        code = await api.error_code(CREATE_KEY, {"scope": "PEER", "p": "bob"}, key=key)
        assert code == "INVALID_INPUT"
    # Keys for made-up names reached nothing but each counted as a socket holder of its own.
    for variables in ({"scope": "PEER", "w": a.name, "p": "ghost0"},
                      {"scope": "SESSION", "w": a.name, "s": "ghost-session"}):  # fmt: skip
        assert await api.error_code(CREATE_KEY, variables, key=workspace_key) == "NOT_FOUND"


async def test_a_key_that_expires_issues_keys_that_expire_no_later(api: Api, world: World) -> None:
    """An admin key issued for a minute issued admin keys that never expired."""
    short = issue_key(SECRET, Principal(KeyScope.ADMIN), ttl_seconds=60)
    for ttl in (None, 3600, 30):
        issued = await api.ok(
            "mutation($t: Int) { createKey(scope: ADMIN, ttlSeconds: $t) }", {"t": ttl}, key=short
        )
        expires = verify_key(SECRET, issued["createKey"]).expires
        assert expires is not None and expires <= time.time() + (ttl or 60) + 1, ttl
        assert expires <= verify_key(SECRET, short).expires + 1  # type: ignore[operator]
    lasting = await api.ok("mutation { createKey(scope: ADMIN) }", key=ADMIN_KEY)
    assert verify_key(SECRET, lasting["createKey"]).expires is None


async def test_a_peer_key_reads_files_down_its_tree_and_never_up(api: Api, world: World) -> None:
    a = world.a
    alice = a.key(KeyScope.PEER)
    bob = issue_key(SECRET, Principal(KeyScope.PEER, workspace=a.name, peer="bob"))
    search = CASE["Query.searchFiles"]
    found = await api.ok(search.document, search.variables(a), key=alice)
    assert {h["peer"] for h in found["searchFiles"]} == {"alice", "bob"}
    # bob is alice's sub-peer: his key reads his own files, none of hers.
    own = {"w": a.name, "p": "bob", "path": "notes.md"}
    read = "query($w: String!, $p: String!, $path: String!) { file(workspace: $w, peer: $p, path: $path) { peer } }"  # noqa: E501
    assert (await api.ok(read, own, key=bob))["file"]["peer"] == "bob"
    for case in (
        "Query.file",
        "Query.files",
        "Query.searchFiles",
        "Mutation.createFile",
        "Mutation.updateFile",
        "Mutation.deleteFile",
    ):
        body = await api.raw(CASE[case].document, CASE[case].variables(a), key=bob)
        assert error_code(body) == "FORBIDDEN", (case, body)
