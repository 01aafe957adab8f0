"""Results of the memory bench: the resumable per-question log, aggregates, and the report.

- :class:`ResultsStore`: one JSON line per finished question, keyed by question id. A rerun
  with the same settings skips what the log already holds; a line written under other settings
  (another depth, reader or k, or other data: the config holds a hash of the dataset's files)
  is ignored, so results never mix.
- :func:`retrieval_summary`: means per ranker, overall and per category, over the questions
  :func:`tests.bench.evidence.scored` keeps; :func:`qa_summary` per QA system, over every
  graded question (an answer needs no retrieved evidence).
- :func:`render`: the markdown section of ``docs/BENCHMARKS.md`` (written between the
  ``bench:memory`` markers by ``common.write_section``).
- :class:`Progress`: one self-overwriting line on stderr.
"""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from tests.bench.common import table
from tests.bench.context_evidence import context_table, latency_line
from tests.bench.evidence import scored
from tests.bench.metrics import COUNT_KEY, OVERALL, QuestionScore, aggregate
from tests.bench.split import HALVES

SECTION = "memory"  # docs/BENCHMARKS.md markers: <!-- bench:memory:start --> ... end -->
LEVELS: tuple[tuple[str, str], ...] = (("turn", ""), ("session", "session/"))
METRICS: tuple[tuple[str, str], ...] = (
    ("recall_any", "recall_any"),
    ("recall_all", "recall_all"),
    ("ndcg_any", "NDCG"),
)


class ResultsStore:
    """Append-only JSONL of finished questions; the resume point of a run."""

    def __init__(self, path: Path, config: Mapping[str, Any]) -> None:
        self.path = path
        self.config = dict(config)
        self.records: dict[str, dict[str, Any]] = {}
        self.ignored = 0  # lines from other settings, or unreadable
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    self.ignored += 1  # a line cut short by a crash
                    continue
                if isinstance(record, dict) and record.get("config") == self.config:
                    self.records[str(record["question_id"])] = record
                else:
                    self.ignored += 1

    def has(self, question_id: str) -> bool:
        return question_id in self.records

    def add(self, record: dict[str, Any]) -> None:
        record = {**record, "config": self.config}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, sort_keys=True) + "\n")
            handle.flush()
        self.records[str(record["question_id"])] = record

    def ordered(self, question_ids: Sequence[str]) -> list[dict[str, Any]]:
        return [self.records[q] for q in question_ids if q in self.records]


class Progress:
    """``[####......] 12/60 q_abc  4m10s elapsed, ~16m left`` on one stderr line."""

    def __init__(self, total: int, stream: TextIO | None = None, width: int = 30) -> None:
        self.total = max(total, 1)
        self.stream = stream or sys.stderr
        self.width = width
        self.start = time.monotonic()
        self.done = 0
        self.counted = 0  # done in this process (for the rate; resumed ones are free)

    def line(self, label: str, now: float | None = None) -> str:
        elapsed = (now if now is not None else time.monotonic()) - self.start
        filled = int(self.width * self.done / self.total)
        text = f"[{'#' * filled}{'.' * (self.width - filled)}] {self.done}/{self.total} {label}"
        text += f"  {_clock(elapsed)} elapsed"
        if self.counted:
            left = elapsed / self.counted * (self.total - self.done)
            text += f", ~{_clock(left)} left"
        return text

    def advance(self, label: str, *, computed: bool = True) -> None:
        self.done += 1
        self.counted += 1 if computed else 0
        self.show(label)

    def show(self, label: str) -> None:
        self.stream.write("\r\x1b[K" + self.line(label))
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")
        self.stream.flush()


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s"


# -- aggregates ----------------------------------------------------------------------------


def retrieval_summary(
    records: Iterable[Mapping[str, Any]], rankers: Sequence[str], ks: Sequence[int]
) -> dict[str, dict[str, dict[str, float]]]:
    """ranker -> group ("overall" or a category) -> metric -> mean, over the questions with
    evidence to retrieve (abstentions and questions without evidence skipped)."""
    records = [r for r in records if scored(r)]
    out: dict[str, dict[str, dict[str, float]]] = {}
    for ranker in rankers:
        scores = [
            QuestionScore(
                r["question_id"], r["category"], r["retrieval"][ranker], bool(r["abstention"])
            )
            for r in records
            if ranker in r.get("retrieval", {})
        ]
        if scores:
            out[ranker] = aggregate(scores, ks)
    return out


def split_summary(
    records: Iterable[Mapping[str, Any]],
    rankers: Sequence[str],
    ks: Sequence[int],
    halves: Mapping[str, str],
) -> dict[str, dict[str, dict[str, dict[str, float]]]]:
    """half -> :func:`retrieval_summary` of the records in that half (see ``split.py``)."""
    records = list(records)
    return {
        half: retrieval_summary(
            [r for r in records if halves.get(str(r["question_id"])) == half], rankers, ks
        )
        for half in HALVES
    }


