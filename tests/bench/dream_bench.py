"""Dream benchmark: what a zero-key dream costs per 1,000 new explicit beliefs, and whether that
cost grows with the representation.

For each representation size S (--sizes): a representation of S beliefs a dream has already
read (their slot and claim keys stored, as a dream leaves them), then --new undreamed ones,
written as the deriver writes them: a planted knowledge update per updatable slot the
background fills, planted negations of background claims, groups of paraphrases across
sessions, and filler. Then one dream, on demand, through the real handler: `prepare` (reading
the new beliefs, the lookups around them, the rules, embedding what they derive) and the commit
(the checked writes, the run record, the job's completion) are timed apart. No LLM is
involved, so the times are the dream's own.

Baseline, in the same run and the same representation: the deriver's write of those new
beliefs (write_explicit, with its duplicate probes, which also record each fact's near
neighbours, so the dream does not search the vector index again), the unavoidable cost of
having those beliefs at all. The report gives dream time / write time, and each size's dream
time against the smallest size's.

Background beliefs carry random unit vectors (what the vector index costs does not depend on
what the vectors mean); the new ones are embedded by the service's model.

Run: ``python -m tests.bench.dream_bench --sizes 1000,10000,100000 --new 1000``.
"""

from __future__ import annotations

import argparse
import random
import shlex
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from graph import models
from graph.keys import Representation, scope_key
from graph.props import node_props
from graph.repo import jobs, peers, sessions, workspaces
from graph.repo.observation_writes import ExplicitFact, write_explicit
from graph.repo.sessions import MemberSettings
from reasoners.deriver.dedup import exact_key
from reasoners.dreamer import scheduling
from reasoners.dreamer.handler import DreamHandler
from reasoners.dreamer.plan import Belief
from reasoners.dreamer.rules import keys_of
from reasoners.embeddings.model import embed_async
from reasoners.text.numbers import same_figures
from resolvers.services import Services
from tests import statements
from tests.bench.common import DOCS, add_instance_args, machine, run_bench, table

BOLT_PORT = 44687
HTTP_PORT = 44474
CHUNK = 2000
PEER = "alice"
OBSERVER = "agent"
T0 = datetime(2023, 1, 1, tzinfo=UTC)

CITIES = ["Paris", "Lisbon", "Berlin", "Madrid", "Oslo", "Dublin", "Vienna", "Prague"]
EMPLOYERS = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay"]
FAVOURITES = {
    "colour": ["blue", "green", "red", "yellow"],
    "food": ["sushi", "ramen", "tacos", "pizza"],
    "band": ["Radiohead", "Blur", "Pulp", "Oasis"],
    "book": ["Dune", "Emma", "Ulysses", "Beloved"],
    "season": ["autumn", "spring", "winter", "summer"],
}
VERBS = ["likes", "eats", "drinks", "plays", "watches", "reads", "collects", "avoids"]
OBJECTS = [
    "coffee", "meat", "chess", "opera", "tennis", "poetry", "stamps", "horror films", "tea",
    "jazz", "cheese", "board games", "podcasts", "spicy food", "sailing", "crosswords",
]  # fmt: skip
TOPICS = [
    "a trip to the coast", "a new recipe", "a work deadline", "a film from last week",
    "the garden", "a friend's wedding", "a running plan", "a language course",
    "a broken laptop", "a concert", "a museum visit", "a budget spreadsheet",
]  # fmt: skip
# Filler: one-off events, drawn from these parts so that two of them rarely read alike.
ACTIONS = [
    "fixed", "planned", "booked", "cancelled", "painted", "sold", "borrowed", "returned",
    "photographed", "repaired", "ordered", "wrote about", "lost", "found", "cleaned", "sketched",
]  # fmt: skip
THINGS = [
    "a bicycle", "the kitchen shelf", "a train ticket", "a dentist appointment", "a birthday card",
    "an old camera", "a winter coat", "a library book", "a violin string", "a passport photo",
    "a garden hose", "a laptop charger", "a rental van", "a hiking map", "a wool scarf",
    "a paddle board", "a tax form", "a ceramic bowl", "a vinyl record", "a desk lamp",
]  # fmt: skip
WHEN = [
    "on a rainy Tuesday", "after lunch", "during a layover", "before the weekend",
    "late at night", "with a neighbour", "for a colleague", "in a hurry", "at the market",
    "while on holiday", "for the third time", "with some help from a cousin",
]  # fmt: skip
PARAPHRASES = [
    ("{p} goes running before work.", "{p} went running before work today.",
     "{p} runs before work most mornings."),
    ("{p} cooks dinner for friends on Fridays.", "{p} cooked dinner for friends this Friday.",
     "{p} usually cooks dinner for friends on Friday nights."),
    ("{p} reads a novel every evening.", "{p} read a novel again this evening.",
     "{p} reads novels most evenings."),
]  # fmt: skip


