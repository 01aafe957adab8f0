"""A benchmark conversation into its own workspace through the public GraphQL API.

The harness talks to beliefgraph as an app would: over HTTP (in process, through
``httpx.ASGITransport``), with get-or-create mutations and ``clientId``s, so ingesting the same
conversation again stores nothing new and a crashed run can simply be started again.

Mapping:

- workspace: one per conversation (LongMemEval: one per question), named from the dataset,
  the conversation id and a fingerprint of its content, so a changed file never reuses stale
  data;
- peers: the speakers (``user`` / ``assistant`` for LongMemEval and BEAM, the two names for
  LoCoMo);
- sessions: one per dataset session, with the speakers that talk in it as members, whose
  observation settings keep exactly the representations the benchmark's app reads
  (:func:`app_views`);
- messages: one per turn, ``createdAt`` = the turn's (session's) date, ``clientId`` and
  ``metadata.turn_id`` = the dataset's turn id, which is how rankings map back to turns.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx

from tests.bench.loaders import Conversation, SessionRecord, Turn

NAME_LIMIT = 100  # graph.validation: names are 1-100 of letters, digits and _ . : @ -
_NAME_BAD = re.compile(r"[^A-Za-z0-9_.:@-]+")


class GraphQLError(RuntimeError):
    """A GraphQL answer with errors; ``code`` is the first error's ``extensions.code``."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class Api:
    """GraphQL over HTTP, as an app would call it; raises :class:`GraphQLError` on errors."""

    def __init__(self, http: httpx.AsyncClient, key: str | None = None) -> None:
        self.http = http
        self.key = key
        self._roots: dict[str, dict[str, Any]] | None = None

    async def call(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self.key}"} if self.key else {}
        response = await self.http.post(
            "/graphql", json={"query": query, "variables": variables or {}}, headers=headers
        )
        try:
            body: dict[str, Any] = response.json()
        except ValueError as exc:
            raise GraphQLError(f"HTTP {response.status_code}: {response.text[:300]}") from exc
        errors = body.get("errors")
        if errors:
            first = errors[0]
            code = (first.get("extensions") or {}).get("code")
            raise GraphQLError(f"{first.get('message')} [{code}]", code)
        data: dict[str, Any] = body["data"]
        return data

    async def root_fields(self) -> dict[str, dict[str, Any]]:
        """``{"query": {field: introspection}, "mutation": {...}}``, read once per client.

        The readers use it to tell whether the dialectic and context fields exist yet and
        what their arguments' types are.
        """
        if self._roots is None:
            data = await self.call(INTROSPECT_ROOTS)
            schema = data["__schema"]
            self._roots = {}
            for root, key in (("query", "queryType"), ("mutation", "mutationType")):
                fields = (schema.get(key) or {}).get("fields") or []
                self._roots[root] = {f["name"]: f for f in fields}
        return self._roots

    async def type_fields(self, name: str) -> list[dict[str, Any]]:
        data = await self.call(INTROSPECT_TYPE, {"name": name})
        kind = data.get("__type") or {}
        fields: list[dict[str, Any]] = kind.get("fields") or []
        return fields

    async def enum_values(self, name: str) -> list[str]:
        data = await self.call(INTROSPECT_TYPE, {"name": name})
        kind = data.get("__type") or {}
        return [v["name"] for v in kind.get("enumValues") or []]


_TYPE_REF = "kind name ofType { kind name ofType { kind name ofType { kind name } } }"
_ROOT_FIELDS = f"fields {{ name args {{ name type {{ {_TYPE_REF} }} }} type {{ {_TYPE_REF} }} }}"
INTROSPECT_ROOTS = (
    f"query {{ __schema {{ queryType {{ {_ROOT_FIELDS} }} mutationType {{ {_ROOT_FIELDS} }} }} }}"
)
INTROSPECT_TYPE = (
    "query($name: String!) { __type(name: $name) { name kind enumValues { name } "
    f"fields {{ name type {{ {_TYPE_REF} }} }} }} }}"
)