def ingestion_summary(records: Iterable[Mapping[str, Any]], max_chars: int) -> dict[str, Any]:
    """Turns not sent or cut at ingest (over the conversations of ``records``), and the
    questions whose evidence lost unsent turns or cites a cut one."""
    records = list(records)
    stats = {r["conversation_id"]: r.get("conversation_stats", {}) for r in records}
    return {
        "max_message_chars": max_chars,
        "skipped_turns": sum(int(s.get("skipped_turns", 0)) for s in stats.values()),
        "truncated_turns": sum(int(s.get("truncated_turns", 0)) for s in stats.values()),
        "questions_evidence_dropped": [
            str(r["question_id"]) for r in records if r.get("evidence_dropped")
        ],
        "questions_evidence_truncated": [
            str(r["question_id"]) for r in records if r.get("evidence_truncated")
        ],
    }


def qa_summary(records: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, dict[str, float]]]:
    """system -> group -> {"score": mean, "n": graded, "errors": failed}.

    Unlike retrieval, abstention questions count: answering "I don't know" to them is the
    skill being measured.
    """
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    graded: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    errors: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for record in records:
        for system, result in (record.get("qa") or {}).items():
            groups = (OVERALL, record["category"])
            for group in groups:
                if "score" in result:
                    sums[system][group] += float(result["score"])
                    graded[system][group] += 1
                else:
                    errors[system][group] += 1
    out: dict[str, dict[str, dict[str, float]]] = {}
    for system in sorted(set(graded) | set(errors)):
        out[system] = {}
        for group in sorted(set(graded[system]) | set(errors[system])):
            n = graded[system][group]
            out[system][group] = {
                "score": sums[system][group] / n if n else 0.0,
                COUNT_KEY: float(n),
                "errors": float(errors[system][group]),
            }
    return out


# -- markdown ------------------------------------------------------------------------------


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def level_table(
    summary: Mapping[str, Mapping[str, Mapping[str, float]]],
    rankers: Sequence[str],
    labels: Mapping[str, str],
    ks: Sequence[int],
    prefix: str,
    group: str = OVERALL,
) -> str:
    """Rows: metric x ranker; columns: k. The best value of each (metric, k) is bold."""
    rows: list[list[str]] = []
    for metric, metric_label in METRICS:
        values = {
            ranker: [
                summary.get(ranker, {}).get(group, {}).get(f"{prefix}{metric}@{k}") for k in ks
            ]
            for ranker in rankers
        }
        best = [
            max((x for v in values.values() if (x := v[i]) is not None), default=None)
            for i in range(len(ks))
        ]
        for ranker in rankers:
            cells = [
                f"**{_num(v)}**" if v is not None and v == best[i] and len(rankers) > 1 else _num(v)
                for i, v in enumerate(values[ranker])
            ]
            rows.append([metric_label, labels.get(ranker, ranker), *cells])
    return table(["metric", "ranker", *(f"@{k}" for k in ks)], rows)


def category_table(
    summary: Mapping[str, Mapping[str, Mapping[str, float]]],
    rankers: Sequence[str],
    labels: Mapping[str, str],
    k: int,
    prefix: str,
) -> str:
    """Rows: category; cells: recall_all@k / NDCG@k of each ranker."""
    categories = {g for ranker in rankers for g in summary.get(ranker, {}) if g != OVERALL}
    groups = [*sorted(categories), OVERALL]
    rows: list[list[str]] = []
    for group in groups:
        n = next(
            (summary[r][group][COUNT_KEY] for r in rankers if group in summary.get(r, {})), 0.0
        )
        cells = []
        for ranker in rankers:
            means = summary.get(ranker, {}).get(group, {})
            cells.append(
                f"{_num(means.get(f'{prefix}recall_all@{k}'))} / "
                f"{_num(means.get(f'{prefix}ndcg_any@{k}'))}"
            )
        rows.append([group, str(int(n)), *cells])
    return table(["category", "n", *(labels.get(r, r) for r in rankers)], rows)


SPLIT_METRICS: tuple[tuple[str, str, int], ...] = (
    ("recall_all", "", 10),
    ("ndcg_any", "", 10),
    ("recall_any", "", 10),
    ("recall_all", "session/", 5),
)


