"""Message fusion replayed offline: tune the weights on the candidates the product really found.

`bench memory --pools FILE` keeps, for each question, what `searchMessages` fused: both halves'
candidates (as turn ids, with their similarity, fulltext score and length) and the turns of the
speaker the query points at. This module fuses them again with other weights, through the
product's own `fuse`, and scores the rankings as the bench does, by half of the fixed tuning split
(split.py) and by category. At the shipped weights the replay gives the bench's own ranking,
so a weight chosen here is what the product would rank; only a change to what the halves find
(indexes, passages, analyzers) needs the bench run again.

Run: ``python -m tests.bench.fusion_replay POOLS.jsonl [--text-weights 0.05,0.1]
[--speaker-weights 0,0.1] [--length-weights 0,0.02] [--length-references 100,200]
[--reply-weights 0,0.25] [--depth 100]``.
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from graph.records import MessageRecord
from reasoners.search.fusion import LENGTH_REFERENCE, LENGTH_WEIGHT, TEXT_WEIGHT, length_penalty
from reasoners.search.hybrid import Candidates, fuse
from reasoners.search.replies import REPLY_WEIGHT
from reasoners.search.speakers import SPEAKER_WEIGHT
from tests.bench.common import table
from tests.bench.retrieval import score_ranking
from tests.bench.split import HALVES, split_halves

# What the replay scores (LongMemEval's metrics, as the bench names them).
METRICS = ("recall_all@10", "ndcg_any@10", "session/recall_all@5")


def pool_record(
    found: Candidates[MessageRecord], message_to_turn: Mapping[str, str]
) -> dict[str, Any]:
    """The candidates of one search as turn ids (messages outside the conversation's turns are
    left out), JSON-ready; `session_of` names each pooled turn's session."""
    vector = [[message_to_turn[m.id], s] for m, s in found.by_vector if m.id in message_to_turn]
    text = [
        [message_to_turn[m.id], score, s]
        for m, score, s in found.by_text
        if m.id in message_to_turn
    ]
    pooled = {m.id: m for m in found.pooled()}
    known = {i: m for i, m in pooled.items() if i in message_to_turn}
    favour = found.favour
    return {
        "vector": vector,
        "text": text,
        "favoured": sorted(message_to_turn[i] for i, m in known.items() if favour and favour(m)),
        "session_of": {message_to_turn[i]: m.session for i, m in known.items()},
        "length": {message_to_turn[i]: len(m.content) for i, m in known.items()},
        "replies": {
            message_to_turn[reply]: message_to_turn[asked]
            for reply, asked in found.replies.items()
            if reply in known and asked in known
        },
    }


def replay_ranking(
    pool: Mapping[str, Any],
    depth: int,
    text_weight: float,
    boost: float,
    length_weight: float = LENGTH_WEIGHT,
    length_reference: int = LENGTH_REFERENCE,
    reply_weight: float = REPLY_WEIGHT,
) -> list[str]:
    """The turns `fuse` ranks from a kept pool with these weights, best first."""
    favoured = set(pool["favoured"])
    replies: Mapping[str, str] | None = pool.get("replies")
    if reply_weight and replies is None:
        raise ValueError(
            "this pool has no replies (kept by an older bench): replay it with "
            "--reply-weights 0, or run bench memory --pools again"
        )
    penalty: Callable[[str], float] | None = None
    if length_weight:
        lengths: Mapping[str, int] | None = pool.get("length")
        if lengths is None:
            raise ValueError(
                "this pool has no message lengths (kept by an older bench): replay it with "
                "--length-weights 0, or run bench memory --pools again"
            )
        known = lengths

        def penalty(turn: str) -> float:
            return length_penalty(known[turn], length_weight, length_reference)

    hits = fuse(
        [(turn, float(s)) for turn, s in pool["vector"]],
        [(turn, float(score), None if s is None else float(s)) for turn, score, s in pool["text"]],
        lambda turn: turn,
        depth,
        favoured.__contains__,
        boost,
        text_weight,
        penalty,
        replies,
        reply_weight,
    )
    return [hit.item for hit in hits]


def replay(
    records: Sequence[Mapping[str, Any]],
    depth: int,
    text_weight: float,
    boost: float,
    length_weight: float = LENGTH_WEIGHT,
    length_reference: int = LENGTH_REFERENCE,
    reply_weight: float = REPLY_WEIGHT,
) -> dict[str, dict[str, float]]:
    """Mean metrics by half, category and over all ("all"), abstention questions left out (as
    the bench does); each group also counts its questions under "n"."""
    half = split_halves((r["question_id"], r["category"]) for r in records)
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for r in records:
        if r["abstention"]:
            continue
        pool = r["pool"]
        ranked = replay_ranking(
            pool, depth, text_weight, boost, length_weight, length_reference, reply_weight
        )
        metrics = score_ranking(
            ranked, r["evidence_turns"], r["evidence_sessions"], pool["session_of"]
        )
        for group in ("all", half[r["question_id"]], r["category"]):
            sums[group]["n"] += 1
            for name in METRICS:
                sums[group][name] += metrics[name]
    return {
        group: {"n": s["n"], **{name: s[name] / s["n"] for name in METRICS}}
        for group, s in sums.items()
    }


def floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x.strip()]


def ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m tests.bench.fusion_replay",
        description="replay searchMessages' fusion over the pools `bench memory --pools` kept",
    )
    parser.add_argument("pools", type=Path, help="JSON lines written by bench memory --pools")
    parser.add_argument("--text-weights", type=floats, default=[TEXT_WEIGHT])
    parser.add_argument("--speaker-weights", type=floats, default=[SPEAKER_WEIGHT])
    parser.add_argument("--length-weights", type=floats, default=[LENGTH_WEIGHT])
    parser.add_argument(
        "--length-references",
        type=ints,
        default=[LENGTH_REFERENCE],
        help="characters up to which the length prior takes nothing",
    )
    parser.add_argument("--reply-weights", type=floats, default=[REPLY_WEIGHT])
    parser.add_argument("--depth", type=int, default=100, help="turns per ranking")
    parser.add_argument(
        "--by-category", action="store_true", help="a row per category too, not only per half"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    records = [json.loads(line) for line in args.pools.read_text().splitlines() if line.strip()]
    if not records:
        raise SystemExit(f"{args.pools}: no pools")
    rows = []
    for text_weight, boost, length_weight, reference, reply_weight in itertools.product(
        args.text_weights,
        args.speaker_weights,
        args.length_weights,
        args.length_references,
        args.reply_weights,
    ):
        try:
            result = replay(
                records, args.depth, text_weight, boost, length_weight, reference, reply_weight
            )
        except ValueError as exc:
            raise SystemExit(f"{args.pools}: {exc}") from None
        groups = [*HALVES, "all"]
        if args.by_category:
            groups += sorted(g for g in result if g not in groups)
        for group in groups:
            if group in result:
                m = result[group]
                weights = [text_weight, boost, length_weight, reference, reply_weight]
                rows.append(
                    [f"{w:g}" for w in weights]
                    + [group, f"{m['n']:.0f}"]
                    + [f"{m[name]:.3f}" for name in METRICS]
                )
    header = ["text weight", "speaker weight", "length weight", "length reference", "reply weight"]
    header += ["questions", "n", *METRICS]
    print(table(header, rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
