"""Memory benchmark: LongMemEval, LoCoMo and BEAM through beliefgraph's public API.

For each conversation: a workspace of its own, every turn sent with ``addMessages`` (peers =
speakers, one session per dataset session, the dataset's dates as ``createdAt``), then
``flushQueue`` and a worker until ``queueStatus`` is idle. Then, per question:

- retrieval, always (no LLM needed): the conversation's turns ranked by our message search,
  by our observations (mapped to their source turns through DERIVED_FROM), by BM25 and by
  exact dense cosine; recall_any@k, recall_all@k and NDCG@k at turn and session level
  (``tests/bench/metrics.py``, LongMemEval's definitions);
- question answering, when an LLM is configured: the reader (``--reader dialectic``: GraphQL
  ``chat``; ``--reader context``: GraphQL ``context`` + the LLM) and the full-context
  baseline, each graded by the benchmark's judge (``tests/bench/qa.py``).

Finished questions go to a JSONL log, so an interrupted run resumes where it stopped
(``--fresh`` starts over); a logged result is reused only under the same settings and the same
data (a SHA-256 of the files read), and the report says how many were. The report is a section
of ``docs/BENCHMARKS.md`` and a JSON file.

Run: ``python -m tests.bench.memory_bench --dataset longmemeval --path FILE [--limit N]``
(or ``beliefgraph bench memory ...``). Neo4j: ``NEO4J_URI`` if set, else the managed
instance "bench" (shared with the other benches; started if needed, never stopped here).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import datetime as dt
import functools
import json
import logging
import os
import random
import re
import shlex
import statistics
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from graph.repo.messages import MessageFilter
from graph.settings import Settings
from reasoners.deriver.first_person import extract
from reasoners.embeddings.model import Embedder
from reasoners.embeddings.passages import model_inputs
from reasoners.llm.config import llm_config_from_env
from reasoners.llm.interface import LLM
from reasoners.llm.openai_compatible import OpenAICompatibleLLM
from reasoners.search.messages import message_candidates
from resolvers.app import create_app
from resolvers.auth import KeyScope, Principal, issue_key
from resolvers.runtime import build_worker, close_services, open_services
from resolvers.services import Services
from tests import statements
from tests.bench import report as reporting
from tests.bench.common import DOCS, add_instance_args, machine, neo4j_from_args, write_section
from tests.bench.context_evidence import (
    ContextAsk,
    context_evidence,
    context_latency,
    context_summary,
)
from tests.bench.embed_cache import CacheMismatch, DiskVectors
from tests.bench.evidence import scored, sent_evidence, unscored_ids
from tests.bench.fusion_replay import pool_record
from tests.bench.ingest import (
    Api,
    Ingested,
    app_views,
    delete_leftover,
    delete_workspace,
    ingest_conversation,
    iso_date,
    peer_names,
    settle_queue,
    stored_text,
    workspace_name,
)
from tests.bench.ingest_cost import time_ingest
from tests.bench.loaders import (
    Conversation,
    Dataset,
    Question,
    load_beam,
    load_locomo,
    load_longmemeval,
)
from tests.bench.metrics import DEFAULT_KS
from tests.bench.qa import (
    ContextReader,
    DialecticReader,
    FullContextReader,
    Perspective,
    QAItem,
    Reader,
    ReaderUnavailable,
    answer_and_grade,
    beam_rubrics,
    check_reader_field,
    perspective,
    question_text,
)
from tests.bench.retrieval import (
    DREAMED,
    RANKER_LABELS,
    RANKERS,
    Baselines,
    MemoEmbedder,
    ObservationRanking,
    TurnCorpus,
    asking_speaker,
    evidence_ranks,
    rank_observations,
    rank_ours,
    score_ranking,
)
from tests.bench.split import SPLIT_NOTE, split_halves

DATASETS: tuple[str, ...] = ("longmemeval", "locomo", "beam")
BENCH_BOLT_PORT = 37687
BENCH_HTTP_PORT = 37474
DEFAULT_DEPTH = 100  # turns per ranking: the API's largest page
MEMO_LIMIT = 200_000  # vectors kept across conversations (~300 MB at 384 float32 dimensions)
EMBED_SAMPLE = 500  # turns embedded fresh to time the embedder per message
EMBED_SAMPLE_SEED = 16
# The sample's addMessages calls with and without passages: small enough that the two ways
# alternate 20 times over 500 turns, as large as a LongMemEval session.
INGEST_COST_BATCH = 25
DEFAULT_MODEL = "all-MiniLM-L6-v2"  # what an empty BELIEFGRAPH_EMBEDDING_MODEL loads


# -- arguments -------------------------------------------------------------------------------


def _ks(text: str) -> tuple[int, ...]:
    try:
        ks = tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--ks wants integers like 5,10,20,50, not {text!r}"
        ) from None
    if not ks or ks[0] < 1:
        raise argparse.ArgumentTypeError("--ks wants positive integers")
    return ks


def parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="beliefgraph bench memory", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--dataset", required=True, choices=DATASETS)
    parser.add_argument("--path", required=True, type=Path, help="dataset file (BEAM: directory)")
    parser.add_argument("--limit", type=int, help="first N questions of the file (default: all)")
    parser.add_argument("--reader", choices=("dialectic", "context"), default="dialectic")
    parser.add_argument("--reasoning-level", default="low", help="dialectic level (chat reader)")
    parser.add_argument(
        "--context-tokens",
        type=int,
        default=4000,
        help="token budget of `context`, for the context evidence count and the context reader",
    )
    parser.add_argument(
        "--no-full-context", action="store_true", help="skip the full-context QA baseline"
    )
    parser.add_argument("--ks", type=_ks, default=DEFAULT_KS, help="cutoffs (default 5,10,20,50)")
    parser.add_argument(
        "--depth", type=int, default=DEFAULT_DEPTH, help="turns per ranking (at most 100)"
    )
    parser.add_argument("--report", type=Path, default=DOCS / "BENCHMARKS.md")
    parser.add_argument(
        "--section",
        default=reporting.SECTION,
        help=f"report section name (default {reporting.SECTION}: another set keeps its own)",
    )
    parser.add_argument("--json", type=Path, help="default docs/bench-memory-<dataset>.json")
    parser.add_argument(
        "--results",
        type=Path,
        help="resumable per-question log (default ~/.cache/beliefgraph/bench/"
        "memory-<dataset>-<file>.jsonl; BEAM: memory-beam-<conversation id>.jsonl)",
    )
    parser.add_argument(
        "--pools",
        type=Path,
        help="also write each question's searchMessages candidates here (JSON lines, appended; "
        "--fresh empties it) for tests/bench/fusion_replay.py to tune fusion on",
    )
    parser.add_argument(
        "--dream",
        action="store_true",
        help="after the queue drains, dream each representation the app keeps (zero-key "
        "without an LLM) and rank the observations again (ranker 'dreamed')",
    )
    parser.add_argument(
        "--no-derive",
        action="store_true",
        help="build no observations: leave the deriver's jobs undone and run only the message "
        "rankers (ours, bm25, dense)",
    )
    parser.add_argument(
        "--embed-cache",
        type=Path,
        help="directory of vectors kept between runs (<name>.json texts + <name>.npy float32 "
        "rows, MODEL naming the model): texts found there are not embedded again, new vectors "
        "are added to it",
    )
    parser.add_argument(
        "--embed-sample",
        type=int,
        default=EMBED_SAMPLE,
        help=f"turns embedded fresh (fixed seed, bypassing memo and cache) to time the "
        f"embedder per message (default {EMBED_SAMPLE}; 0 = skip)",
    )
    parser.add_argument("--fresh", action="store_true", help="ignore the log: start over")
    parser.add_argument(
        "--keep",
        action="store_true",
        help="keep the workspaces afterwards, and the managed Neo4j running if this run started it",
    )
    parser.add_argument(
        "--prefix", default="bm", help="workspace name prefix (tests use their own)"
    )
    parser.add_argument(
        "--beam-id", help="BEAM conversation id (default <size>-<n> from chats/<size>/<n>)"
    )
    parser.add_argument("--ingest-concurrency", type=int, default=4, help="sessions at once")
    parser.add_argument("--drain-workers", type=int, default=2, help="workers draining the queue")
    parser.add_argument(
        "--torch-threads",
        type=int,
        default=1,
        help="embedding threads (default 1: the other core serves Neo4j while the next "
        "conversation is embedded; 0 = torch's default)",
    )
    add_instance_args(
        parser, instance="bench", bolt_port=BENCH_BOLT_PORT, http_port=BENCH_HTTP_PORT
    )
    args = parser.parse_args(list(argv))
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be >= 1")
    if not 1 <= args.depth <= 100:
        parser.error("--depth must be between 1 and 100 (the API's page cap)")
    if args.depth < max(args.ks):
        parser.error("--depth must be at least the largest k")
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", args.section):
        parser.error("--section must be lower-case letters, digits and dashes")
    if args.no_derive and args.dream:
        parser.error("--dream needs the observations that --no-derive skips")
    if args.embed_sample < 0:
        parser.error("--embed-sample must be >= 0")
    if not re.fullmatch(r"[A-Za-z0-9_.:@-]{1,20}", args.prefix):
        parser.error("--prefix: 1-20 letters, digits or _ . : @ -")
    if args.json is None:
        args.json = DOCS / f"bench-memory-{args.dataset}.json"
    return args


def default_results_path(settings: Settings, args: argparse.Namespace, dataset: Dataset) -> Path:
    """Named after the file; BEAM after the conversation id, since every size folder of BEAM
    numbers its conversations alike (``chats/100K/1``, ``chats/500K/1``)."""
    name = args.path.stem
    if args.dataset == "beam" and dataset.conversations:
        name = re.sub(r"[^A-Za-z0-9_.-]+", "-", dataset.conversations[0].id)
    return settings.home_path / "bench" / f"memory-{args.dataset}-{name}.jsonl"


# -- data --------------------------------------------------------------------------------------


def load(args: argparse.Namespace) -> Dataset:
    if args.dataset == "longmemeval":
        return load_longmemeval(args.path)
    if args.dataset == "locomo":
        return load_locomo(args.path)
    return load_beam(args.path, args.beam_id)


def select(dataset: Dataset, limit: int | None) -> tuple[list[Question], list[Conversation]]:
    """The first ``limit`` questions in file order, and the conversations they need."""
    questions = dataset.questions[:limit] if limit else list(dataset.questions)
    wanted = {q.conversation_id for q in questions}
    return questions, [c for c in dataset.conversations if c.id in wanted]


@dataclass(frozen=True)
class _Dated:
    content: str
    created_at: dt.datetime


def stored_moment(turn_date: str | None) -> dt.datetime:
    """The ``createdAt`` the service stores for a turn: its date, else the time of sending."""
    iso = iso_date(turn_date)
    if iso is None:
        return dt.datetime.now(dt.UTC)
    moment = dt.datetime.fromisoformat(iso)
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def predicted_facts(
    conversation: Conversation, max_chars: int, derived: set[str] | None = None
) -> list[str]:
    """The texts the extractive deriver will embed for this conversation.

    The extractive provider is deterministic and works sentence by sentence on each message of
    the unit's peer, so its facts are known before the worker runs. Embedding them ahead, in
    large batches, saves most of the deriver's embedding time; a wrong prediction only costs
    the deriver an embedding of its own, never a different result. ``derived``: the speakers
    whose facts some view keeps (None: all).
    """
    peer_of = peer_names(conversation)
    facts: list[str] = []
    for session in conversation.sessions:
        for turn in session.turns:
            text = stored_text(turn, max_chars)
            if text is None or (derived is not None and turn.speaker not in derived):
                continue
            message = _Dated(text, stored_moment(turn.created_at or session.date))
            facts += [f.content for f in extract([message], peer_of[turn.speaker])]
    return facts


def embed_sample(
    conversations: Sequence[Conversation], max_chars: int, size: int, seed: int = EMBED_SAMPLE_SEED
) -> list[str]:
    """``size`` distinct turn texts of the conversations, drawn with a fixed seed."""
    texts = sorted(
        {
            text
            for conversation in conversations
            for turn in conversation.turns()
            if (text := stored_text(turn, max_chars)) is not None
        }
    )
    return random.Random(seed).sample(texts, min(size, len(texts)))


def time_embedder(
    embedder: Embedder, texts: Sequence[str], batch: int, *, with_passages: bool = True
) -> float:
    """Seconds to embed ``texts`` in ``batch``-sized calls as addMessages sends them: each
    call with the batch's passages, or (``with_passages`` off) the texts alone, as before
    passages existed."""
    start = time.perf_counter()
    for first in range(0, len(texts), batch):
        chunk = texts[first : first + batch]
        embedder.embed(model_inputs(chunk)[0] if with_passages else chunk)
    return time.perf_counter() - start


def model_name(settings: Settings) -> str:
    return settings.embedding_model or DEFAULT_MODEL


def provider_name(llm: LLM | None) -> str:
    if llm is None:
        return "extractive provider (no LLM configured)"
    config = getattr(llm, "config", None)
    model = getattr(config, "model", None) or getattr(llm, "model", None)
    return f"{llm.mode} LLM" + (f" ({model})" if model else "")


# -- the run -----------------------------------------------------------------------------------


@dataclass
class Totals:
    ingest_s: float = 0.0
    drain_s: float = 0.0
    retrieval_s: float = 0.0
    qa_s: float = 0.0
    dream_s: float = 0.0
    embed_wait_s: float = 0.0
    ingested_messages: int = 0  # messages sent by addMessages in this invocation
    loads: list[float] = field(default_factory=list)
    context_asks: int = 0  # its parity alternates which `context` variant is asked first


@dataclass
class Bench:
    services: Services
    memo: MemoEmbedder
    api: Api
    args: argparse.Namespace
    store: reporting.ResultsStore
    reader: Reader | None
    baseline: Reader | None
    judge_llm: LLM | None
    rubrics: dict[str, list[str]]
    totals: Totals = field(default_factory=Totals)

    @property
    def max_chars(self) -> int:
        return self.services.settings.max_message_chars

    def texts(self, conversation: Conversation, questions: Sequence[Question]) -> set[str]:
        """Everything the service and the baselines will embed for a conversation."""
        turns = {
            text
            for turn in conversation.turns()
            if (text := stored_text(turn, self.max_chars)) is not None
        }
        texts = set(model_inputs(sorted(turns))[0])  # with their passages, as addMessages
        texts |= {question_text(q) for q in questions}
        if self.services.llm is None and not self.args.no_derive:
            observed = {d for _, d in app_views(self.args.dataset, conversation)}
            texts |= set(predicted_facts(conversation, self.max_chars, observed))
        return texts

    async def drain(self, workspace: str) -> int:
        workers = [build_worker(self.services) for _ in range(max(1, self.args.drain_workers))]
        for worker in workers:
            # Only this conversation's jobs: the Neo4j may be shared with other benches.
            worker.config = dataclasses.replace(worker.config, workspace=workspace)
        # Units of different (session, peer) pairs are independent; each worker leases its own.
        done = await asyncio.gather(*(w.drain() for w in workers))
        return sum(done)

    async def observation_count(self, ingested: Ingested) -> int:
        peers = list(ingested.peer_of.values())
        total = 0
        for observer in peers:
            for observed in peers:
                row = await statements.read_one(
                    self.services.db,
                    "count_observations_in_scope",
                    workspace=ingested.workspace,
                    observer=observer,
                    observed=observed,
                )
                total += int(row["total"]) if row else 0
        return total

    async def conversation(
        self,
        conversation: Conversation,
        questions: Sequence[Question],
        progress: reporting.Progress,
    ) -> None:
        args = self.args
        await delete_leftover(self.api, workspace_name(args.dataset, conversation, args.prefix))
        progress.show(f"{conversation.id}: ingesting")
        start = time.perf_counter()
        ingested = await ingest_conversation(
            self.api,
            args.dataset,
            conversation,
            max_batch=self.services.settings.max_batch,
            max_chars=self.max_chars,
            concurrency=args.ingest_concurrency,
            views=app_views(args.dataset, conversation),
            prefix=args.prefix,
        )
        ingest_s = time.perf_counter() - start
        self.totals.ingest_s += ingest_s
        self.totals.ingested_messages += len(ingested.message_to_turn)
        stats: dict[str, Any] = {
            "workspace": ingested.workspace,
            "messages": len(ingested.message_to_turn),
            "skipped_turns": len(ingested.skipped),
            "truncated_turns": len(ingested.truncated),
            "observations": 0,
            "jobs_done": 0,
            "dead_jobs": 0,
            "ingest_s": round(ingest_s, 3),
            "drain_s": 0.0,
        }
        if not args.no_derive:
            # With --no-derive the deriver's jobs stay queued, undone: no worker runs here,
            # and the workspace (with its queue) is deleted afterwards unless --keep.
            progress.show(f"{conversation.id}: deriving")
            start = time.perf_counter()
            queue = await settle_queue(
                self.api,
                ingested.workspace,
                functools.partial(self.drain, ingested.workspace),
                wait=asyncio.sleep,
            )
            drain_s = time.perf_counter() - start
            self.totals.drain_s += drain_s
            stats |= {
                "observations": await self.observation_count(ingested),
                "jobs_done": queue.done,
                "dead_jobs": queue.dead,
                "drain_s": round(drain_s, 3),
            }
        turn_to_message = ingested.turn_to_message
        corpus = TurnCorpus.of(
            (turn.id, turn.session_id, text)
            for turn in conversation.turns()
            if turn.id in turn_to_message
            and (text := stored_text(turn, self.max_chars)) is not None
        )
        matrix = await asyncio.to_thread(self.memo.matrix, corpus.texts)
        baselines = Baselines(corpus, matrix)
        session_of = conversation.session_of()
        # Scored against what the service holds: a turn never sent cannot be retrieved.
        cuts = [sent_evidence(q, conversation, turn_to_message) for q in questions]
        questions = [cut.question for cut in cuts]
        truncated = set(ingested.truncated)
        records = []
        for cut, question in zip(cuts, questions, strict=True):
            progress.show(f"{question.id}: evaluating")
            record = await self.question(question, conversation, ingested, baselines, session_of)
            record["conversation_stats"] = stats
            record["evidence_dropped"] = cut.dropped
            record["evidence_truncated"] = sorted(question.evidence_turn_ids & truncated)
            records.append(record)
        if args.dream:
            progress.show(f"{conversation.id}: dreaming")
            stats["dream"] = await self.dream(ingested, conversation)
            for question, record in zip(questions, records, strict=True):
                await self.rank_dreamed(question, conversation, ingested, session_of, record)
        for question, record in zip(questions, records, strict=True):
            self.store.add(record)
            progress.advance(question.id)
        if not args.keep:
            await delete_workspace(self.api, ingested.workspace)
        self.totals.loads.append(os.getloadavg()[0])

    async def keep_pool(self, question: Question, ingested: Ingested, text: str) -> None:
        """Append what searchMessages fused for this question (fusion_replay.py reads it)."""
        found = await message_candidates(
            self.services.db,
            self.memo,
            ingested.workspace,
            text,
            MessageFilter(),
            self.args.depth,
            asker=self.asker(ingested),
        )
        line = {
            "question_id": question.id,
            "category": question.category,
            "abstention": question.abstention,
            "evidence_turns": sorted(question.evidence_turn_ids),
            "evidence_sessions": sorted(question.evidence_session_ids),
            "pool": pool_record(found, ingested.message_to_turn),
        }
        with self.args.pools.open("a") as out:
            out.write(json.dumps(line) + "\n")

    def asker(self, ingested: Ingested) -> str | None:
        speaker = asking_speaker(self.args.dataset, list(ingested.peer_of))
        return ingested.peer_of[speaker] if speaker is not None else None

    def scopes(self, conversation: Conversation, ingested: Ingested) -> list[tuple[str, str]]:
        peer = ingested.peer_of
        return [(peer[o], peer[d]) for o, d in app_views(self.args.dataset, conversation)]

    async def dream(self, ingested: Ingested, conversation: Conversation) -> dict[str, Any]:
        """One dream of each representation the app keeps, then the queue drained."""
        start = time.perf_counter()
        for observer, observed in self.scopes(conversation, ingested):
            await self.api.call(
                SCHEDULE_DREAM,
                {"w": ingested.workspace, "observer": observer, "observed": observed},
            )
        await self.drain(ingested.workspace)
        runs = []
        for observer, observed in self.scopes(conversation, ingested):
            data = await self.api.call(
                DREAM_RUNS, {"w": ingested.workspace, "observer": observer, "observed": observed}
            )
            runs += data["dreamRuns"]
        seconds = time.perf_counter() - start
        self.totals.dream_s += seconds
        return {
            "dream_s": round(seconds, 3),
            "runs": len(runs),
            "read": sum(r["observationsRead"] for r in runs),
            "superseded": sum(r["superseded"] for r in runs),
            "created": sum(r["created"] for r in runs),
            "contradictions": sum(r["contradictions"] for r in runs),
        }

    async def rank_dreamed(
        self,
        question: Question,
        conversation: Conversation,
        ingested: Ingested,
        session_of: dict[str, str],
        record: dict[str, Any],
    ) -> None:
        ranking = await rank_observations(
            self.api,
            ingested.workspace,
            question_text(question),
            self.scopes(conversation, ingested),
            ingested.message_to_turn,
            self.args.depth,
        )
        record["retrieval"][DREAMED] = score_ranking(
            ranking.turns,
            question.evidence_turn_ids,
            question.evidence_session_ids,
            session_of,
            self.args.ks,
        )
        record["evidence_ranks"][DREAMED] = evidence_ranks(
            ranking.turns, question.evidence_turn_ids
        )
        record["ranked_lengths"][DREAMED] = len(ranking.turns)

    async def question(
        self,
        question: Question,
        conversation: Conversation,
        ingested: Ingested,
        baselines: Baselines,
        session_of: dict[str, str],
    ) -> dict[str, Any]:
        args = self.args
        depth = args.depth
        view = perspective(args.dataset, conversation, question)
        to_turn = ingested.message_to_turn
        start = time.perf_counter()
        text = question_text(question)
        scopes = self.scopes(conversation, ingested)
        rankings: dict[str, list[str]] = {
            "ours": await rank_ours(
                self.api, ingested.workspace, text, to_turn, depth, self.asker(ingested)
            )
        }
        by_observation = ObservationRanking([], 0, 0)
        if not args.no_derive:
            by_observation = await rank_observations(
                self.api,
                ingested.workspace,
                text,
                scopes,
                to_turn,
                depth,
            )
            rankings["observations"] = by_observation.turns
        rankings["bm25"] = baselines.rank_bm25(text, depth)
        [vector] = await asyncio.to_thread(self.memo.matrix, [text])
        rankings["dense"] = baselines.rank_dense(vector, depth)
        retrieval_s = time.perf_counter() - start
        self.totals.retrieval_s += retrieval_s
        if args.pools is not None:  # outside the retrieval time: the rankings are done
            await self.keep_pool(question, ingested, text)
        packed = await context_evidence(
            self.api,
            context_ask(conversation, ingested, view, args.context_tokens),
            text,
            to_turn,
            question.evidence_turn_ids,
            reverse=self.totals.context_asks % 2 == 1,
        )
        self.totals.context_asks += 1
        record: dict[str, Any] = {
            "question_id": question.id,
            "conversation_id": question.conversation_id,
            "category": question.category,
            "abstention": question.abstention,
            "question": question.question,
            "answer": question.answer,
            "evidence_turns": sorted(question.evidence_turn_ids),
            "evidence_sessions": sorted(question.evidence_session_ids),
            "retrieval": {
                name: score_ranking(
                    ranked,
                    question.evidence_turn_ids,
                    question.evidence_session_ids,
                    session_of,
                    args.ks,
                )
                for name, ranked in rankings.items()
            },
            "evidence_ranks": {
                name: evidence_ranks(ranked, question.evidence_turn_ids)
                for name, ranked in rankings.items()
            },
            "ranked_lengths": {name: len(ranked) for name, ranked in rankings.items()},
            "observation_hits": by_observation.observations,
            "observation_hits_unmapped": by_observation.unmapped,
            "retrieval_s": round(retrieval_s, 3),
            "context": packed,
        }
        if self.judge_llm is not None and (self.reader is not None or self.baseline is not None):
            start = time.perf_counter()
            item = QAItem(args.dataset, question, conversation, ingested, view)
            rubric = self.rubrics.get(question.id)
            qa: dict[str, Any] = {}
            for reader in (self.reader, self.baseline):
                if reader is None:
                    continue
                try:
                    qa[reader.name] = await answer_and_grade(reader, self.judge_llm, item, rubric)
                except ReaderUnavailable as exc:
                    # The field vanished or changed shape mid-run: stop asking it.
                    print(f"\nQA reader skipped from now on: {exc}", file=sys.stderr)
                    self.reader = None
            record["qa"] = qa
            qa_s = time.perf_counter() - start
            record["qa_s"] = round(qa_s, 3)
            self.totals.qa_s += qa_s
        return record


async def setup_qa(
    api: Api, args: argparse.Namespace, judge_llm: LLM | None, notes: list[str]
) -> tuple[Reader | None, Reader | None]:
    """The reader and the full-context baseline, or None each with a note saying why not."""
    if judge_llm is None:
        notes.append(
            "No LLM is configured (BELIEFGRAPH_LLM_BASE_URL / BELIEFGRAPH_LLM_API_KEY unset), "
            "so no answers were generated or judged: this run measures retrieval only."
        )
        return None, None
    reader: Reader | None = None
    try:
        if args.reader == "dialectic":
            await check_reader_field(api, "chat")
            reader = DialecticReader(api, args.reasoning_level)
        else:
            arguments = await check_reader_field(api, "context")
            reader = ContextReader(
                api,
                judge_llm,
                args.context_tokens,
                with_perspective="peerPerspective" in arguments,
            )
    except ReaderUnavailable as exc:
        print(f"QA reader unavailable: {exc}", file=sys.stderr)
        notes.append(f"Reader `{args.reader}` not run: {exc}.")
    baseline = None if args.no_full_context else FullContextReader(judge_llm)
    return reader, baseline


def store_config(
    args: argparse.Namespace,
    services: Services,
    judge_llm: LLM | None,
    reader: Reader | None,
    baseline: Reader | None,
    data_sha256: str,
) -> dict[str, Any]:
    """What a logged result depends on; a log line with another config is not reused."""
    return {
        "dataset": args.dataset,
        "file": args.path.name,
        # The name alone would let another file or folder of that name resume these results.
        "data_sha256": data_sha256,
        "ks": list(args.ks),
        "depth": args.depth,
        "observations_by": provider_name(services.llm),
        "judge": provider_name(judge_llm) if judge_llm is not None else None,
        "reader": reader.name if reader is not None else None,
        "reasoning_level": args.reasoning_level if args.reader == "dialectic" else None,
        "context_tokens": args.context_tokens if args.reader == "context" else None,
        "baseline": baseline.name if baseline is not None else None,
        "dream": bool(args.dream),
        # Only when set, so logs of full runs written before the flag existed still resume.
        **({"derive": False} if args.no_derive else {}),
    }


METHOD = (
    "Method: each conversation (LongMemEval: each question's haystack) is sent through the "
    "GraphQL API into its own workspace: peers = speakers, one session per haystack session, "
    "the session date as `createdAt`, one `clientId` per turn; then `flushQueue` and workers "
    "until `queueStatus` is idle. Rankings, each cut at {depth} turns: **ours** = "
    "`searchMessages` at workspace scope (all speakers: evidence can be an assistant turn), "
    "with `asker` = the user in LongMemEval and BEAM (their questions are the user's: "
    '"what did I buy") and no asker in LoCoMo (its questions name the speakers); '
    "**observations** = `searchObservations` over the representations the app keeps "
    "(LongMemEval: the assistant's models of the user and of itself; sessions are joined "
    "with observeMe / observeOthers set so that only those are derived), mapped to their "
    "source turns through DERIVED_FROM (only turns that yielded an observation can appear, "
    "so this list is often shorter than {depth}); **BM25** over the turns (turns sharing no "
    "word with the question are not ranked); **dense** = exact cosine over the turns with the "
    "service's own embedding model. Every ranker sees the same corpus: all turns of both "
    "speakers, with evidence = the turns marked `has_answer` (LongMemEval's own retrieval "
    "script indexes user turns only, so its numbers are not directly comparable). Session "
    "rankings come from the turn rankings (each session at the rank of its best turn). "
    "Metrics are LongMemEval's (`tests/bench/metrics.py`: NDCG counts ranks 1 and 2 alike) "
    "and skip abstention questions, and questions left with no evidence turn or session that "
    "was sent (evidence turns with empty text are not sent, and leave the evidence). Turn, "
    "question and (extractive provider) fact embeddings are computed ahead, conversation by "
    "conversation, through a memo shared by the service "
    "and the dense baseline, so each text is embedded once and the stored vectors are the "
    "model's own."
)


def summarize(
    bench: Bench,
    questions: Sequence[Question],
    conversations: Sequence[Conversation],
    *,
    argv: Sequence[str],
    neo4j: str,
    wall_s: float,
    resumed: int,
    notes: list[str],
    halves: Mapping[str, str],
    embed_cost: Mapping[str, float] | None,
    ingest_cost: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    args = bench.args
    rankers = (*RANKERS, DREAMED) if args.dream else RANKERS
    if args.no_derive:
        rankers = tuple(r for r in rankers if r not in OBSERVATION_RANKERS)
    records = bench.store.ordered([q.id for q in questions])
    stats = {r["conversation_id"]: r["conversation_stats"] for r in records}
    info = machine()
    loads = bench.totals.loads or [os.getloadavg()[0]]
    qa = reporting.qa_summary(records)
    disk = bench.memo.disk
    ingested = bench.totals.ingested_messages
    excluded = unscored_ids(records)
    return {
        "dataset": args.dataset,
        "dataset_label": f"{args.dataset}, `{args.path.name}`",
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "command": command_line(argv),
        "environment": {
            "machine": info,
            "machine_line": (
                f"{info.get('cpu', 'unknown CPU')}, {info.get('cores')} cores, "
                f"{info.get('ram_gib', '?')} GiB RAM, Python {info.get('python')}"
            ),
            "neo4j": neo4j,
            "torch_threads": args.torch_threads,
            "load": (
                f"min {min(loads):.1f}, median {statistics.median(loads):.1f}, max {max(loads):.1f}"
            ),
        },
        "provider": {
            "observations": provider_name(bench.services.llm),
            "judge": provider_name(bench.judge_llm) if bench.judge_llm is not None else None,
        },
        "counts": {
            "questions": len(records),
            "abstentions": sum(1 for r in records if r["abstention"]),
            "conversations": len(stats),
            "messages": sum(s["messages"] for s in stats.values()),
            "observations": sum(s["observations"] for s in stats.values()),
            "dead_jobs": sum(s["dead_jobs"] for s in stats.values()),
            "selected_questions": len(questions),
            "selected_conversations": len(conversations),
            "retrieval_scored": sum(1 for r in records if scored(r)),
        },
        "resume": {
            "log": str(bench.store.path),
            "data_sha256": bench.store.config["data_sha256"],
            "resumed": resumed,
            "ignored_log_lines": bench.store.ignored,
        },
        "ingestion": reporting.ingestion_summary(records, bench.max_chars),
        "retrieval_excluded": excluded,
        "timings": {
            "wall_s": wall_s,
            "resumed": resumed,
            "embed_s": bench.memo.seconds,
            "embedded": bench.memo.computed,
            "embed_wait_s": bench.totals.embed_wait_s,
            "ingest_s": bench.totals.ingest_s,
            "drain_s": bench.totals.drain_s,
            "retrieval_s": bench.totals.retrieval_s,
            "qa_s": bench.totals.qa_s,
            "dream_s": bench.totals.dream_s,
            "ingested_messages": ingested,
            "ingest_ms_per_message": (
                1000 * bench.totals.ingest_s / ingested if ingested else None
            ),
        },
        "embed_cost": dict(embed_cost) if embed_cost is not None else None,
        "ingest_cost": dict(ingest_cost) if ingest_cost is not None else None,
        "embed_cache": (
            {
                "directory": str(disk.directory),
                "model": disk.model,
                "files": disk.files,
                "loaded": disk.loaded,
                "served": disk.served,
                "written": disk.written,
            }
            if disk is not None
            else None
        ),
        "derive": not args.no_derive,
        "ks": list(args.ks),
        "depth": args.depth,
        "rankers": list(rankers),
        "ranker_labels": dict(RANKER_LABELS),
        "method": METHOD.format(depth=args.depth)
        + (DREAM_METHOD if args.dream else "")
        + (NO_DERIVE_METHOD if args.no_derive else ""),
        "dreams": dream_totals(stats.values()) if args.dream else None,
        "retrieval": reporting.retrieval_summary(records, rankers, args.ks),
        "context": context_summary(records),
        "context_latency": context_latency(records),
        "context_tokens": args.context_tokens,
        "split": reporting.split_summary(records, rankers, args.ks, halves),
        "split_note": SPLIT_NOTE,
        "qa": qa,
        "qa_notes": notes,
        "per_question": [{k: v for k, v in r.items() if k != "config"} for r in records],
    }


def context_ask(
    conversation: Conversation, ingested: Ingested, view: Perspective, tokens: int
) -> ContextAsk:
    """What an app asks `context` before answering: its view of the user, in the latest
    session, as the context reader asks (qa.py)."""
    peers = ingested.peer_of
    last = conversation.sessions[-1].id if conversation.sessions else None
    target = view.target or view.agent
    return ContextAsk(
        ingested.workspace,
        peers[target],
        peers[view.agent] if target != view.agent else None,
        ingested.session_of[last] if last is not None else None,
        tokens,
    )


def dream_totals(stats: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    keys = ("dream_s", "runs", "read", "superseded", "created", "contradictions")
    return {k: sum(float(s.get("dream", {}).get(k, 0)) for s in stats) for k in keys}


SCHEDULE_DREAM = """
mutation($w: String!, $observer: String!, $observed: String!) {
  scheduleDream(workspace: $w, observer: $observer, observed: $observed) { jobId }
}"""
DREAM_RUNS = """
query($w: String!, $observer: String!, $observed: String!) {
  dreamRuns(workspace: $w, observer: $observer, observed: $observed) {
    observationsRead superseded created contradictions
  }
}"""
DREAM_METHOD = (
    " With `--dream`: no dream runs while the queue drains (the dream triggers are off for the "
    "bench), so **observations** is the ranking before any dream; then `scheduleDream` for each "
    "representation the app keeps, the queue drained again, and **observations after "
    "dreaming** ranks the same way (superseded beliefs leave it; a derived belief maps to its "
    "premises' turns)."
)


NO_DERIVE_METHOD = (
    " With `--no-derive`: no observations were built in this run (the deriver's jobs were left "
    "undone, no worker ran), so only the message rankers are reported."
)
OBSERVATION_RANKERS: frozenset[str] = frozenset({"observations", DREAMED})


def command_line(argv: Sequence[str]) -> str:
    if Path(sys.argv[0]).name == "beliefgraph":
        return shlex.join(["beliefgraph", "bench", "memory", *argv])
    return shlex.join(["python", "-m", "tests.bench.memory_bench", *argv])


async def time_ingest_both_ways(
    api: Api,
    services: Services,
    memo: MemoEmbedder,
    key: str | None,
    sample: Sequence[str],
    prefix: str,
) -> dict[str, float] | None:
    """addMessages over the embedder's sample with passages (``api``) and without (an app of
    the same services with them off), vectors ready in the memo."""
    if not sample:
        return None
    print(f"timing addMessages on {len(sample)} turns, with and without passages", file=sys.stderr)
    await memo.prime(model_inputs(sample)[0])
    off = dataclasses.replace(services.settings, message_passages="off")
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=create_app(off, services)),
        base_url="http://127.0.0.1",
        timeout=None,
    ) as http:
        return await time_ingest(api, Api(http, key), sample, INGEST_COST_BATCH, prefix)


async def run_bench(
    services: Services,
    args: argparse.Namespace,
    *,
    judge_llm: LLM | None,
    argv: Sequence[str],
    neo4j: str,
    dataset: Dataset | None = None,
) -> dict[str, Any]:
    """The whole bench over open services; returns the report (also written to disk).
    `dataset`: the file already read (else it is read here)."""
    began = time.perf_counter()
    dataset = load(args) if dataset is None else dataset
    questions, conversations = select(dataset, args.limit)
    # Over the whole file, so --limit never moves a question to the other half.
    halves = split_halves((q.id, q.category) for q in dataset.questions)
    inner = services.embedder
    disk = None
    if args.embed_cache is not None:
        disk = DiskVectors(args.embed_cache, model_name(services.settings), inner.dimension)
        print(
            f"embed cache {args.embed_cache}: {disk.loaded:,} vectors in {disk.files} files",
            file=sys.stderr,
        )
    embed_cost: dict[str, float] | None = None
    sample: list[str] = []
    if args.embed_sample:
        # Cached vectors hide what embedding costs: time the service's own embedder on a
        # fixed sample, fresh (bypassing the memo and the cache), in addMessages-sized calls.
        sample = embed_sample(conversations, services.settings.max_message_chars, args.embed_sample)
        batch = services.settings.max_batch
        print(f"timing the embedder on {len(sample)} turns", file=sys.stderr)
        seconds = await asyncio.to_thread(time_embedder, inner, sample, batch)
        alone = await asyncio.to_thread(time_embedder, inner, sample, batch, with_passages=False)
        embed_cost = {
            "texts": float(len(sample)),
            "batch": float(batch),
            "seconds": seconds,
            "ms_per_message": 1000 * seconds / len(sample) if sample else 0.0,
            "passages": float(len(model_inputs(sample)[0]) - len(sample)),
            "ms_per_message_without_passages": 1000 * alone / len(sample) if sample else 0.0,
        }
    memo = MemoEmbedder(inner, disk=disk)
    # The app, the worker and the baselines all embed through the memo.
    services = dataclasses.replace(services, embedder=memo)
    settings = services.settings
    key = None
    if settings.auth_enabled:
        key = issue_key(settings.auth_secret, Principal(KeyScope.ADMIN), ttl_seconds=24 * 3600)
    app = create_app(settings, services)
    notes: list[str] = []
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1", timeout=None
    ) as http:
        api = Api(http, key)
        ingest_cost = await time_ingest_both_ways(api, services, memo, key, sample, args.prefix)
        reader, baseline = await setup_qa(api, args, judge_llm, notes)
        path = args.results or default_results_path(settings, args, dataset)
        if args.fresh and path.exists():
            path.unlink()
        if args.fresh and args.pools is not None and args.pools.exists():
            args.pools.unlink()
        store = reporting.ResultsStore(
            path, store_config(args, services, judge_llm, reader, baseline, dataset.digest)
        )
        rubrics = beam_rubrics(args.path, args.beam_id) if args.dataset == "beam" else {}
        bench = Bench(services, memo, api, args, store, reader, baseline, judge_llm, rubrics)
        by_conversation: dict[str, list[Question]] = {}
        for q in questions:
            by_conversation.setdefault(q.conversation_id, []).append(q)
        resumed = sum(1 for q in questions if store.has(q.id))
        todo = [
            (c, [q for q in by_conversation[c.id] if not store.has(q.id)]) for c in conversations
        ]
        todo = [(c, qs) for c, qs in todo if qs]
        print(
            f"{len(questions)} questions in {len(conversations)} conversations; "
            f"{resumed} already in {path}; observations by {provider_name(services.llm)}",
            file=sys.stderr,
        )
        progress = reporting.Progress(len(questions))
        progress.done = resumed
        texts = [bench.texts(c, qs) for c, qs in todo]
        priming = asyncio.create_task(memo.prime(sorted(texts[0]))) if todo else None
        try:
            for index, (conversation, pending) in enumerate(todo):
                assert priming is not None
                progress.show(f"{conversation.id}: embedding")
                start = time.perf_counter()
                await priming
                bench.totals.embed_wait_s += time.perf_counter() - start
                if index + 1 < len(todo):
                    # Embed the next conversation while this one is ingested and evaluated.
                    priming = asyncio.create_task(memo.prime(sorted(texts[index + 1])))
                await bench.conversation(conversation, pending, progress)
                if len(memo) > MEMO_LIMIT:
                    # Haystacks share sessions, so vectors are kept for later conversations;
                    # past this size, keep only what the next conversation needs.
                    later = texts[index + 1] if index + 1 < len(todo) else set()
                    memo.forget(texts[index] - later)
        finally:
            if priming is not None and not priming.done():
                priming.cancel()
            progress.close()
            if disk is not None:
                disk.flush()
        report = summarize(
            bench,
            questions,
            conversations,
            argv=argv,
            neo4j=neo4j,
            wall_s=time.perf_counter() - began,
            resumed=resumed,
            notes=notes,
            halves=halves,
            embed_cost=embed_cost,
            ingest_cost=ingest_cost,
        )
    write_section(args.report, args.section, reporting.render(report))
    reporting.write_json(args.json, report)
    return report


async def main_async(
    args: argparse.Namespace, argv: Sequence[str], dataset: Dataset
) -> dict[str, Any]:
    # Started if needed, and stopped after if this run started it (unless --keep): a log left
    # by an interrupted run resumes on the same instance, started again.
    neo4j = neo4j_from_args(args)
    where = neo4j.where
    config = llm_config_from_env(os.environ)
    llm: LLM | None = OpenAICompatibleLLM(config) if config is not None else None
    # No dream runs by itself while a conversation is derived: with --dream, dreams are
    # scheduled after the queue drained, so the rankings before and after are both known.
    settings = dataclasses.replace(neo4j.settings, dream_threshold=0, dream_idle=0)
    services = await open_services(settings, password=neo4j.password, llm=llm)
    try:
        row = await statements.read_one(services.db, "bench_neo4j_version")
        if row:
            where = f"{row['version']} {row['edition']}, {where}"
        return await run_bench(
            services, args, judge_llm=llm, argv=argv, neo4j=where, dataset=dataset
        )
    finally:
        await close_services(services)
        neo4j.done(args.keep)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse(argv)
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    if args.torch_threads > 0:
        import torch

        torch.set_num_threads(args.torch_threads)
    # The file is read before Neo4j starts: a wrong path or a broken file is told at once, not
    # as a traceback half a minute later; a file without questions would "measure" nothing.
    try:
        dataset = load(args)
    except (OSError, ValueError, KeyError) as exc:
        print(f"--path {args.path}: {exc}", file=sys.stderr)
        return 2
    if not dataset.questions:
        print(f"--path {args.path}: no questions to measure", file=sys.stderr)
        return 2
    try:
        report = asyncio.run(main_async(args, argv, dataset))
    except CacheMismatch as exc:
        print(f"--embed-cache: {exc}", file=sys.stderr)
        return 2
    print(reporting.render(report))
    print(f"wrote {args.report} and {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