def split_table(
    split: Mapping[str, Mapping[str, Mapping[str, Mapping[str, float]]]],
    rankers: Sequence[str],
    labels: Mapping[str, str],
    ks: Sequence[int],
) -> str:
    """Rows: half x ranker; columns: n and the turn-level headline metrics (+ session@5)."""
    columns = [(m, p, k) for m, p, k in SPLIT_METRICS if k in ks]
    rows: list[list[str]] = []
    for half in HALVES:
        summary = split.get(half, {})
        for ranker in rankers:
            means = summary.get(ranker, {}).get(OVERALL, {})
            rows.append(
                [
                    half,
                    labels.get(ranker, ranker),
                    str(int(means.get(COUNT_KEY, 0))),
                    *(_num(means.get(f"{p}{m}@{k}")) for m, p, k in columns),
                ]
            )
    header = [f"{'session ' if p else ''}{m}@{k}" for m, p, k in columns]
    return table(["half", "ranker", "n", *header], rows)


def _run_costs(report: Mapping[str, Any]) -> str:
    """Ingest cost per message (embedding timed fresh; ingestion wall time), and the cache."""
    timings = report["timings"]
    parts: list[str] = []
    cost = report.get("embed_cost")
    if cost:
        parts.append(
            f"embedding {cost['ms_per_message']:.1f} ms per message (the service's embedder "
            f"on {int(cost['texts'])} turns drawn with a fixed seed, embedded fresh in calls "
            f"of {int(cost['batch'])}, bypassing memo and cache)"
        )
        if "ms_per_message_without_passages" in cost:
            parts.append(
                f"{cost['ms_per_message_without_passages']:.1f} ms per message for the same "
                f"turns without their {int(cost['passages']):,} passages (the cost before "
                "passages, same run)"
            )
    both = report.get("ingest_cost")
    if both:
        parts.append(
            f"addMessages {both['ms_per_message']:.1f} ms per message with passages against "
            f"{both['ms_per_message_without_passages']:.1f} without (the same "
            f"{int(both['messages'])} turns sent both ways into scratch workspaces, in calls of "
            f"{int(both['batch'])} alternating between the two, vectors ready, same run)"
        )
    per_message = timings.get("ingest_ms_per_message")
    if per_message is not None:
        parts.append(
            f"ingestion {per_message:.1f} ms per message (wall time of addMessages over "
            f"{timings['ingested_messages']:,} turns, divided by turns; vectors embedded "
            "ahead through the memo, so the model's time is not in it)"
        )
    text = f" Ingest cost: {'; '.join(parts)}." if parts else ""
    cache = report.get("embed_cache")
    if cache:
        text += (
            f" Vectors from the cache `{cache['directory']}` ({cache['model']}): "
            f"{cache['served']:,} texts of {cache['loaded']:,} held in {cache['files']} files; "
            f"{timings['embedded']:,} computed in this run ({cache['written']:,} added to the "
            "cache)."
        )
    return text


def qa_table(qa: Mapping[str, Mapping[str, Mapping[str, float]]]) -> str:
    systems = list(qa)
    groups = [*sorted({g for s in systems for g in qa[s] if g != OVERALL}), OVERALL]
    rows: list[list[str]] = []
    for group in groups:
        cells = []
        for system in systems:
            means = qa[system].get(group)
            if means is None:
                cells.append("-")
                continue
            cell = f"{means['score']:.3f} ({int(means[COUNT_KEY])})"
            if means.get("errors"):
                cell += f", {int(means['errors'])} failed"
            cells.append(cell)
        rows.append([group, *cells])
    return table(["category", *systems], rows)


CONTEXT_NOTE = (
    "What `context` packs for the question (the question as `searchQuery`; the view the "
    "readers use: the assistant's of the user in LongMemEval and BEAM, a speaker's self-model "
    "in LoCoMo; the conversation's last session; {tokens} tokens), asked twice on the same "
    "graph: without and with the messages that best match the query. Each cell: share of "
    "questions with every evidence turn packed / mean share of evidence turns packed / mean "
    "tokens used. A turn counts when it is packed as a message or a packed belief was derived "
    "from it. A view holds its target's turns only, so evidence another speaker said (the "
    "assistant's, in LongMemEval's single-session-assistant questions) is out of its reach."
)


def _resume_line(report: Mapping[str, Any]) -> str:
    resume = report.get("resume") or {}
    total = report["counts"]["questions"]
    resumed = int(report["timings"]["resumed"])
    data = f"data sha256 `{str(resume.get('data_sha256', '?'))[:12]}`"
    if not resumed:
        return f"- Resumed: none; all {total} questions were computed in this run ({data})."
    return (
        f"- Resumed: **{resumed} of {total} questions** were read from the log "
        f"`{resume.get('log', '?')}`, computed by an earlier run with the same settings on the "
        f"same data ({data}); {total - resumed} were computed in this run, and only these "
        "count in the times below."
    )


