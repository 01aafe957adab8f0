"""A second retrieval set for `bench memory`, built from LongMemEval's oracle file.

The oracle file holds all 500 questions, each with only its evidence sessions, so on its own it
cannot measure retrieval. This gives each chosen question a haystack: its own evidence sessions
plus distractor sessions drawn from the other chosen questions' evidence (seeded), none dated
after the question, shuffled by date. Questions of another file (the sample the product is
tuned and reported on) and abstention questions are left out, so the two sets share no
question. The output is a LongMemEval-format file that `bench memory --dataset longmemeval`
reads as it is.

    python -m tests.bench.haystack_mix --oracle ORACLE.json --exclude SAMPLE.json \
        --per-category 10 --distractors 30 --seed 1 --out MIX.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

Record = dict[str, Any]


def _sessions(record: Record) -> list[tuple[str, str, list[Any]]]:
    return list(
        zip(
            record["haystack_session_ids"],
            record["haystack_dates"],
            record["haystack_sessions"],
            strict=True,
        )
    )


def _plain(turns: list[Any]) -> list[Any]:
    """A distractor's turns: another question's evidence is no evidence here."""
    return [{k: v for k, v in turn.items() if k != "has_answer"} for turn in turns]


def choose(
    records: Sequence[Record], exclude: set[str], per_category: int, seed: int
) -> list[Record]:
    """Up to `per_category` questions of each type (seeded), none excluded or abstention."""
    by_type: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        qid = record["question_id"]
        if qid in exclude or qid.endswith("_abs"):
            continue
        by_type[record["question_type"]].append(record)
    rng = random.Random(seed)
    chosen: list[Record] = []
    for kind in sorted(by_type):
        pool = sorted(by_type[kind], key=lambda r: r["question_id"])
        chosen.extend(rng.sample(pool, min(per_category, len(pool))))
    return chosen


def mix(chosen: Sequence[Record], distractors: int, seed: int) -> list[Record]:
    """Each chosen question with `distractors` sessions of the others' evidence added."""
    pool: dict[str, tuple[str, list[Any]]] = {}
    for record in chosen:
        for session_id, date, turns in _sessions(record):
            pool.setdefault(session_id, (date, turns))
    rng = random.Random(seed)
    mixed: list[Record] = []
    for record in chosen:
        own = _sessions(record)
        own_ids = {session_id for session_id, _, _ in own}
        # Dates sort as written ("2023/05/21 (Sun) 19:50"); none after the question.
        candidates = sorted(
            session_id
            for session_id, (date, _) in pool.items()
            if session_id not in own_ids and date <= record["question_date"]
        )
        picked = rng.sample(candidates, min(distractors, len(candidates)))
        haystack = own + [(s, pool[s][0], _plain(pool[s][1])) for s in picked]
        haystack.sort(key=lambda session: (session[1], session[0]))
        mixed.append(
            record
            | {
                "haystack_session_ids": [s for s, _, _ in haystack],
                "haystack_dates": [d for _, d, _ in haystack],
                "haystack_sessions": [t for _, _, t in haystack],
            }
        )
    return mixed


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.haystack_mix", description=__doc__)
    parser.add_argument("--oracle", type=Path, required=True, help="longmemeval_oracle.json")
    parser.add_argument(
        "--exclude", type=Path, action="append", default=[], help="a file whose questions to skip"
    )
    parser.add_argument("--per-category", type=int, default=10)
    parser.add_argument("--distractors", type=int, default=30, help="sessions added per question")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(list(argv))
    if args.per_category < 1 or args.distractors < 0:
        parser.error("--per-category must be at least 1 and --distractors not negative")
    records = json.loads(args.oracle.read_text(encoding="utf-8"))
    exclude = {
        r["question_id"] for path in args.exclude for r in json.loads(path.read_text("utf-8"))
    }
    chosen = choose(records, exclude, args.per_category, args.seed)
    mixed = mix(chosen, args.distractors, args.seed)
    args.out.write_text(json.dumps(mixed), encoding="utf-8")
    turns = sum(len(t) for r in mixed for t in r["haystack_sessions"])
    print(f"{len(mixed)} questions, {turns:,} turns -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
