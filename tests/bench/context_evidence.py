"""Does `context` put the evidence in front of the agent? Measured without an LLM.

For each question the bench asks `context` what an app would ask (the question as
`searchQuery`, the app's view of the user, the conversation's last session, a token budget) and
counts the evidence turns the packed blob carries: a packed message that is the turn, or a packed
belief derived from it (DERIVED_FROM). It asks twice in the same run: with the matched messages
(`searchMessageLimit` at its default) and without them (0: beliefs, card, summary and the recent
tail only), so the report compares the two on the same graph, and what each takes to answer
(the first of the pair asked warms caches for the second, so the order alternates).
"""

from __future__ import annotations

import math
import statistics
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from reasoners.context.assemble import SEARCH_MESSAGES
from tests.bench.common import table
from tests.bench.ingest import Api
from tests.bench.metrics import OVERALL
from tests.bench.retrieval import observation_sources

CONTEXT_EVIDENCE = """
query($w: String!, $tokens: Int!, $session: String, $target: String!, $from: String,
      $q: String!, $limit: Int!) {
  context(workspace: $w, tokens: $tokens, session: $session, peerTarget: $target,
          peerPerspective: $from, searchQuery: $q, searchMessageLimit: $limit) {
    tokensUsed representation { id } matchedMessages { id } messages { id }
  }
}"""

WITH_MESSAGES = "with_messages"
WITHOUT_MESSAGES = "without_messages"
DEFAULT_LIMIT = SEARCH_MESSAGES  # `context`'s default searchMessageLimit
VARIANTS = ((WITH_MESSAGES, DEFAULT_LIMIT), (WITHOUT_MESSAGES, 0))
LABELS = {
    WITHOUT_MESSAGES: "beliefs + recent tail",
    WITH_MESSAGES: f"+ {DEFAULT_LIMIT} matched messages",
}


@dataclass(frozen=True)
class ContextAsk:
    """What the app asks: the view (observer `perspective` of `target`), session and budget."""

    workspace: str
    target: str
    perspective: str | None
    session: str | None
    tokens: int


async def context_evidence(
    api: Api,
    ask: ContextAsk,
    question: str,
    message_to_turn: Mapping[str, str],
    evidence_turns: Iterable[str],
    *,
    reverse: bool = False,
) -> dict[str, dict[str, Any]]:
    """variant -> {"found", "of", "all", "tokens", "via_messages", "via_beliefs", "ms"};
    `reverse` asks the variants in the other order."""
    evidence = set(evidence_turns)
    out: dict[str, dict[str, Any]] = {}
    for variant, limit in reversed(VARIANTS) if reverse else VARIANTS:
        start = time.perf_counter()
        data = await api.call(
            CONTEXT_EVIDENCE,
            {
                "w": ask.workspace,
                "tokens": ask.tokens,
                "session": ask.session,
                "target": ask.target,
                "from": ask.perspective,
                "q": question,
                "limit": limit,
            },
        )
        ms = (time.perf_counter() - start) * 1000
        blob = data["context"]
        packed = [*blob["matchedMessages"], *blob["messages"]]
        via_messages = {message_to_turn.get(m["id"]) for m in packed} & evidence
        sources = await observation_sources(
            api, ask.workspace, [o["id"] for o in blob["representation"]]
        )
        via_beliefs = {message_to_turn.get(m) for ms in sources.values() for m in ms} & evidence
        found = via_messages | via_beliefs
        out[variant] = {
            "found": len(found),
            "of": len(evidence),
            "all": bool(evidence) and found == evidence,
            "tokens": int(blob["tokensUsed"]),
            "via_messages": len(via_messages),
            "via_beliefs": len(via_beliefs),
            "ms": round(ms, 2),
        }
    return out


def context_summary(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    """variant -> group (overall or a category) -> {"all", "turns", "tokens", "n"}: the share
    of questions with every evidence turn packed, the mean share of evidence turns packed, the
    mean tokens used. Abstentions and questions without evidence turns are skipped."""
    rows: dict[str, dict[str, list[Mapping[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        measured = record.get("context")
        if not measured or record.get("abstention"):
            continue
        for variant, result in measured.items():
            if result["of"]:
                for group in (OVERALL, str(record["category"])):
                    rows[variant][group].append(result)
    return {
        variant: {
            group: {
                "all": sum(1.0 for r in results if r["all"]) / len(results),
                "turns": sum(r["found"] / r["of"] for r in results) / len(results),
                "tokens": sum(r["tokens"] for r in results) / len(results),
                "n": float(len(results)),
            }
            for group, results in groups.items()
        }
        for variant, groups in rows.items()
    }


def context_latency(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """variant -> {"p50", "p95", "n"}: milliseconds per `context` call, every question."""
    times: dict[str, list[float]] = defaultdict(list)
    for record in records:
        for variant, result in (record.get("context") or {}).items():
            if "ms" in result:
                times[variant].append(float(result["ms"]))
    out: dict[str, dict[str, float]] = {}
    for variant, values in times.items():
        values.sort()
        out[variant] = {
            "p50": statistics.median(values),
            "p95": values[max(0, math.ceil(0.95 * len(values)) - 1)],
            "n": float(len(values)),
        }
    return out


def latency_line(latency: Mapping[str, Mapping[str, float]]) -> str:
    parts = [
        f"{LABELS[v]} p50 {latency[v]['p50']:.0f} ms, p95 {latency[v]['p95']:.0f} ms"
        for v, _ in reversed(VARIANTS)
        if v in latency
    ]
    if not parts:
        return ""
    n = int(next(iter(latency.values()))["n"])
    return (
        f"Time per `context` call (GraphQL in process, {n} calls each): " + "; ".join(parts) + "."
    )


def context_table(summary: Mapping[str, Mapping[str, Mapping[str, float]]]) -> str:
    """Markdown: one row per group, each variant's all-found / turns-found / mean tokens."""
    variants = [v for v, _ in reversed(VARIANTS) if v in summary]
    if not variants:
        return ""
    groups = sorted(summary[variants[0]], key=lambda g: (g != OVERALL, g))
    rows = [
        [group, str(int(summary[variants[0]][group]["n"]))]
        + [
            "{all:.3f} / {turns:.3f} / {tokens:.0f}".format(**summary[v][group])
            if group in summary[v]
            else "-"
            for v in variants
        ]
        for group in groups
    ]
    return table(["group", "n", *(LABELS[v] for v in variants)], rows)