def _evidence_lines(report: Mapping[str, Any]) -> list[str]:
    """What ingestion left out, and the questions the retrieval metrics leave out for it."""
    seen = report.get("ingestion")
    if not seen:
        return []
    excluded = len(report.get("retrieval_excluded", []))
    return [
        f"- Ingestion: {seen['skipped_turns']:,} turns not sent (empty text), "
        f"{seen['truncated_turns']:,} cut to the {seen['max_message_chars']:,}-character "
        f"message limit. {len(seen['questions_evidence_dropped'])} questions cited turns not sent "
        "(dropped from their evidence); "
        f"{len(seen['questions_evidence_truncated'])} cite a cut turn (kept as evidence).",
        (
            f"- Left out of the retrieval metrics: **{excluded} questions** (not abstentions) "
            "with no evidence turn or session the service holds (evidence empty, naming no "
            "turn of the conversation, or only turns not sent); their ids are under "
            "`retrieval_excluded` in the JSON."
            if excluded
            else "- Every non-abstention question has evidence the service holds: none is "
            "left out of the retrieval metrics."
        ),
    ]


def render(report: Mapping[str, Any]) -> str:
    """The markdown body of this bench's section."""
    ks: list[int] = report["ks"]
    rankers: list[str] = report["rankers"]
    labels: dict[str, str] = report["ranker_labels"]
    retrieval = report["retrieval"]
    env = report["environment"]
    timings = report["timings"]
    counts = report["counts"]
    lines = [
        f"## Memory: {report['dataset_label']}",
        "",
        f"Run {report['date']} on {env['machine_line']}; Neo4j {env['neo4j']}. "
        f"Command: `{report['command']}`." + _run_costs(report),
        "",
        f"- Questions: {counts['questions']} ({counts['abstentions']} abstention questions, "
        "skipped by the retrieval metrics as LongMemEval does"
        + (
            f"; the retrieval metrics average {counts['retrieval_scored']}"
            if "retrieval_scored" in counts
            else ""
        )
        + f"), {counts['conversations']} conversations, {counts['messages']:,} messages.",
        _resume_line(report),
        *_evidence_lines(report),
        (
            f"- Observations built by: **{report['provider']['observations']}** "
            f"({counts['observations']:,} observations after the queue drained; "
            f"{counts['dead_jobs']} dead jobs)."
            if report.get("derive", True)
            else "- Observations: **not built in this run** (`--no-derive`: the deriver's jobs "
            "were left undone), so only the message rankers are listed."
        ),
        *(
            [
                f"- Dreams (`--dream`): {d['runs']:.0f} runs read {d['read']:,.0f} beliefs, "
                f"superseded {d['superseded']:,.0f} and created {d['created']:,.0f} "
                f"({d['contradictions']:,.0f} contradictions) in {d['dream_s']:.0f} s."
            ]
            if (d := report.get("dreams"))
            else []
        ),
        f"- Wall time: {_clock(timings['wall_s'])} for this invocation"
        f"; embedding {timings['embed_s']:.0f} s ({timings['embedded']:,} texts, in a thread "
        f"beside the rest; the run waited {timings.get('embed_wait_s', 0.0):.0f} s for it), "
        f"ingestion {timings['ingest_s']:.0f} s, queue drain {timings['drain_s']:.0f} s, "
        f"retrieval {timings['retrieval_s']:.0f} s, QA {timings['qa_s']:.0f} s. "
        f"Load average (1 min) during the run: {env['load']}.",
        "",
        report["method"],
        "",
    ]
    for level, prefix in LEVELS:
        lines += [
            f"### {level.capitalize()} level",
            "",
            level_table(retrieval, rankers, labels, ks, prefix),
            "",
        ]
    split = report.get("split")
    if split:
        lines += [
            "### Tuning and held-out halves",
            "",
            str(report.get("split_note", "")),
            "",
            split_table(split, rankers, labels, ks),
            "",
        ]
    k_cat = 10 if 10 in ks else ks[0]
    for level, prefix in LEVELS:
        lines += [
            f"{level.capitalize()} level by category (recall_all@{k_cat} / NDCG@{k_cat}):",
            "",
            category_table(retrieval, rankers, labels, k_cat, prefix),
            "",
        ]
    if report.get("context"):
        lines += [
            "### Context evidence",
            "",
            CONTEXT_NOTE.format(tokens=report.get("context_tokens", "?")),
            "",
            context_table(report["context"]),
            "",
            latency_line(report.get("context_latency") or {}),
            "",
        ]
    lines += ["### Question answering", ""]
    if report.get("qa"):
        lines += [
            "Mean judge score per category (graded questions in brackets; abstention "
            "questions included).",
            "",
            qa_table(report["qa"]),
            "",
        ]
    lines += [f"{note}" for note in report.get("qa_notes", [])]
    return "\n".join(lines).strip() + "\n"


def write_json(path: Path, report: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, sort_keys=False) + "\n", encoding="utf-8")