def type_signature(ref: dict[str, Any]) -> str:
    """An introspected type reference as GraphQL spells it (``[String!]!``)."""
    kind = ref["kind"]
    if kind == "NON_NULL":
        return type_signature(ref["ofType"]) + "!"
    if kind == "LIST":
        return "[" + type_signature(ref["ofType"]) + "]"
    return str(ref["name"])


def named_type(ref: dict[str, Any]) -> tuple[str, str]:
    """(kind, name) of the innermost named type of a reference."""
    while ref.get("ofType") is not None and ref["kind"] in ("NON_NULL", "LIST"):
        ref = ref["ofType"]
    return str(ref["kind"]), str(ref["name"])


# -- names ---------------------------------------------------------------------------------


def safe_name(raw: str, *, limit: int = NAME_LIMIT) -> str:
    """A valid beliefgraph name for ``raw``: invalid runs become ``-``; a name that had to
    change or be cut gets a short hash of the original, so two raw ids never collide."""
    cleaned = _NAME_BAD.sub("-", raw).strip("-") or "x"
    if cleaned == raw and len(raw) <= limit:
        return raw
    digest = hashlib.sha1(raw.encode("utf-8")).hexdigest()[:8]
    return f"{cleaned[: limit - 9]}.{digest}"


def conversation_fingerprint(conversation: Conversation) -> str:
    """Hash of everything ingested, so a changed dataset file gets a fresh workspace."""
    digest = hashlib.sha1()
    for turn in conversation.turns():
        for part in (turn.id, turn.session_id, turn.speaker, turn.created_at or "", turn.content):
            digest.update(part.encode("utf-8"))
            digest.update(b"\x00")
    return digest.hexdigest()[:10]


def workspace_name(dataset: str, conversation: Conversation, prefix: str = "bm") -> str:
    prefix = f"{prefix}-{dataset}-"
    suffix = f"-{conversation_fingerprint(conversation)}"
    body = safe_name(conversation.id, limit=NAME_LIMIT - len(prefix) - len(suffix))
    return prefix + body + suffix


View = tuple[str, str]  # (observer, observed), as dataset speaker names


def app_views(dataset: str, conversation: Conversation) -> list[View]:
    """The representations an app built on the service would read for this benchmark.

    LongMemEval and BEAM are assistant-and-user chats: the assistant is the agent, so it keeps
    a model of the user and of itself (what it said), and the user keeps none. LoCoMo is two
    people talking, and questions may be about either: each keeps its own self-model. Deriving
    only these (rather than every observer-observed pair) halves the deriver's writes without
    hiding any fact from the views that are read.
    """
    speakers = list(peer_names(conversation))
    if dataset in ("longmemeval", "beam") and {"user", "assistant"} <= set(speakers):
        return [("assistant", "user"), ("assistant", "assistant")]
    return [(speaker, speaker) for speaker in speakers]


def membership(views: Sequence[View], speaker: str) -> dict[str, bool]:
    """Session-peer settings that make the deriver's routing produce exactly ``views``.

    Routing sends a peer's facts to (sender, sender) when its observeMe is on, and to
    (other, sender) for each present peer whose observeOthers is on.
    """
    return {
        "observeMe": (speaker, speaker) in views,
        "observeOthers": any(o == speaker and o != d for o, d in views),
    }


def turn_client_id(turn: Turn) -> str:
    # Turn ids are unique within a conversation, and clientIds are unique per workspace.
    return "turn:" + turn.id


def iso_date(value: str | None) -> str | None:
    """The loader's ISO date, or None when the dataset's date did not parse (kept raw)."""
    if value is None:
        return None
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return None
    return value


# -- ingestion -----------------------------------------------------------------------------

