"""Rankers of a conversation's turns for one question, and their retrieval metrics.

Four rankings, each a list of turn ids, best first, at most ``depth`` long:

- ``ours``: ``searchMessages`` (hybrid vector + fulltext, fused by score) over the
  question's workspace, with no session or peer filter. That is the scope an agent answering a
  user would use: LongMemEval's evidence turns can be the assistant's own (the
  single-session-assistant type), LoCoMo's are either speaker's, so a peer filter would hide
  evidence by construction.
- ``observations``: the observations of the representations the app keeps
  (``ingest.app_views``: LongMemEval, the assistant's models of the user and of itself),
  searched with ``searchObservations`` (hybrid, like messages; the scopes' hits merged by
  fused score) and mapped to the turns they were derived from through DERIVED_FROM (the
  ``observation { sources }`` query). Several observations may come from one turn; the turn
  takes the rank of its best observation.
- ``bm25``: Okapi BM25 over the turns (``tests.bench.bm25``).
- ``dense``: exact cosine between the question and every turn with the same embedder the
  service uses (``all-MiniLM-L6-v2`` by default).

Every ranking is cut at the same depth (the API's page cap, 100), so session-level metrics,
which come from the turn ranking, compare like with like.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from reasoners.embeddings.model import Embedder
from tests.bench.bm25 import BM25
from tests.bench.embed_cache import DiskVectors
from tests.bench.ingest import Api
from tests.bench.metrics import DEFAULT_KS, retrieval_metrics, sessions_from_turns

RANKERS: tuple[str, ...] = ("ours", "observations", "bm25", "dense")
DREAMED = "dreamed"  # the observations again, after a dream of each representation (--dream)
RANKER_LABELS: dict[str, str] = {
    "ours": "beliefgraph searchMessages",
    "observations": "beliefgraph observations → turns",
    DREAMED: "beliefgraph observations after dreaming → turns",
    "bm25": "BM25 over turns",
    "dense": "dense cosine over turns",
}
SESSION_PREFIX = "session/"
MAX_QUERY_CHARS = 2000  # the API's limit on a search query
SOURCES_PER_REQUEST = 10  # aliases per observation-sources request (the API allows 15)

Matrix = npt.NDArray[np.float32]
Vector = npt.NDArray[np.float32]


class MemoEmbedder:
    """An :class:`Embedder` that remembers vectors by text.

    The service embeds every message in ``addMessages`` and every new observation in the
    deriver; the dense baseline needs the same message vectors. Wrapping the service's
    embedder lets both share one computation, and :meth:`prime` lets the bench embed a whole
    conversation ahead of time in length-sorted chunks, which pads far less than the
    session-sized batches the service sends (and can run while the previous conversation is
    being evaluated). Vectors are the wrapped model's own: each text is computed once, or
    never when ``disk`` (``--embed-cache``) already holds it from an earlier run.
    """

    def __init__(self, inner: Embedder, chunk: int = 256, disk: DiskVectors | None = None) -> None:
        self.inner = inner
        self.chunk = chunk
        self.disk = disk  # vectors of earlier runs (--embed-cache); new ones are added to it
        self._memo: dict[str, Vector] = {}
        self._lock = threading.Lock()  # embed runs in worker threads (embed_async)
        self.computed = 0
        self.seconds = 0.0

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def _compute(self, texts: Sequence[str]) -> None:
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if missing and self.disk is not None:
            stored = {t: v for t in missing if (v := self.disk.get(t)) is not None}
            with self._lock:
                self._memo.update(stored)
            missing = [t for t in missing if t not in stored]
        if not missing:
            return
        start = time.perf_counter()
        vectors = self.inner.embed(missing)
        elapsed = time.perf_counter() - start
        rows = [np.asarray(vector, dtype=np.float32) for vector in vectors]
        with self._lock:
            self.seconds += elapsed
            self.computed += len(missing)
            self._memo.update(zip(missing, rows, strict=True))
        if self.disk is not None:
            self.disk.add(missing, rows)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self._compute(texts)
        with self._lock:
            return [self._memo[t].tolist() for t in texts]

    def matrix(self, texts: Sequence[str]) -> Matrix:
        """The vectors of ``texts`` as rows (computing the missing ones)."""
        self._compute(texts)
        with self._lock:
            rows = [self._memo[t] for t in texts]
        if not rows:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack(rows)

    def prime_sync(self, texts: Sequence[str]) -> None:
        # Longest first, in chunks: each chunk pads little, and a service call that misses
        # the memo waits for one chunk at most, not for the whole conversation.
        ordered = sorted(set(texts), key=len, reverse=True)
        for start in range(0, len(ordered), self.chunk):
            self._compute(ordered[start : start + self.chunk])

    async def prime(self, texts: Sequence[str]) -> None:
        await asyncio.to_thread(self.prime_sync, texts)

    def forget(self, texts: Iterable[str]) -> None:
        """Drop vectors no longer needed, to bound memory over a long run."""
        with self._lock:
            for text in texts:
                self._memo.pop(text, None)

    def __len__(self) -> int:
        return len(self._memo)


@dataclass(frozen=True)
class TurnCorpus:
    """The turns a conversation put in the workspace, in conversation order."""

    turn_ids: list[str]
    texts: list[str]
    session_of: dict[str, str]

    @classmethod
    def of(cls, turns: Iterable[tuple[str, str, str]]) -> TurnCorpus:
        """From (turn id, session id, text) triples."""
        ids: list[str] = []
        texts: list[str] = []
        session_of: dict[str, str] = {}
        for turn_id, session_id, text in turns:
            ids.append(turn_id)
            texts.append(text)
            session_of[turn_id] = session_id
        return cls(ids, texts, session_of)


class Baselines:
    """BM25 and exact dense cosine over one conversation's turns."""

    def __init__(self, corpus: TurnCorpus, matrix: Matrix) -> None:
        if matrix.shape[0] != len(corpus.turn_ids):
            raise ValueError(f"{matrix.shape[0]} vectors for {len(corpus.turn_ids)} turns")
        self.corpus = corpus
        self.bm25 = BM25(corpus.texts)
        self.matrix = matrix

    def rank_bm25(self, query: str, depth: int) -> list[str]:
        return [self.corpus.turn_ids[i] for i in self.bm25.rank(query, top_k=depth)]

    def rank_dense(self, query_vector: Sequence[float], depth: int) -> list[str]:
        return dense_ranking(self.matrix, query_vector, self.corpus.turn_ids, depth)