@dataclass(frozen=True)
class Planted:
    updates: int
    negations: int
    paraphrase_groups: int


def random_unit(rng: np.random.Generator, dim: int) -> list[float]:
    v = rng.standard_normal(dim).astype(np.float32)
    return [float(x) for x in v / np.linalg.norm(v)]


def background_texts(size: int, rng: random.Random) -> list[str]:
    """What a dreamed representation of `size` beliefs holds: one current value per slot, one
    polarity per claim, and filler."""
    texts = [f"{PEER} lives in {CITIES[0]}.", f"{PEER} works at {EMPLOYERS[0]}."]
    texts += [f"{PEER}'s favourite {thing} is {values[0]}." for thing, values in FAVOURITES.items()]
    texts += [f"{PEER} {v} {o}." for v in VERBS for o in OBJECTS][: max(0, size // 10)]
    while len(texts) < size:
        texts.append(f"{PEER} talked about {rng.choice(TOPICS)} (note {len(texts)}).")
    return texts[:size]


def filler(rng: random.Random) -> str:
    return f"{PEER} {rng.choice(ACTIONS)} {rng.choice(THINGS)} {rng.choice(WHEN)}."


def new_texts(count: int, rng: random.Random) -> tuple[list[tuple[str, str]], Planted]:
    """(text, session) of the new beliefs, with what was planted among them."""
    items = [(f"{PEER} moved to {CITIES[1]}.", "s-new-0"), (f"{PEER} works at {EMPLOYERS[1]}.", "")]
    items += [
        (f"{PEER}'s favourite {thing} is {values[1]}.", "") for thing, values in FAVOURITES.items()
    ]
    updates = len(items)
    negations = [
        f"{PEER} doesn't {v.removesuffix('s')} {o}." for v in VERBS[:2] for o in OBJECTS[:10]
    ]
    items += [(text, "") for text in negations]
    groups = 0
    for group in PARAPHRASES:
        items += [(text.format(p=PEER), f"s-para-{i}") for i, text in enumerate(group)]
        groups += 1
    while len(items) < count:
        items.append((filler(rng), ""))
    sessions_of = [s or f"s-new-{i % 7}" for i, (_, s) in enumerate(items)]
    planted = Planted(updates, len(negations), groups)
    return [(t, s) for (t, _), s in zip(items[:count], sessions_of, strict=False)], planted


def observation_props(
    workspace: str, text: str, embedding: list[float], at: datetime, session: str
) -> dict[str, Any]:
    """A belief as a dream leaves it: read, with its slot and claim keys."""
    belief = Belief("x", text, "explicit", at, at, session)
    keys = keys_of(belief, PEER)
    props = node_props(
        models.Observation,
        {
            "uid": str(uuid.uuid4()),
            "workspace": workspace,
            "observer": OBSERVER,
            "observed": PEER,
            "level": "explicit",
            "content": text,
            "content_key": exact_key(text),
            "scope_key": scope_key(workspace, OBSERVER, PEER),
            "embedding": embedding,
            "created_at": at,
            "valid_at": at,
            "session": session,
            "times_derived": 1,
            "stale": False,
            "facets": [],
            "origin": "deriver",
            "slot": keys.slot,
            "claim_key": keys.claim,
        },
    )
    return props


async def setup(services: Services, workspace: str) -> None:
    db = services.db
    await workspaces.get_or_create(db, workspace)
    for name in (PEER, OBSERVER):
        await peers.get_or_create(db, workspace, name)
    await sessions.get_or_create(db, workspace, "bench")
    await sessions.add_peers(
        db, workspace, "bench", [MemberSettings(PEER), MemberSettings(OBSERVER)]
    )


async def insert(services: Services, workspace: str, props: list[dict[str, Any]]) -> None:
    for start in range(0, len(props), CHUNK):
        await statements.write(
            services.db,
            "bench_insert_observations",
            workspace=workspace,
            observations=props[start : start + CHUNK],
        )


async def dream_once(services: Services, workspace: str) -> dict[str, Any]:
    view = Representation(workspace, OBSERVER, PEER)
    await scheduling.on_demand(services.db, services.settings, view)
    unit = await jobs.claim(
        services.db, "dream-bench", lease=timedelta(minutes=10), max_jobs=1, workspace=workspace
    )
    assert unit is not None and unit.jobs[0].kind == scheduling.DREAM
    handler = DreamHandler(services.db, services.embedder, None, services.settings)
    start = time.perf_counter()
    prepared = await handler.prepare(unit)
    prepare_s = time.perf_counter() - start

    async def commit(tx: Any) -> None:
        if prepared.write is not None:
            await prepared.write(tx)
        await jobs.complete(tx, unit, prepared.results)

    start = time.perf_counter()
    await services.db.write_tx(commit)
    commit_s = time.perf_counter() - start
    stats = handler.stats
    return {
        "prepare_s": prepare_s,
        "commit_s": commit_s,
        "embed_s": stats.embed_seconds,
        "read": stats.observations,
        "created": stats.created,
        "superseded": stats.superseded,
    }


async def write_new(
    services: Services,
    workspace: str,
    texts: list[tuple[str, str]],
    vectors: list[list[float]],
    at: datetime,
) -> float:
    """The deriver's write of the new beliefs (write_explicit, with its duplicate probes, which
    also record each fact's near neighbours for the dream), timed: the baseline. Their source
    messages are stored first, untimed."""
    ids = [str(uuid.uuid4()) for _ in texts]
    messages = [
        node_props(
            models.Message,
            {
                "uid": ids[i],
                "workspace": workspace,
                "session": "bench",
                "peer": PEER,
                "content": text,
                "created_at": at + timedelta(minutes=i),
                "received_at": at + timedelta(minutes=i),
                "seq": i,
                "token_count": 10,
                "embedding": vectors[i],
            },
        )
        for i, (text, _) in enumerate(texts)
    ]
    for start in range(0, len(messages), CHUNK):
        await statements.write(
            services.db,
            "bench_insert_messages",
            workspace=workspace,
            messages=messages[start : start + CHUNK],
        )
    facts = [
        ExplicitFact(
            observer=OBSERVER,
            observed=PEER,
            content=text,
            content_key=exact_key(text),
            embedding=vectors[i],
            message_id=ids[i],
            span=text,
            valid_at=at + timedelta(minutes=i),
            session=session,
        )
        for i, (text, session) in enumerate(texts)
    ]
    settings = services.settings
    began = time.perf_counter()
    await services.db.write_tx(
        lambda tx: write_explicit(
            tx,
            workspace,
            facts,
            threshold=settings.dedup_threshold,
            near=settings.dream_similarity,
            agrees=same_figures,
        )
    )
    return time.perf_counter() - began


async def measure(
    services: Services,
    size: int,
    texts: list[tuple[str, str]],
    vectors: list[list[float]],
    args: argparse.Namespace,
) -> dict[str, Any]:
    workspace = f"dream-bench-{size}-{uuid.uuid4().hex[:6]}"
    await setup(services, workspace)
    rng = random.Random(args.seed)
    np_rng = np.random.default_rng(args.seed)
    dim = services.settings.embedding_dim
    background = background_texts(size, rng)
    start = time.perf_counter()
    await insert(
        services,
        workspace,
        [
            observation_props(
                workspace,
                text,
                random_unit(np_rng, dim),
                T0 + timedelta(minutes=i),
                f"s-old-{i % 50}",
            )
            for i, text in enumerate(background)
        ],
    )
    load_s = time.perf_counter() - start
    write_s = await write_new(services, workspace, texts, vectors, T0 + timedelta(days=400))
    dream = await dream_once(services, workspace)
    if not args.keep:
        await workspaces.delete(services.db, workspace)
    total = dream["prepare_s"] + dream["commit_s"]
    return {
        "size": size,
        "new": len(texts),
        "load_s": round(load_s, 2),
        **{k: round(v, 4) if isinstance(v, float) else v for k, v in dream.items()},
        "dream_s": round(total, 4),
        "dream_s_per_1000": round(total * 1000 / len(texts), 4),
        # Beyond model time: what the dream costs the graph and the rules.
        "graph_s_per_1000": round((total - dream["embed_s"]) * 1000 / len(texts), 4),
        "baseline_write_s": round(write_s, 4),
        "ratio_to_write": round(total / write_s, 2) if write_s else None,
    }


async def run(services: Services, args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    texts, planted = new_texts(args.new, rng)
    vectors = await embed_async(services.embedder, [t for t, _ in texts])
    # Warm-up: the first dream pays for loading the statements into the query cache.
    await measure(services, 200, texts[:100], vectors[:100], args)
    rows = [await measure(services, size, texts, vectors, args) for size in args.sizes]
    smallest = rows[0]["graph_s_per_1000"]
    for row in rows:
        row["growth_vs_smallest"] = (
            round(row["graph_s_per_1000"] / smallest, 2) if smallest else None
        )
    return {
        "when": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "command": "python -m tests.bench.dream_bench " + shlex.join(args.argv),
        "planted": planted.__dict__,
        "rows": rows,
    }


def render(report: dict[str, Any]) -> str:
    m = report["machine"]
    rows = report["rows"]
    planted = report["planted"]
    lines = [
        "## Dreams: cost per 1,000 new beliefs",
        "",
        f"Run {report['when']} on {m.get('cpu', '?')}, {m['cores']} cores, "
        f"{m.get('ram_gib', '?')} GiB RAM, Python {m['python']}. "
        f"Command: `{report['command']}`.",
        "",
        "One zero-key dream over the new beliefs of a representation that already holds S "
        "dreamed ones. `prepare`: reading the new beliefs, the index lookups around them "
        "(slots, opposite claims, the near neighbours the deriver recorded, earlier inductions "
        "and contradictions), the rules and embedding what they derive; `commit`: the checked "
        "writes, the dream run and the job's completion. Baseline (same run, same "
        "representation): the deriver's write of the new beliefs, duplicate probes included "
        "(they record the neighbours). Planted among the new beliefs: "
        f"{planted['updates']} knowledge updates, {planted['negations']} negations of earlier "
        f"claims, {planted['paraphrase_groups']} groups of three paraphrases across sessions. "
        "Embedding is the model's time to embed the derived beliefs (CPU, no GPU); the column "
        "after it is the dream's cost beyond model time.",
        "",
        table(
            [
                "S (beliefs)",
                "new",
                "prepare s",
                "commit s",
                "dream s per 1,000",
                "of it embedding s",
                "without embedding, per 1,000",
                "superseded",
                "created",
                "baseline write s",
                "dream / write",
                "vs smallest S",
            ],
            [
                [
                    f"{r['size']:,}",
                    f"{r['new']:,}",
                    f"{r['prepare_s']:.3f}",
                    f"{r['commit_s']:.3f}",
                    f"**{r['dream_s_per_1000']:.3f}**",
                    f"{r['embed_s']:.3f}",
                    f"**{r['graph_s_per_1000']:.3f}**",
                    str(r["superseded"]),
                    str(r["created"]),
                    f"{r['baseline_write_s']:.3f}",
                    f"{r['ratio_to_write']}",
                    f"{r['growth_vs_smallest']}x",
                ]
                for r in rows
            ],
        ),
    ]
    return "\n".join(lines)


def _sizes(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


def parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="beliefgraph bench dream", description=__doc__)
    parser.add_argument("--sizes", type=_sizes, default=[1000, 10000, 100000])
    parser.add_argument("--new", type=int, default=1000, help="undreamed beliefs per dream")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--report", type=Path, default=DOCS / "BENCHMARKS.md")
    parser.add_argument("--json", type=Path, default=DOCS / "bench-dream.json")
    parser.add_argument("--keep", action="store_true", help="keep workspaces and the server")
    add_instance_args(
        parser,
        instance="dream-bench",
        bolt_port=BOLT_PORT,
        http_port=HTTP_PORT,
        heap="2g",
        pagecache="2g",
    )
    args = parser.parse_args(argv)
    args.argv = list(argv)
    if args.new < 100:
        parser.error("--new must be at least 100 (the planted beliefs take about 50)")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    return run_bench("dream", argv, parse, run, render)


if __name__ == "__main__":
    raise SystemExit(main())