CREATE_WORKSPACE = """
mutation($name: String!, $metadata: JSON) {
  createWorkspace(name: $name, metadata: $metadata) { name }
}"""
CREATE_PEER = """
mutation($w: String!, $name: String!) { createPeer(workspace: $w, name: $name) { name } }"""
CREATE_SESSION = """
mutation($w: String!, $name: String!, $metadata: JSON, $peers: [SessionPeerInput!]) {
  createSession(workspace: $w, name: $name, metadata: $metadata, peers: $peers) { name }
}"""
ADD_MESSAGES = """
mutation($w: String!, $s: String!, $messages: [MessageInput!]!) {
  addMessages(workspace: $w, session: $s, messages: $messages) {
    created messages { id clientId }
  }
}"""
FLUSH = "mutation($w: String!) { flushQueue(workspace: $w) }"
QUEUE_STATUS = """
query($w: String!) { queueStatus(workspace: $w) { pending running done dead idle } }"""
DELETE_WORKSPACE = "mutation($name: String!) { deleteWorkspace(name: $name) { deletedNodes } }"


@dataclass
class Ingested:
    """A conversation as stored: where, and how messages map back to turns."""

    workspace: str
    peer_of: dict[str, str]  # speaker -> peer name
    session_of: dict[str, str]  # dataset session id -> session name
    message_to_turn: dict[str, str] = field(default_factory=dict)
    created: int = 0  # messages new in this run (0 when a previous run stored them all)
    skipped: list[str] = field(default_factory=list)  # turn ids not sent (empty content)
    truncated: list[str] = field(default_factory=list)  # turn ids cut to the size limit

    @property
    def turn_to_message(self) -> dict[str, str]:
        return {turn: message for message, turn in self.message_to_turn.items()}


def message_inputs(
    session: SessionRecord, peer_of: dict[str, str], max_chars: int
) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """The addMessages items of one session, plus the turn ids skipped and truncated.

    Empty turns are skipped (the API refuses them, and they cannot be evidence); overlong ones
    are cut to the API's limit rather than failing the whole session.
    """
    items: list[dict[str, Any]] = []
    skipped: list[str] = []
    truncated: list[str] = []
    for turn in session.turns:
        content = stored_text(turn, max_chars)
        if content is None:
            skipped.append(turn.id)
            continue
        if content != turn.content:
            truncated.append(turn.id)
        items.append(
            {
                "peer": peer_of[turn.speaker],
                "content": content,
                "createdAt": iso_date(turn.created_at or session.date),
                "clientId": turn_client_id(turn),
                "metadata": {"turn_id": turn.id, "session_id": turn.session_id},
            }
        )
    return items, skipped, truncated


def stored_text(turn: Turn, max_chars: int) -> str | None:
    """The content the service stores for a turn: None when empty, cut at the size limit."""
    if not turn.content.strip():
        return None
    return turn.content[:max_chars]


def batches(items: Sequence[dict[str, Any]], size: int) -> list[list[dict[str, Any]]]:
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