def dense_ranking(
    matrix: Matrix, query_vector: Sequence[float], ids: Sequence[str], depth: int
) -> list[str]:
    """Ids by cosine to the query, best first (vectors are unit length: cosine = dot).

    Ties keep corpus order (a stable sort), so the ranking is deterministic.
    """
    if len(ids) == 0:
        return []
    scores = matrix @ np.asarray(query_vector, dtype=np.float32)
    order = np.argsort(-scores, kind="stable")[:depth]
    return [ids[int(i)] for i in order]


SEARCH = """
query($w: String!, $q: String!, $limit: Int, $asker: String) {
  searchMessages(workspace: $w, query: $q, limit: $limit, asker: $asker) { message { id } }
}"""


def query_text(question: str) -> str:
    return question[:MAX_QUERY_CHARS]


def asking_speaker(dataset: str, speakers: Sequence[str]) -> str | None:
    """The speaker on whose behalf the questions are asked, as an app would know it.

    LongMemEval and BEAM: the user asks its assistant ("what did I buy?"), so the user is the
    asker. LoCoMo: someone outside the conversation asks about its two speakers, by name; there
    is no asker, and the service resolves the names itself.
    """
    if dataset in ("longmemeval", "beam") and "user" in speakers:
        return "user"
    return None


async def rank_ours(
    api: Api,
    workspace: str,
    question: str,
    message_to_turn: Mapping[str, str],
    depth: int,
    asker: str | None = None,
) -> list[str]:
    data = await api.call(
        SEARCH, {"w": workspace, "q": query_text(question), "limit": depth, "asker": asker}
    )
    return [
        message_to_turn[hit["message"]["id"]]
        for hit in data["searchMessages"]
        if hit["message"]["id"] in message_to_turn
    ]


def sources_query(count: int) -> str:
    """One request for the source messages of ``count`` observations (aliases o0, o1...)."""
    variables = ", ".join(f"$i{i}: ID!" for i in range(count))
    fields = " ".join(
        f"o{i}: observation(workspace: $w, id: $i{i}) "
        "{ sources { message { id } } premises { id } }"
        for i in range(count)
    )
    return f"query($w: String!, {variables}) {{ {fields} }}"


@dataclass(frozen=True)
class ObservationRanking:
    turns: list[str]
    observations: int  # observations that matched (before mapping to turns)
    unmapped: int  # matched observations with no source turn (derived from other beliefs)


