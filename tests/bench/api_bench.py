"""API benchmark: addMessages throughput and message search latency, each against a baseline
measured in the same run (ratios hold across machines; absolute times do not).

- addMessages: batches of messages through ``reasoners.ingest.add_messages`` (validation,
  embedding, one write transaction), interleaved per batch with the same batch embedded alone,
  stored by ``graph.repo.messages.create`` with those vectors, and inserted raw with one
  ``UNWIND`` statement (``tests/cypher/bench_insert_messages.cypher``) with those vectors.
- search: ``reasoners.search.search_messages`` over one workspace grown to two sizes, in four
  scopes (workspace, a session, a peer, a small session), interleaved per query with an exact
  brute-force cosine in numpy over the same vectors (query embedding included in both).
- search, ``--synthetic``: the same workspace filled in bulk with seeded vectors instead of model
  embeddings (so a million messages load in minutes, not hours), over Zipf-sized sessions and
  peers; recall@10 and latency per scope kind and size bucket against the exact Cypher scan
  (tests/bench/api_synthetic.py). ``--skip-ingest`` leaves out the addMessages part.

Run: ``python -m tests.bench.api_bench --sizes 2000,5000`` or
``python -m tests.bench.api_bench --synthetic --skip-ingest --sizes 10000,100000,1000000``.
Writes its section of ``docs/BENCHMARKS.md`` (between the ``bench:<--section>`` markers, default
``api``) and a JSON file.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import shlex
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from graph import models
from graph.db import Database
from graph.errors import NotFound
from graph.keys import peer_key, session_key, workspace_key
from graph.props import Meta, node_props
from graph.repo import message_search as search_repo
from graph.repo import messages as messages_repo
from graph.repo import peers, sessions, workspaces
from graph.repo.messages import MessageFilter
from graph.repo.retrieval import MESSAGES
from graph.settings import Settings
from reasoners.embeddings.model import Embedder, embed_async
from reasoners.embeddings.tokens import TokenCounter
from reasoners.ingest.messages import MessageInput, add_messages
from reasoners.search.hybrid import pool_size
from reasoners.search.messages import search_messages
from reasoners.search.warmup import Neo4jWarmup, warm_up
from resolvers.runtime import close_services, open_services
from resolvers.services import Services
from tests import statements
from tests.bench.api_synthetic import WARMUP_QUERIES as SYNTHETIC_WARMUP
from tests.bench.api_synthetic import render_search, run_synthetic
from tests.bench.common import (
    DOCS,
    add_instance_args,
    machine,
    neo4j_from_args,
    pct,
    table,
    timed,
    write_section,
)
from tests.bench.synthetic import PrimedEmbedder, scope_sizes

Matrix = npt.NDArray[np.float32]
Indices = npt.NDArray[np.intp]

BENCH_INSTANCE = "bench"
BENCH_BOLT_PORT = 37687
BENCH_HTTP_PORT = 37474
JSON_LIMIT = 16384
FILL_EMBED_CHUNK = 2000
FILL_INSERT_CHUNK = 1000
SESSION_SIZE = 1000  # messages per session in the search corpus
SMALL_SESSION = "small"
SMALL_SESSION_SIZE = 25
NOISE_STD = 0.01  # per dimension, for reused vectors in pool mode (cosine to source ~0.98)
WARMUP_QUERIES = 5
BIG_CORPUS = 200_000  # a synthetic workspace above this many messages is left in place

# -- deterministic conversation text ---------------------------------------------------------

# fmt: off
VOCAB: dict[str, tuple[str, ...]] = {
    "person": ("Sarah", "my brother", "Priya", "Tom", "my manager", "Grandma", "Luis", "Mei",
        "the landlord", "Dr. Okafor", "my roommate", "Jonas", "Aunt Rita", "Kenji"),
    "activity": ("hiking", "to the farmers market", "bouldering", "to a jazz concert", "kayaking",
        "to the dentist", "birdwatching", "to a pottery class", "running along the river",
        "to the new ramen place", "camping", "to IKEA"),
    "when": ("yesterday", "last weekend", "on Sunday", "this morning", "two weeks ago",
        "last night", "over the holidays", "on my lunch break", "in March"),
    "when_future": ("next month", "this Friday", "in the spring", "after the wedding",
        "in two weeks", "next summer", "before Christmas", "on the 14th"),
    "feeling": ("exhausting but fun", "really relaxing", "a bit stressful", "amazing",
        "kind of boring", "surprisingly emotional", "way too crowded", "perfect"),
    "mood": ("anxious", "excited", "burned out", "hopeful", "overwhelmed", "curious",
        "frustrated", "proud"),
    "topic": ("the budget", "the kitchen renovation", "my sleep schedule", "the quarterly report",
        "learning to cook", "the move", "my knee injury", "the new job offer",
        "saving for a house", "the garden", "our vacation plans", "the car repair"),
    "city": ("Lisbon", "Kyoto", "Denver", "Montreal", "Edinburgh", "Oaxaca", "Seoul", "Cape Town",
        "Portland", "Vienna"),
    "relation": ("sister", "best friend", "cousin", "dad", "old coworker", "neighbor"),
    "goal": ("run a half marathon", "read twelve books", "pay off my credit card",
        "learn basic Spanish", "cut back on coffee", "finish the quilt",
        "get my driver's license", "fix the leaky faucet"),
    "deadline": ("the end of the year", "my birthday", "June", "the trip", "the audit",
        "graduation"),
    "choice": ("take the job in Berlin", "stay at my current team", "adopt a dog",
        "buy a used car", "go back to school", "rent a bigger apartment"),
    "thing": ("a standing desk", "the Pomodoro technique", "a sourdough starter",
        "noise-cancelling headphones", "a meal-prep service", "an e-reader", "a budgeting app",
        "a foam roller"),
    "purpose": ("my back pain", "focusing at work", "weekend baking", "long flights",
        "eating healthier", "commuting"),
    "task": ("the tax forms", "painting the bedroom", "my thesis draft", "the photo album",
        "the grant application", "cleaning out the garage", "the slide deck"),
    "category": ("book", "movie", "board game", "podcast", "dessert", "hiking trail", "band"),
    "favorite": ("book is The Left Hand of Darkness", "movie is Spirited Away",
        "board game is Wingspan", "podcast is a history podcast", "dessert is lemon tart",
        "hiking trail is the ridge loop near the reservoir", "band is Khruangbin"),
    "item": ("a new laptop", "running shoes", "a cast-iron pan", "concert tickets", "a gift card",
        "a winter coat", "a plant stand", "a bike helmet"),
    "meeting": ("dentist appointment", "performance review", "parent-teacher meeting",
        "team offsite", "apartment viewing", "physical therapy session"),
    "day": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"),
    "time": ("9am", "noon", "3:30pm", "6pm", "10:15am"),
    "skill": ("the guitar", "watercolor painting", "Python", "Japanese", "chess", "salsa"),
    "freq": ("every morning", "twice a week", "on weekends", "whenever I can", "daily"),
    "allergen": ("peanuts", "shellfish", "penicillin", "cats", "pollen", "gluten"),
    "amount": ("$40", "$120", "$300", "almost $900", "$15", "$65"),
    "adj": ("great", "tough", "exciting", "a lot to handle", "lovely", "worth it"),
}
# fmt: on

USER_TEMPLATES: tuple[str, ...] = (
    "I went {activity} with {person} {when} and it was {feeling}.",
    "Can you remind me what {person} said about {topic}?",
    "My {relation} is moving to {city} {when_future}.",
    "I'm trying to {goal} before {deadline}.",
    "Do you think I should {choice} or {choice2}?",
    "{person} recommended {thing} for {purpose}. Have you heard of it?",
    "I finally finished {task} {when}.",
    "We're planning a trip to {city} {when_future}; any tips about {topic}?",
    "I've been feeling {mood} about {topic} lately.",
    "My favorite {favorite}, I can't get enough of it.",
    "I need to buy {item} for {person} {when_future}.",
    "The {meeting} got moved to {day} at {time}.",
    "I started learning {skill} {when} and I practice {freq}.",
    "Please remember that I'm allergic to {allergen}.",
    "I spent {amount} on {item} {when}. Was that too much?",
    "{person} and I argued about {topic} {when}, and I'm still {mood}.",
    "Honestly {topic} is the thing keeping me up at night.",
    "Quick update: {task} is done, and {person} loved it.",
)
ASSISTANT_TEMPLATES: tuple[str, ...] = (
    "That sounds {adj}! How did {person} feel about {topic}?",
    "Here's a plan: start with {task}, then {task2}, and leave {topic} for {day}.",
    "Noted: you're allergic to {allergen}, so I'll keep that in mind for {purpose}.",
    "For {city}, people often recommend {thing} and visiting {when_future}.",
    "It makes sense to feel {mood} about {topic}; want to break it into smaller steps?",
    "You mentioned {person} suggested {thing}. Did it help with {purpose}?",
    "A reminder: your {meeting} is on {day} at {time}.",
    "Practicing {skill} {freq} is a great way to {goal}.",
    "If {amount} fits your budget for {item}, it sounds reasonable.",
)
QUESTION_TEMPLATES: tuple[str, ...] = (
    "what did {person} say about {topic}",
    "when is the trip to {city}",
    "am I allergic to {allergen}",
    "how much did I spend on {item}",
    "when did I start learning {skill}",
    "who recommended {thing}",
    "when is my {meeting}",
    "what is my favorite {category}",
    "how am I feeling about {topic}",
    "what did I do with {person} {when}",
    "is my {relation} moving to {city}",
    "what is my plan to {goal}",
)


class _Slots(dict[str, str]):
    """Fills `{slot}` / `{slot2}` placeholders with random vocabulary, lazily."""

    def __init__(self, rng: random.Random) -> None:
        super().__init__()
        self._rng = rng

    def __missing__(self, key: str) -> str:
        value = self._rng.choice(VOCAB[key.rstrip("0123456789")])
        self[key] = value
        return value


OPENERS: tuple[str, ...] = (
    "",
    "",
    "",
    "Also, ",
    "By the way, ",
    "Okay so ",
    "Hmm, ",
    "Oh, and ",
    "Honestly, ",
    "Quick one: ",
    "Anyway, ",
    "Ugh, ",
    "Random thought: ",
    "So ",
    "Well, ",
)
CLOSERS: tuple[str, ...] = (
    "",
    "",
    "",
    " Thoughts?",
    " Anyway.",
    " Just so you know.",
    " Ha.",
    " Not sure yet.",
    " We'll see.",
    " Let me know.",
    " Long story.",
    " More on that later.",
    " Fingers crossed.",
)


def sentence(rng: random.Random, templates: Sequence[str], *, chatty: bool = True) -> str:
    text = rng.choice(templates).format_map(_Slots(rng))
    if not chatty:
        return text
    opener = rng.choice(OPENERS)
    if opener and text[:2] != "I " and not text.startswith("I'"):
        text = text[0].lower() + text[1:]
    return opener + text + rng.choice(CLOSERS)


def questions(seed: int, count: int) -> list[str]:
    rng = random.Random(seed * 7919 + 1)
    return [sentence(rng, QUESTION_TEMPLATES, chatty=False) for _ in range(count)]


@dataclass(frozen=True)
class Line:
    peer: str
    content: str


class Conversation:
    """An endless deterministic stream of chat lines with a speaker mix.

    Search corpus mix: `assistant` ~35%, `alice` ~30%, 18 other users share ~35%.
    """

    OTHERS = tuple(f"user{i:02d}" for i in range(18))

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def peer(self) -> str:
        roll = self._rng.random()
        if roll < 0.35:
            return "assistant"
        if roll < 0.65:
            return "alice"
        return self._rng.choice(self.OTHERS)

    def line(self, peer: str | None = None) -> Line:
        who = peer or self.peer()
        templates = ASSISTANT_TEMPLATES if who == "assistant" else USER_TEMPLATES
        return Line(who, sentence(self._rng, templates))

    @classmethod
    def peers(cls) -> list[str]:
        return ["assistant", "alice", *cls.OTHERS]


# -- measurement helpers ---------------------------------------------------------------------


@dataclass
class Bench:
    services: Services
    args: argparse.Namespace
    run_id: str
    created_workspaces: list[str] = field(default_factory=list)
    embed_seconds: float = 0.0
    embed_sentences: int = 0
    loads: list[tuple[str, float]] = field(default_factory=list)

    def sample_load(self, when: str) -> None:
        """Other processes share the machine: record the 1-minute load at each phase."""
        self.loads.append((when, os.getloadavg()[0]))

    @property
    def db(self) -> Database:
        return self.services.db

    @property
    def embedder(self) -> Embedder:
        return self.services.embedder

    @property
    def tokens(self) -> TokenCounter:
        return self.services.tokens

    async def embed(self, texts: Sequence[str]) -> tuple[float, list[list[float]]]:
        seconds, vectors = await timed(embed_async(self.embedder, texts))
        self.embed_seconds += seconds
        self.embed_sentences += len(texts)
        return seconds, vectors

    @property
    def embed_rate(self) -> float:
        return self.embed_sentences / self.embed_seconds if self.embed_seconds else 0.0

    async def workspace(self, tag: str, peer_names: Sequence[str]) -> str:
        name = f"bench-api-{self.run_id}-{tag}"
        await workspaces.get_or_create(
            self.db, name, Meta.of({"bench": "api"}, None, limit=JSON_LIMIT)
        )
        self.created_workspaces.append(name)
        for peer in peer_names:
            await peers.get_or_create(self.db, name, peer)
        return name

    async def session(self, workspace: str, name: str) -> None:
        await sessions.get_or_create(self.db, workspace, name)

    async def raw_insert(self, workspace: str, props: list[dict[str, Any]]) -> None:
        """The addMessages baseline: one statement straight on the driver, nothing around it.
        (The corpus fill runs the same statement through `db.write`.)"""
        params = {"workspace": workspace, "messages": props}
        await self.db.driver.execute_query(
            statements.checked("bench_insert_messages", params),
            params,
            database_=self.db.database,
        )


def message_props(
    workspace: str,
    session: str,
    peer: str,
    content: str,
    seq: int,
    created_at: datetime,
    token_count: int,
    embedding: list[float],
    message_id: str | None = None,
) -> dict[str, Any]:
    """The Message map create_messages would store (validated through graph.models)."""
    return node_props(
        models.Message,
        {
            "uid": message_id or str(uuid.uuid4()),
            "workspace": workspace,
            "session": session,
            "peer": peer,
            "content": content,
            "metadata": "{}",
            "meta_kv": [],
            "created_at": created_at,
            "received_at": created_at,
            "seq": seq,
            "token_count": token_count,
            "embedding": embedding,
            "workspace_key": workspace_key(workspace),
            "session_key": session_key(workspace, session),
            "peer_key": peer_key(workspace, peer),
        },
    )


# -- part a: addMessages throughput ------------------------------------------------------------


@dataclass
class IngestResult:
    batches: int
    batch_size: int
    ours: list[float] = field(default_factory=list)
    store: list[float] = field(default_factory=list)
    raw: list[float] = field(default_factory=list)
    embed: list[float] = field(default_factory=list)

    def row(self, times: list[float]) -> dict[str, float]:
        total = sum(times)
        return {
            "total_s": total,
            "messages_per_s": self.batches * self.batch_size / total if total else 0.0,
            "batch_p50_ms": pct(times, 50) * 1000,
            "batch_p95_ms": pct(times, 95) * 1000,
        }

    def summary(self) -> dict[str, Any]:
        ours, raw, embed, store = sum(self.ours), sum(self.raw), sum(self.embed), sum(self.store)
        return {
            "batches": self.batches,
            "batch_size": self.batch_size,
            "ours": self.row(self.ours),
            "ours_store_only": self.row(self.store),
            "raw_unwind": self.row(self.raw),
            "embedding_alone": self.row(self.embed),
            "ratio_ours_over_raw": ours / raw if raw else 0.0,
            "embedding_share_of_ours": embed / ours if ours else 0.0,
            "ratio_ours_minus_embedding_over_raw": (ours - embed) / raw if raw else 0.0,
            "ratio_store_only_over_raw": store / raw if raw else 0.0,
        }


async def bench_ingest(bench: Bench) -> IngestResult:
    args = bench.args
    users = ("alice", "bob", "carol")
    names = [*users, "assistant"]
    ws_ours = await bench.workspace("ingest", names)
    ws_store = await bench.workspace("store", names)
    ws_raw = await bench.workspace("raw", names)
    session_names = [f"chat{i}" for i in range(4)]
    for ws in (ws_ours, ws_store, ws_raw):
        for name in session_names:
            await bench.session(ws, name)
    talk = Conversation(args.seed)
    user_rng = random.Random(args.seed + 1)
    result = IngestResult(args.batches, args.batch_size)
    raw_seq = {name: 0 for name in session_names}
    settings = bench.services.settings
    # Batch 0 warms every path (model, driver pool, query plans) and is not counted.
    for batch in range(args.batches + 1):
        session = session_names[batch % len(session_names)]
        lines = [
            talk.line("assistant" if k % 2 else user_rng.choices(users, (6, 3, 1))[0])
            for k in range(args.batch_size)
        ]
        items = [MessageInput(peer=line.peer, content=line.content) for line in lines]
        embed_s, vectors = await bench.embed([line.content for line in lines])
        stamp = datetime.now(UTC)
        props = [
            message_props(
                ws_raw,
                session,
                line.peer,
                line.content,
                raw_seq[session] + k,
                stamp,
                bench.tokens.count(line.content),
                vector,
            )
            for k, (line, vector) in enumerate(zip(lines, vectors, strict=True))
        ]
        raw_seq[session] += len(props)
        rows = [
            messages_repo.MessageRow(
                peer=line.peer,
                content=line.content,
                metadata_json="{}",
                metadata={},
                context=None,
                created_at=None,
                client_id=None,
                token_count=bench.tokens.count(line.content),
                embedding=vector,
                passage_embeddings=None,
            )
            for line, vector in zip(lines, vectors, strict=True)
        ]

        async def ours(session: str = session, items: list[MessageInput] = items) -> None:
            await add_messages(
                bench.db, bench.embedder, bench.tokens, settings, ws_ours, session, items
            )

        async def store(
            session: str = session, rows: list[messages_repo.MessageRow] = rows
        ) -> None:
            await messages_repo.create(bench.db, ws_store, session, rows)

        async def raw(props: list[dict[str, Any]] = props) -> None:
            await bench.raw_insert(ws_raw, props)

        # Rotate the order so no path always runs right after another's writes.
        runs: list[tuple[list[float], Callable[[], Awaitable[None]]]] = [
            (result.ours, ours),
            (result.store, store),
            (result.raw, raw),
        ]
        shift = batch % len(runs)
        for sink, work in runs[shift:] + runs[:shift]:
            seconds, _ = await timed(work())
            if batch:
                sink.append(seconds)
        if batch:
            result.embed.append(embed_s)
        print(f"  ingest batch {batch}/{args.batches}", file=sys.stderr, flush=True)
    return result


# -- part b: search latency --------------------------------------------------------------------


@dataclass
class Corpus:
    workspace: str
    ids: list[str] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)
    peers: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    chunks: list[Matrix] = field(default_factory=list)
    distinct_embedded: int = 0
    reused: int = 0
    embed_s: float = 0.0
    insert_s: float = 0.0

    def __len__(self) -> int:
        return len(self.ids)

    def matrix(self) -> Matrix:
        merged = np.vstack(self.chunks).astype(np.float32, copy=False)
        self.chunks = [merged]
        return merged


def session_of(index: int) -> str:
    if index < SMALL_SESSION_SIZE:
        return SMALL_SESSION
    return f"s{(index - SMALL_SESSION_SIZE) // SESSION_SIZE:04d}"


async def grow(
    bench: Bench, corpus: Corpus, talk: Conversation, target: int, pool_from: int | None
) -> None:
    """Add messages until the corpus holds `target`. From index `pool_from` on, messages reuse
    the text, peer and vector (plus small noise) of an earlier message instead of being embedded.
    """
    start = len(corpus)
    noise = np.random.default_rng(bench.args.seed * 1_000_003 + start)
    id_rng = random.Random(bench.args.seed * 1_000_003 + start)
    base = datetime(2024, 1, 1, tzinfo=UTC)
    known = set(corpus.sessions)
    for first in range(start, target, FILL_EMBED_CHUNK):
        last = min(first + FILL_EMBED_CHUNK, target)
        vectors: Matrix
        if pool_from is None or last <= pool_from:
            lines = [talk.line() for _ in range(first, last)]
            seconds, embedded = await bench.embed([line.content for line in lines])
            corpus.embed_s += seconds
            corpus.distinct_embedded += len(lines)
            vectors = np.asarray(embedded, dtype=np.float32)
        else:
            assert first >= pool_from, "the pool ends on a chunk boundary"
            source = [i % pool_from for i in range(first, last)]
            lines = [Line(corpus.peers[i], corpus.texts[i]) for i in source]
            picked = corpus.matrix()[np.asarray(source, dtype=np.intp)]
            moved = picked + noise.normal(0.0, NOISE_STD, picked.shape).astype(np.float32)
            vectors = (moved / np.linalg.norm(moved, axis=1, keepdims=True)).astype(np.float32)
            corpus.reused += len(lines)
        for index, line in zip(range(first, last), lines, strict=True):
            name = session_of(index)
            if name not in known:
                await bench.session(corpus.workspace, name)
                known.add(name)
            corpus.ids.append(str(uuid.UUID(int=id_rng.getrandbits(128), version=4)))
            corpus.sessions.append(name)
            corpus.peers.append(line.peer)
            corpus.texts.append(line.content)
        corpus.chunks.append(vectors)
        for lo in range(first, last, FILL_INSERT_CHUNK):
            hi = min(lo + FILL_INSERT_CHUNK, last)
            props = [
                message_props(
                    corpus.workspace,
                    corpus.sessions[i],
                    corpus.peers[i],
                    corpus.texts[i],
                    (i - SMALL_SESSION_SIZE) % SESSION_SIZE if i >= SMALL_SESSION_SIZE else i,
                    base + timedelta(seconds=30 * i),
                    bench.tokens.count(corpus.texts[i]),
                    [float(x) for x in vectors[i - first]],
                    corpus.ids[i],
                )
                for i in range(lo, hi)
            ]
            seconds, _ = await timed(
                statements.write(
                    bench.db, "bench_fill_messages", workspace=corpus.workspace, messages=props
                )
            )
            corpus.insert_s += seconds
        print(f"  fill {last}/{target} messages", file=sys.stderr, flush=True)


@dataclass
class ScopeResult:
    size: int
    scope: str
    scope_messages: int
    path: str
    ours: list[float] = field(default_factory=list)
    baseline: list[float] = field(default_factory=list)
    embed: list[float] = field(default_factory=list)
    numpy: list[float] = field(default_factory=list)
    recall: list[float] = field(default_factory=list)
    vector: list[float] = field(default_factory=list)
    text: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {
            "corpus_messages": self.size,
            "scope": self.scope,
            "scope_messages": self.scope_messages,
            "path": self.path,
            "queries": len(self.ours),
            "ours_p50_ms": pct(self.ours, 50) * 1000,
            "ours_p95_ms": pct(self.ours, 95) * 1000,
            "baseline_p50_ms": pct(self.baseline, 50) * 1000,
            "baseline_p95_ms": pct(self.baseline, 95) * 1000,
            "ratio_p50": pct(self.ours, 50) / pct(self.baseline, 50) if self.baseline else 0.0,
            "ratio_p95": pct(self.ours, 95) / pct(self.baseline, 95) if self.baseline else 0.0,
            "query_embed_p50_ms": pct(self.embed, 50) * 1000,
            "numpy_p50_ms": pct(self.numpy, 50) * 1000,
            "vector_recall_at_limit": float(np.mean(self.recall)) if self.recall else 0.0,
            "vector_candidates_p50_ms": pct(self.vector, 50) * 1000,
            "text_candidates_p50_ms": pct(self.text, 50) * 1000,
        }


@dataclass(frozen=True)
class Scope:
    name: str
    size: int
    pick: Callable[[int], MessageFilter]  # the filter of query j


def exact_top(sub: Matrix, query: Matrix, limit: int) -> Indices:
    scores = sub @ query
    if len(scores) <= limit:
        return np.argsort(-scores)
    top = np.argpartition(-scores, limit)[:limit]
    ordered: Indices = top[np.argsort(-scores[top])]
    return ordered


async def bench_search(bench: Bench, corpus: Corpus, queries: list[str]) -> list[ScopeResult]:
    args = bench.args
    n = len(corpus)
    matrix = corpus.matrix()
    session_arr = np.asarray(corpus.sessions)
    peer_arr = np.asarray(corpus.peers)
    row_of = {message_id: row for row, message_id in enumerate(corpus.ids)}
    counts: dict[str, int] = {}
    for name in corpus.sessions:
        counts[name] = counts.get(name, 0) + 1
    full = sorted(s for s, c in counts.items() if s != SMALL_SESSION and c == SESSION_SIZE)
    scopes = [
        Scope("workspace", n, lambda _: MessageFilter()),
        Scope("session", SESSION_SIZE, lambda j: MessageFilter(session=full[j % len(full)])),
        Scope("peer", int(np.sum(peer_arr == "alice")), lambda _: MessageFilter(peer="alice")),
        Scope("small session", SMALL_SESSION_SIZE, lambda _: MessageFilter(session=SMALL_SESSION)),
    ]
    # The baseline's scope: a contiguous copy of its vectors (built untimed, once per scope).
    in_scope: dict[tuple[str | None, str | None], Matrix] = {}

    def scope_rows(filters: MessageFilter) -> Matrix:
        key = (filters.session, filters.peer)
        if key not in in_scope:
            mask = np.ones(n, dtype=np.bool_)
            if filters.session is not None:
                mask &= session_arr == filters.session
            if filters.peer is not None:
                mask &= peer_arr == filters.peer
            rows = np.flatnonzero(mask)
            in_scope[key] = np.ascontiguousarray(matrix[rows])
        return in_scope[key]

    results: list[ScopeResult] = []
    for scope in scopes:
        if scope.name == "small session" and scope.size <= MESSAGES.exact_scan_limit:
            path = "exact scan"
        elif "session" in scope.name:
            path = "vector index"
        else:
            path = "vector index (wide)"  # peers and whole workspaces: size not counted
        result = ScopeResult(n, scope.name, scope.size, path)
        for j in range(-WARMUP_QUERIES, len(queries)):
            text = queries[j % len(queries)]
            filters = scope.pick(j % len(queries))
            sub = scope_rows(filters)

            async def ours(text: str = text, filters: MessageFilter = filters) -> None:
                await search_messages(
                    bench.db, bench.embedder, corpus.workspace, text, filters, args.limit
                )

            async def baseline(
                text: str = text, sub: Matrix = sub
            ) -> tuple[float, float, list[float], Indices]:
                start = time.perf_counter()
                [vector] = await embed_async(bench.embedder, [text])
                embedded = time.perf_counter()
                top = exact_top(sub, np.asarray(vector, dtype=np.float32), args.limit)
                return embedded - start, time.perf_counter() - embedded, vector, top

            if j % 2:
                ours_s, _ = await timed(ours())
                base_s, (embed_s, numpy_s, vector, top) = await timed(baseline())
            else:
                base_s, (embed_s, numpy_s, vector, top) = await timed(baseline())
                ours_s, _ = await timed(ours())
            # Where our time goes: the same retrieval steps, called again one by one with the
            # pool size search_messages uses.
            pool = pool_size(args.limit)
            vector_s, found = await timed(
                search_repo.vector_candidates(bench.db, corpus.workspace, vector, filters, pool)
            )
            text_s, _ = await timed(
                search_repo.text_candidates(
                    bench.db, corpus.workspace, text, filters, pool, embedding=vector
                )
            )
            if j < 0:
                continue
            # Recall of our vector side's top k against the exact top k. Ties (duplicate texts)
            # make the exact top k ambiguous: a hit counts if it scores at least the exact k-th
            # best, within float32 rounding.
            query = np.asarray(vector, dtype=np.float32)
            kth = float(sub[top[-1]] @ query) - 1e-4
            got = [row_of[m.id] for m, _ in found[: args.limit] if m.id in row_of]
            good = sum(1 for row in got if float(matrix[row] @ query) >= kth)
            result.ours.append(ours_s)
            result.baseline.append(base_s)
            result.embed.append(embed_s)
            result.numpy.append(numpy_s)
            result.recall.append(min(good, len(top)) / max(1, len(top)))
            result.vector.append(vector_s)
            result.text.append(text_s)
        in_scope.clear()
        print(f"  search {n}: {scope.name} done", file=sys.stderr, flush=True)
        results.append(result)
    return results


# -- part c: report ----------------------------------------------------------------------------


def ingest_table(summary: dict[str, Any]) -> str:
    labels = (
        ("ours", "ours: `add_messages` (validate, embed, store + enqueue jobs)"),
        ("ours_store_only", "ours, store only: `messages.create`, same vectors, no jobs"),
        ("raw_unwind", "baseline: raw `UNWIND` insert with the same vectors"),
        ("embedding_alone", "embedding alone (same batches)"),
    )
    rows = [
        [
            label,
            f"{summary[key]['messages_per_s']:.0f}",
            f"{summary[key]['batch_p50_ms']:.0f}",
            f"{summary[key]['batch_p95_ms']:.0f}",
            f"{summary[key]['total_s']:.1f}",
        ]
        for key, label in labels
    ]
    return table(["path", "messages/s", "batch p50 ms", "batch p95 ms", "total s"], rows)


def search_table(rows: Sequence[dict[str, Any]]) -> str:
    header = ["corpus", "scope", "scope msgs", "path", "ours p50 ms", "ours p95 ms",
              "baseline p50 ms", "baseline p95 ms", "ratio p50", "ratio p95"]  # fmt: skip
    return table(
        header,
        [
            [
                f"{r['corpus_messages']:,}",
                r["scope"],
                f"{r['scope_messages']:,}",
                r["path"],
                f"{r['ours_p50_ms']:.1f}",
                f"{r['ours_p95_ms']:.1f}",
                f"{r['baseline_p50_ms']:.1f}",
                f"{r['baseline_p95_ms']:.1f}",
                f"{r['ratio_p50']:.1f}x",
                f"{r['ratio_p95']:.1f}x",
            ]
            for r in rows
        ],
    )


def breakdown_table(rows: Sequence[dict[str, Any]]) -> str:
    header = ["corpus", "scope", "query embed", "vector candidates", "fulltext candidates",
              "numpy exact", "vector recall@k"]  # fmt: skip
    return table(
        header,
        [
            [
                f"{r['corpus_messages']:,}",
                r["scope"],
                f"{r['query_embed_p50_ms']:.1f}",
                f"{r['vector_candidates_p50_ms']:.1f}",
                f"{r['text_candidates_p50_ms']:.1f}",
                f"{r['numpy_p50_ms']:.2f}",
                f"{r['vector_recall_at_limit']:.3f}",
            ]
            for r in rows
        ],
    )


def ingest_lines(ingest: dict[str, Any]) -> list[str]:
    return [
        "### addMessages throughput",
        "",
        f"{ingest['batches']} batches of {ingest['batch_size']} generated chat messages "
        "(seeded; users alice/bob/carol alternating with an assistant; 4 sessions), after one "
        "uncounted warm-up batch. Each batch runs every path in turn (order rotated per batch), "
        "each into its own workspace. The baseline gets the batch's embeddings precomputed and "
        "skips validation, sequence numbers, membership windows and job enqueueing; it creates "
        "the same Message node with its IN and SENT_BY edges.",
        "",
        ingest_table(ingest),
        "",
        f"- Ours / baseline (time): **{ingest['ratio_ours_over_raw']:.1f}x**; embedding is "
        f"**{ingest['embedding_share_of_ours'] * 100:.0f}%** of our time.",
        f"- Ours minus embedding / baseline: {ingest['ratio_ours_minus_embedding_over_raw']:.2f}x;"
        f" store only / baseline: {ingest['ratio_store_only_over_raw']:.2f}x.",
        "",
    ]


def search_lines(report: dict[str, Any]) -> list[str]:
    fill = report["corpus"]
    return [
        "### Message search",
        "",
        f"One workspace, grown to {', '.join(f'{s:,}' for s in fill['sizes'])} messages and "
        f"measured at each size. Corpus: seeded chat lines from {len(Conversation.peers())} "
        "peers (assistant ~35%, alice ~30%, 18 other users share the rest), sessions of "
        f"{SESSION_SIZE:,} messages plus one session of {SMALL_SESSION_SIZE}. "
        f"{fill['note']} Messages were inserted with `tests/cypher/bench_fill_messages.cypher` "
        f"(a raw `UNWIND`; sessions' next_seq counts them) in transactions "
        f"of {FILL_INSERT_CHUNK:,} (fill: {fill['embed_s']:.0f} s embedding, "
        f"{fill['insert_s']:.0f} s inserting), then `db.awaitIndexes()`. "
        "The message_vectors and message_text indexes serve every workspace (filtered inside "
        "by workspace, session and peer), so they also hold the addMessages benchmark's "
        "messages (a few thousand).",
        "",
        f"{report['queries']} generated questions per scope and size (after {WARMUP_QUERIES} "
        f"warm-up queries), limit {report['limit']}. Ours is `search_messages` (query embedding, "
        "scoped vector and fulltext candidates side by side, score fusion). The baseline is the "
        "same "
        "query embedding plus an exact cosine top-k in numpy over the scope's vectors, "
        "held in RAM and pre-sliced per scope; the two run back to back for every query, "
        "order alternating. Session scope rotates over the full sessions; peer scope is alice. "
        "`path` is what `graph/repo/message_search.py` takes: the exact scan for a session of "
        f"up to {MESSAGES.exact_scan_limit:,} messages, else the message_vectors index "
        f"filtered inside (first round: {MESSAGES.first_round(10)[0]:,} candidates for a "
        f"session, {MESSAGES.first_round(10)[1]:,} for a peer or the workspace at limit 10).",
        "",
        search_table(report["search"]),
        "",
        "Where our time goes (p50 ms). After each timed pair, the retrieval steps of "
        "`search_messages` were called again one by one, with its candidate pool size: "
        "`vector_candidates` (one statement: the exact scan or the filtered index) and "
        "`text_candidates` (fulltext, scoped by keys inside Lucene). `vector recall@k`: share "
        "of the numpy exact top k found in the top k of `vector_candidates` (ties count).",
        "",
        breakdown_table(report["search"]),
        "",
    ]


def service_warmup_line(warmed: dict[str, Any] | None) -> str:
    if warmed is None:
        return "- Service warm-up: none (`--service-warmup 0`): measured as the server started"
    read = (
        f"a read of {warmed['messages_read']:,} messages' searched properties and vectors"
        if warmed["messages_read"] is not None
        else "no complete read of the messages (budget spent first)"
    )
    beliefs = ""
    if "belief_searches" in warmed:  # reports from before beliefs were warmed lack it
        read_beliefs = warmed["observations_read"]
        beliefs = f", then {warmed['belief_searches']} belief searches and " + (
            f"a read of {read_beliefs:,} beliefs"
            if read_beliefs is not None
            else "no complete read of the beliefs"
        )
    return (
        f"- Service warm-up: what `serve` does after a start (budget {warmed['budget_s']:g} s), "
        f"awaited before measuring: {warmed['searches']} searches over the largest peers and "
        f"their workspaces ({warmed['drawn']} with the vector of a stored message drawn at "
        f"random, the others a random direction), then {read}{beliefs}; "
        f"{warmed['seconds']:.0f} s"
    )


def render(report: dict[str, Any]) -> str:
    env = report["environment"]
    m = env["machine"]
    server = env["neo4j"]
    ingest = report.get("ingest")
    synthetic = report.get("synthetic")
    title = "message search" if ingest is None else "addMessages throughput and message search"
    embeddings = (
        f"- Embeddings: all-MiniLM-L6-v2 on CPU; measured {env['embed_rate']:.0f} sentences/s "
        "over all embedding done in this run"
        if env["embed_rate"]
        else "- Embeddings: none computed (synthetic vectors; no model time in any measure)"
    )
    lines = [
        f"## API: {title}" + (" (synthetic corpus)" if synthetic else ""),
        "",
        f"- Date: {report['date']}",
        f"- Machine: {m.get('cores')} cores ({m.get('cpu', 'unknown CPU')}), "
        f"{m.get('ram_gib', '?')} GiB RAM, Python {m.get('python')}; no GPU. Whatever else runs "
        "on these cores shows in the load averages below; compare ours with the baseline of "
        "the same run.",
        f"- Neo4j: {server['version']} {server['edition']} ({server['where']})",
        embeddings,
        "- 1-minute load average (other processes share these cores): "
        + ", ".join(f"{x['load']:.1f} {x['when']}" for x in env["load_1min"]),
        f"- Command: `{report['command']}` (run time {report['run_s'] / 60:.0f} min)",
        service_warmup_line(report.get("service_warmup")),
        "",
        *(ingest_lines(ingest) if ingest is not None else []),
        *(render_search(synthetic) if synthetic else search_lines(report)),
        "",
    ]
    return "\n".join(lines)


# -- driver ------------------------------------------------------------------------------------


def parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="beliefgraph bench api", description="addMessages and message search benchmark"
    )
    parser.add_argument(
        "--sizes",
        default="10000,100000",
        help="corpus sizes in messages, ascending (one workspace grown through them)",
    )
    parser.add_argument("--batches", type=int, default=20, help="addMessages batches (timed)")
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument("--queries", type=int, default=200, help="per scope and corpus size")
    parser.add_argument("--limit", type=int, default=10, help="search results per query")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--max-embed-seconds",
        type=float,
        default=1200.0,
        help="if embedding the whole corpus would take longer, embed a pool and reuse it",
    )
    parser.add_argument("--embed-pool", type=int, default=20_000)
    parser.add_argument(
        "--synthetic",
        action="store_true",
        help="search corpus of seeded vectors over Zipf-sized sessions and peers, written in "
        "bulk (no model embedding): sizes up to 1M in minutes",
    )
    parser.add_argument(
        "--skip-ingest", action="store_true", help="leave out the addMessages throughput part"
    )
    parser.add_argument("--sessions", type=int, default=1000, help="synthetic: sessions")
    parser.add_argument("--peers", type=int, default=100, help="synthetic: peers")
    parser.add_argument(
        "--workspace-queries",
        type=int,
        default=50,
        help="synthetic: queries per size over the whole workspace (its exact scan is slow)",
    )
    parser.add_argument(
        "--warmup",
        type=int,
        default=SYNTHETIC_WARMUP,
        help="synthetic: uncounted queries of each kind before the measured ones at each size "
        f"(default {SYNTHETIC_WARMUP}; more measure a server warmed by steady traffic)",
    )
    parser.add_argument(
        "--service-warmup",
        type=float,
        default=Settings().warmup_seconds,
        metavar="SECONDS",
        help="budget of the start-up warm-up `serve` runs (BELIEFGRAPH_WARMUP_SECONDS), run "
        "and awaited before anything is measured; 0 measures the server as started",
    )
    parser.add_argument(
        "--reuse-workspace",
        metavar="NAME",
        help="synthetic: search the corpus a kept workspace already holds (an earlier run with "
        "--keep and the same --seed, --sessions, --peers and --sizes; checked) instead of "
        "filling a new one; only the last size is measured",
    )
    parser.add_argument(
        "--fill-batch", type=int, default=5000, help="synthetic: messages per fill transaction"
    )
    parser.add_argument(
        "--rebuild-vector-index",
        action="store_true",
        help="synthetic: drop the message_vectors index before each fill and create it again "
        "after (one population instead of a vector at a time; only on a bench database)",
    )
    parser.add_argument("--report", type=Path, default=DOCS / "BENCHMARKS.md")
    parser.add_argument("--json", type=Path, help="default docs/bench-<section>.json")
    parser.add_argument(
        "--section",
        default="api",
        help="report section (bench:<name>), so runs with other options can sit side by side",
    )
    add_instance_args(
        parser, instance=BENCH_INSTANCE, bolt_port=BENCH_BOLT_PORT, http_port=BENCH_HTTP_PORT
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the bench workspaces and the Neo4j running"
    )
    args = parser.parse_args(list(argv))
    if args.json is None:
        args.json = DOCS / f"bench-{args.section}.json"
    try:
        args.size_list = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        parser.error("--sizes: comma-separated integers")
    if not args.size_list or args.size_list != sorted(set(args.size_list)):
        parser.error("--sizes must be ascending and distinct")
    if args.synthetic:
        try:
            scope_sizes(args.size_list[0], args.sessions, args.seed)
            scope_sizes(args.size_list[0], args.peers, args.seed)
        except ValueError as exc:
            parser.error(f"--sizes, --sessions, --peers: {exc}")
        if args.sessions < 2 or args.peers < 2:
            parser.error("--sessions and --peers must be at least 2")
    elif args.size_list[0] <= SMALL_SESSION_SIZE + SESSION_SIZE:
        parser.error(f"the smallest size must exceed {SMALL_SESSION_SIZE + SESSION_SIZE}")
    args.embed_pool = max(FILL_EMBED_CHUNK, args.embed_pool // FILL_EMBED_CHUNK * FILL_EMBED_CHUNK)
    return args


def command_line(argv: Sequence[str]) -> str:
    if Path(sys.argv[0]).name == "beliefgraph":
        return shlex.join(["beliefgraph", "bench", "api", *argv])
    return shlex.join(["python", "-m", "tests.bench.api_bench", *argv])


async def run(bench: Bench, neo4j_where: str, argv: Sequence[str]) -> dict[str, Any]:
    args = bench.args
    started = time.perf_counter()
    component = await statements.read_one(bench.db, "bench_neo4j_version")
    bench.sample_load("start")
    warmed = None
    if args.service_warmup > 0:
        # What `serve` does after start, here awaited, so what follows measures a warmed server.
        print(f"service warm-up (up to {args.service_warmup:g} s) ...", file=sys.stderr, flush=True)
        warmed = await warm_up(
            Neo4jWarmup(bench.db), bench.services.settings.embedding_dim, args.service_warmup
        )
        bench.sample_load("after the service warm-up")
    ingest: IngestResult | None = None
    if not args.skip_ingest:
        print("addMessages throughput ...", file=sys.stderr, flush=True)
        ingest = await bench_ingest(bench)
        print(f"embedding rate so far: {bench.embed_rate:.0f} sentences/s", file=sys.stderr)
        bench.sample_load("after addMessages")
    report: dict[str, Any] = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "command": command_line(argv),
        "queries": args.queries,
        "limit": args.limit,
        "ingest": ingest.summary() if ingest is not None else None,
        "service_warmup": None
        if warmed is None
        else {
            "budget_s": args.service_warmup,
            "searches": warmed.messages.searches,
            "drawn": warmed.messages.drawn,
            "messages_read": warmed.messages.read,
            "belief_searches": warmed.observations.searches,
            "observations_read": warmed.observations.read,
            "seconds": warmed.seconds,
        },
    }
    if args.synthetic:
        name = args.reuse_workspace or f"bench-api-{bench.run_id}-synthetic"
        if args.reuse_workspace is None:
            bench.created_workspaces.append(name)  # a reused one stays: this run did not make it
        report["synthetic"] = await run_synthetic(bench.db, args, name, bench.loads)
    else:
        report.update(await search_real(bench))
    report["run_s"] = time.perf_counter() - started
    report["environment"] = {
        "machine": machine(),
        "neo4j": {
            "version": component["version"] if component else "?",
            "edition": component["edition"] if component else "?",
            "where": neo4j_where,
        },
        "embed_rate": bench.embed_rate,
        "load_1min": [{"when": when, "load": load} for when, load in bench.loads],
    }
    return report


async def search_real(bench: Bench) -> dict[str, Any]:
    """Message search on chat lines embedded by the model (pool reuse past a time budget)."""
    args = bench.args
    corpus = Corpus(await bench.workspace("search", Conversation.peers()))
    await bench.session(corpus.workspace, SMALL_SESSION)
    talk = Conversation(args.seed + 100)
    asked = questions(args.seed, args.queries)
    search: list[dict[str, Any]] = []
    pool_from: int | None = None
    for size in args.size_list:
        if size <= len(corpus):
            continue
        await grow(bench, corpus, talk, min(size, args.embed_pool), None)
        remaining = size - len(corpus)
        rate = bench.embed_rate or 1.0
        if remaining > 0 and pool_from is None and remaining / rate > args.max_embed_seconds:
            pool_from = len(corpus)
            print(
                f"  {remaining} more at {rate:.0f}/s is over --max-embed-seconds: "
                f"reusing the first {pool_from} vectors with noise",
                file=sys.stderr,
            )
        await grow(bench, corpus, talk, size, pool_from)
        await bench.db.write("await_indexes", timeout_seconds=600)
        bench.sample_load(f"after fill to {size:,}")
        search += [r.summary() for r in await bench_search(bench, corpus, asked)]
        bench.sample_load(f"after search at {size:,}")
    if corpus.reused:
        note = (
            f"{corpus.distinct_embedded:,} messages were embedded; the other "
            f"{corpus.reused:,} reuse the text, peer and vector of message i mod "
            f"{pool_from:,} with Gaussian noise (sigma {NOISE_STD} per dimension, renormalized; "
            "cosine to the source ~0.98), because embedding all of them at the measured rate "
            "would exceed --max-embed-seconds."
        )
    else:
        note = f"All {len(corpus):,} messages have their own text and embedding (no reuse)."
    return {
        "corpus": {
            "sizes": args.size_list,
            "distinct_embedded": corpus.distinct_embedded,
            "reused_with_noise": corpus.reused,
            "embed_s": corpus.embed_s,
            "insert_s": corpus.insert_s,
            "note": note,
        },
        "search": search,
    }


async def run_with_services(
    settings: Settings, password: str, args: argparse.Namespace, where: str, argv: Sequence[str]
) -> dict[str, Any]:
    # Synthetic search alone needs no model: its queries carry their vectors.
    primed = PrimedEmbedder() if args.synthetic and args.skip_ingest else None
    services = await open_services(settings, password=password, embedder=primed)
    bench = Bench(services, args, uuid.uuid4().hex[:8])
    try:
        return await run(bench, where, argv)
    finally:
        # Deleting a million messages takes longer than dropping the instance's data.
        big = args.synthetic and settings.managed and args.size_list[-1] > BIG_CORPUS
        if not args.keep:
            for name in bench.created_workspaces:
                if big and name.endswith("-synthetic"):
                    print(
                        f"left {name} in place (over {BIG_CORPUS:,} messages): stop the "
                        f"instance '{args.instance}' and delete its data folder to drop it",
                        file=sys.stderr,
                    )
                    continue
                try:
                    seconds, deleted = await timed(workspaces.delete(services.db, name))
                except NotFound:
                    continue  # the run stopped before creating it
                print(f"deleted {name}: {deleted} nodes in {seconds:.1f} s", file=sys.stderr)
        await close_services(services)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse(argv)
    # The shared statements draw planner notices (e.g. a property no message has yet).
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    neo4j = neo4j_from_args(args)
    try:
        report = asyncio.run(
            run_with_services(neo4j.settings, neo4j.password, args, neo4j.where, argv)
        )
    finally:
        neo4j.done(args.keep)
    section = render(report)
    print(section)
    write_section(args.report, args.section, section)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.report} and {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