async def ingest_conversation(
    api: Api,
    dataset: str,
    conversation: Conversation,
    *,
    max_batch: int = 100,
    max_chars: int = 25_000,
    concurrency: int = 4,
    views: Sequence[View] | None = None,
    prefix: str = "bm",
) -> Ingested:
    """Create the workspace, peers and sessions, and send every turn (idempotent).

    ``views`` sets who observes whom (see :func:`membership`); None: everyone observes
    everyone, the API's default.
    """
    workspace = workspace_name(dataset, conversation, prefix)
    await api.call(
        CREATE_WORKSPACE,
        {
            "name": workspace,
            "metadata": {"bench": "memory", "dataset": dataset, "conversation": conversation.id},
        },
    )
    peer_of = peer_names(conversation)
    for peer in peer_of.values():
        await api.call(CREATE_PEER, {"w": workspace, "name": peer})
    session_of = _unique_names([s.id for s in conversation.sessions])
    done = Ingested(workspace, peer_of, session_of)

    def settings(speaker: str) -> dict[str, bool]:
        if views is None:
            return {"observeMe": True, "observeOthers": True}
        return membership(views, speaker)

    gate = asyncio.Semaphore(max(1, concurrency))

    # The peers that keep a view of others sit in every session, as an agent is present in
    # every chat of its app, even one where it never speaks; without it there, that session's
    # facts would reach no view.
    watchers = [o for o, d in views or () if o != d]

    async def send(session: SessionRecord) -> None:
        present = list(dict.fromkeys([*(t.speaker for t in session.turns), *watchers]))
        name = session_of[session.id]
        items, skipped, truncated = message_inputs(session, peer_of, max_chars)
        async with gate:
            await api.call(
                CREATE_SESSION,
                {
                    "w": workspace,
                    "name": name,
                    "metadata": {"session_id": session.id, "date": session.date},
                    "peers": [
                        {"peer": peer_of[speaker], **settings(speaker)} for speaker in present
                    ],
                },
            )
            for batch in batches(items, max_batch):
                data = await api.call(ADD_MESSAGES, {"w": workspace, "s": name, "messages": batch})
                result = data["addMessages"]
                done.created += int(result["created"])
                for message in result["messages"]:
                    done.message_to_turn[message["id"]] = message["clientId"].removeprefix("turn:")
        done.skipped += skipped
        done.truncated += truncated

    # Sessions are independent (each has its own message order), so several go at once: the
    # round trips and commits of one overlap with the others'.
    await asyncio.gather(*(send(session) for session in conversation.sessions))
    return done


def peer_names(conversation: Conversation) -> dict[str, str]:
    """Speaker -> peer name: the declared speakers first, then anyone else who talks."""
    speakers = list(conversation.speakers)
    for turn in conversation.turns():
        if turn.speaker not in speakers:
            speakers.append(turn.speaker)
    return _unique_names(speakers)


def _unique_names(raws: Sequence[str]) -> dict[str, str]:
    names: dict[str, str] = {}
    taken: set[str] = set()
    for raw in raws:
        name = safe_name(raw)
        while name in taken:  # two raw ids that clean to the same name (after hashing: rare)
            name = safe_name(name + "#")
        taken.add(name)
        names[raw] = name
    return names


@dataclass(frozen=True)
class QueueOutcome:
    done: int
    dead: int
    units: int
    rounds: int


async def settle_queue(
    api: Api,
    workspace: str,
    drain: Callable[[], Awaitable[int]],
    *,
    wait: Callable[[float], Awaitable[None]],
    max_rounds: int = 50,
    poll_seconds: float = 1.0,
) -> QueueOutcome:
    """flushQueue, then run the worker until queueStatus says the workspace is idle.

    A failed job waits for its backoff and stays pending, so one drain is not always enough:
    poll until idle, and give up (raise) after ``max_rounds`` so a stuck job cannot hang a run.
    """
    await api.call(FLUSH, {"w": workspace})
    units = 0
    for rounds in range(1, max_rounds + 1):
        units += await drain()
        status = (await api.call(QUEUE_STATUS, {"w": workspace}))["queueStatus"]
        if status["idle"]:
            return QueueOutcome(int(status["done"]), int(status["dead"]), units, rounds)
        await wait(poll_seconds)
    raise RuntimeError(f"queue of {workspace} still busy after {max_rounds} rounds: {status}")


async def delete_workspace(api: Api, workspace: str) -> int:
    data = await api.call(DELETE_WORKSPACE, {"name": workspace})
    return int(data["deleteWorkspace"]["deletedNodes"])


async def delete_leftover(api: Api, workspace: str) -> int:
    """Delete the workspace if an earlier run left it (with --keep, or interrupted); 0 when
    there is none. Ingestion is idempotent, so a run would otherwise reuse what another run's
    code derived, and time an ingestion and a drain that did nothing."""
    try:
        return await delete_workspace(api, workspace)
    except GraphQLError as exc:
        if exc.code == "NOT_FOUND":
            return 0
        raise