SEARCH_OBSERVATIONS = """
query($w: String!, $observer: String!, $observed: String!, $q: String!, $limit: Int) {
  searchObservations(workspace: $w, observer: $observer, observed: $observed, query: $q,
                     limit: $limit) { score observation { id } }
}"""


async def rank_observations(
    api: Api,
    workspace: str,
    question: str,
    scopes: Sequence[tuple[str, str]],
    message_to_turn: Mapping[str, str],
    depth: int,
) -> ObservationRanking:
    """The beliefs of the given (observer, observed) peer scopes, best first, as the turns
    they came from."""
    hits: list[tuple[float, int, int, str]] = []
    for index, (observer, observed) in enumerate(scopes):
        data = await api.call(
            SEARCH_OBSERVATIONS,
            {
                "w": workspace,
                "observer": observer,
                "observed": observed,
                "q": query_text(question),
                "limit": depth,
            },
        )
        # Fused scores of two scopes are close to one scale: the similarity part is absolute,
        # and each scope's fulltext part is relative to its own best hit (at most 0.1).
        hits += [
            (float(hit["score"]), index, rank, hit["observation"]["id"])
            for rank, hit in enumerate(data["searchObservations"])
        ]
    hits.sort(key=lambda h: (-h[0], h[1], h[2]))
    ordered = list(dict.fromkeys(observation_id for *_, observation_id in hits))[:depth]
    sources = await observation_sources(api, workspace, ordered)
    turns: list[str] = []
    seen: set[str] = set()
    unmapped = 0
    for observation_id in ordered:
        mapped = [
            message_to_turn[m] for m in sources.get(observation_id, []) if m in message_to_turn
        ]
        if not mapped:
            unmapped += 1
        for turn in mapped:
            if turn not in seen:
                seen.add(turn)
                turns.append(turn)
    return ObservationRanking(turns[:depth], len(ordered), unmapped)


async def _sources_and_premises(
    api: Api, workspace: str, observation_ids: Sequence[str]
) -> dict[str, tuple[list[str], list[str]]]:
    out: dict[str, tuple[list[str], list[str]]] = {}
    for start in range(0, len(observation_ids), SOURCES_PER_REQUEST):
        chunk = list(observation_ids[start : start + SOURCES_PER_REQUEST])
        variables: dict[str, str] = {"w": workspace}
        variables.update({f"i{i}": oid for i, oid in enumerate(chunk)})
        data = await api.call(sources_query(len(chunk)), variables)
        for i, oid in enumerate(chunk):
            node = data[f"o{i}"]
            out[oid] = (
                [s["message"]["id"] for s in node["sources"]],
                [p["id"] for p in node["premises"]],
            )
    return out


async def observation_sources(
    api: Api, workspace: str, observation_ids: Sequence[str]
) -> dict[str, list[str]]:
    """Observation id -> ids of the messages it was derived from (DERIVED_FROM {span}); a
    derived belief (no messages of its own) maps to its premises' messages, one level down."""
    found = await _sources_and_premises(api, workspace, observation_ids)
    premises = sorted({p for sources, ps in found.values() if not sources for p in ps})
    below = await _sources_and_premises(api, workspace, premises) if premises else {}
    out: dict[str, list[str]] = {}
    for oid, (sources, ps) in found.items():
        if not sources:
            sources = [m for p in ps for m in below.get(p, ([], []))[0]]
        out[oid] = list(dict.fromkeys(sources))
    return out


def score_ranking(
    ranked_turns: Sequence[str],
    evidence_turns: Iterable[str],
    evidence_sessions: Iterable[str],
    session_of: Mapping[str, str],
    ks: Iterable[int] = DEFAULT_KS,
) -> dict[str, float]:
    """Turn-level metrics, and session-level ones (keys prefixed ``session/``)."""
    ks = tuple(ks)
    metrics = retrieval_metrics(ranked_turns, set(evidence_turns), ks)
    sessions = sessions_from_turns(ranked_turns, session_of)
    metrics |= retrieval_metrics(sessions, set(evidence_sessions), ks, prefix=SESSION_PREFIX)
    return metrics


def evidence_ranks(ranked_turns: Sequence[str], evidence_turns: Iterable[str]) -> list[int]:
    """1-based ranks of the evidence turns found in a ranking (for the per-question record)."""
    wanted = set(evidence_turns)
    return [rank for rank, turn in enumerate(ranked_turns, start=1) if turn in wanted]
