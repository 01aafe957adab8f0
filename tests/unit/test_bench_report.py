"""The memory bench's results: the resumable log, rankings and their scores, aggregates and
the markdown report, on hand-computed cases."""

from __future__ import annotations

import io
import json
import math
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from tests.bench.loaders import load_beam, load_longmemeval
from tests.bench.memory_bench import default_results_path, parse, store_config
from tests.bench.report import (
    Progress,
    ResultsStore,
    level_table,
    qa_summary,
    render,
    retrieval_summary,
    split_summary,
)
from tests.bench.retrieval import (
    Baselines,
    MemoEmbedder,
    TurnCorpus,
    dense_ranking,
    evidence_ranks,
    score_ranking,
    sources_query,
)
from tests.fakes.embedder import CountingEmbedder

pytestmark = pytest.mark.unit

CONFIG = {"dataset": "longmemeval", "ks": [5, 10], "depth": 100}
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


# -- the log ---------------------------------------------------------------------------------


def test_store_resumes_only_results_of_the_same_settings(tmp_path: Path) -> None:
    path = tmp_path / "log" / "results.jsonl"
    store = ResultsStore(path, CONFIG)
    store.add({"question_id": "q1", "retrieval": {}})
    store.add({"question_id": "q2", "retrieval": {}})
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"question_id": "q3", "config": {**CONFIG, "depth": 50}}) + "\n")
        handle.write('{"question_id": "q4", "conf')  # a line cut short by a crash

    again = ResultsStore(path, CONFIG)
    assert again.has("q1") and again.has("q2")
    assert not again.has("q3") and not again.has("q4")
    assert again.ignored == 2
    assert [r["question_id"] for r in again.ordered(["q2", "q9", "q1"])] == ["q2", "q1"]
    assert ResultsStore(path, {**CONFIG, "depth": 50}).has("q3")


def _config(path: Path) -> dict[str, Any]:
    """The log config of a LongMemEval run on ``path`` (no LLM, default settings)."""
    args = parse(["--dataset", "longmemeval", "--path", str(path)])
    services: Any = SimpleNamespace(llm=None)
    return store_config(args, services, None, None, None, load_longmemeval(path).digest)


def test_results_of_other_data_under_the_same_name_are_not_resumed(tmp_path: Path) -> None:
    record = json.loads((FIXTURES / "longmemeval_tiny.json").read_text(encoding="utf-8"))[0]
    for version, answer in (("v1", "Oolong"), ("v2", "Green tea")):
        (tmp_path / version).mkdir()
        data = [{**record, "answer": answer}]
        (tmp_path / version / "s.json").write_text(json.dumps(data), encoding="utf-8")
    log = tmp_path / "memory-longmemeval-s.jsonl"
    ResultsStore(log, _config(tmp_path / "v1" / "s.json")).add({"question_id": "q_tea"})
    assert ResultsStore(log, _config(tmp_path / "v1" / "s.json")).has("q_tea")
    other = ResultsStore(log, _config(tmp_path / "v2" / "s.json"))
    assert not other.has("q_tea") and other.ignored == 1


def test_beam_logs_of_different_sizes_do_not_share_a_file(tmp_path: Path) -> None:
    settings: Any = SimpleNamespace(home_path=tmp_path / "home")
    logs = []
    for size in ("100K", "500K"):
        folder = tmp_path / "chats" / size / "1"
        shutil.copytree(FIXTURES / "beam_tiny", folder)
        args = parse(["--dataset", "beam", "--path", str(folder)])
        logs.append(default_results_path(settings, args, load_beam(folder)))
    assert [p.name for p in logs] == ["memory-beam-100K-1.jsonl", "memory-beam-500K-1.jsonl"]


def test_progress_line_shows_counts_and_time_left() -> None:
    stream = io.StringIO()
    progress = Progress(4, stream=stream, width=8)
    progress.start = 0.0
    progress.counted = 1
    progress.done = 2
    assert progress.line("q_tea", now=60.0) == "[####....] 2/4 q_tea  1m00s elapsed, ~2m00s left"
    progress.advance("q_x")
    assert stream.getvalue().startswith("\r\x1b[K[######..] 3/4 q_x")


# -- rankings and their scores -----------------------------------------------------------------

SESSION_OF = {"a:0": "a", "a:1": "a", "b:0": "b", "b:1": "b", "c:0": "c"}


def test_score_ranking_turn_and_session_levels() -> None:
    ranked = ["b:1", "a:0", "b:0", "c:0"]
    metrics = score_ranking(ranked, {"a:0", "c:0"}, {"a", "c"}, SESSION_OF, ks=(1, 2))
    # Turn level: a:0 at rank 2, c:0 at rank 4.
    assert metrics["recall_any@1"] == 0.0
    assert metrics["recall_any@2"] == 1.0
    assert metrics["recall_all@2"] == 0.0
    # LongMemEval's DCG: rank 2 divided by log2(2) = 1; IDCG@2 = 1 + 1.
    assert metrics["ndcg_any@2"] == pytest.approx(0.5)
    # Session level: b, a, c -> a at rank 2, c at rank 3.
    assert metrics["session/recall_any@2"] == 1.0
    assert metrics["session/recall_all@2"] == 0.0
    assert metrics["session/ndcg_any@1"] == 0.0
    assert evidence_ranks(ranked, {"a:0", "c:0"}) == [2, 4]


def test_dense_ranking_is_by_cosine_with_stable_ties() -> None:
    matrix = np.asarray([[1, 0], [0, 1], [1, 0], [math.sqrt(0.5), math.sqrt(0.5)]], np.float32)
    ranked = dense_ranking(matrix, [1.0, 0.0], ["w", "x", "y", "z"], depth=3)
    assert ranked == ["w", "y", "z"]
    assert dense_ranking(np.zeros((0, 2), np.float32), [1.0, 0.0], [], depth=3) == []


def test_baselines_rank_turn_ids() -> None:
    corpus = TurnCorpus.of(
        [("a:0", "a", "I drink oolong tea"), ("a:1", "a", "The weather is nice")]
    )
    baselines = Baselines(corpus, np.asarray([[1, 0], [0, 1]], np.float32))
    assert baselines.rank_bm25("which tea do I drink", 10) == ["a:0"]
    assert baselines.rank_dense([0.0, 1.0], 10) == ["a:1", "a:0"]
    with pytest.raises(ValueError, match="1 vectors for 2 turns"):
        Baselines(corpus, np.zeros((1, 2), np.float32))


def test_sources_query_aliases_each_observation() -> None:
    query = sources_query(2)
    assert query.startswith("query($w: String!, $i0: ID!, $i1: ID!)")
    assert (
        "o1: observation(workspace: $w, id: $i1) { sources { message { id } } premises { id } }"
        in query
    )


async def test_memo_computes_each_text_once_in_length_sorted_chunks() -> None:
    inner = CountingEmbedder()
    memo = MemoEmbedder(inner, chunk=2)
    await memo.prime(["bb", "a", "ccc", "a"])
    assert inner.calls == [["ccc", "bb"], ["a"]]
    assert memo.embed(["a", "ccc"]) == [[1.0, 1.0], [3.0, 1.0]]
    assert memo.matrix(["bb", "dddd"]).tolist() == [[2.0, 1.0], [4.0, 1.0]]
    assert inner.calls[-1] == ["dddd"]  # only the new text
    assert memo.computed == 4
    memo.forget(["a", "bb"])
    assert len(memo) == 2


# -- aggregates and the report ---------------------------------------------------------------


def _record(qid: str, category: str, recall: float, abstention: bool = False) -> dict[str, Any]:
    metrics = {"recall_all@5": recall, "session/recall_all@5": 1.0, "ndcg_any@5": recall / 2}
    return {
        "question_id": qid,
        "category": category,
        "abstention": abstention,
        "evidence_turns": [] if abstention else [f"{qid}:0"],
        "evidence_sessions": [] if abstention else [qid],
        "retrieval": {"ours": metrics, "bm25": {**metrics, "recall_all@5": 0.0}},
    }


def test_retrieval_summary_means_per_category_without_abstentions() -> None:
    records = [
        _record("q1", "temporal", 1.0),
        _record("q2", "temporal", 0.0),
        _record("q3", "multi", 1.0),
        _record("q4_abs", "multi", 0.0),  # skipped: abstention id
        _record("q5", "multi", 0.0, abstention=True),  # skipped: flagged
    ]
    summary = retrieval_summary(records, ["ours", "bm25", "dense"], [5])
    assert set(summary) == {"ours", "bm25"}  # no record has dense
    assert summary["ours"]["overall"]["recall_all@5"] == pytest.approx(2 / 3)
    assert summary["ours"]["overall"]["n"] == 3
    assert summary["ours"]["temporal"]["recall_all@5"] == 0.5
    assert summary["ours"]["multi"]["recall_all@5"] == 1.0
    assert summary["bm25"]["overall"]["recall_all@5"] == 0.0


def test_qa_summary_counts_abstentions_and_failures() -> None:
    records: list[dict[str, Any]] = [
        {"category": "a", "qa": {"dialectic": {"score": 1.0}, "full-context": {"score": 0.0}}},
        {"category": "a", "qa": {"dialectic": {"score": 0.5}, "full-context": {"error": "x"}}},
        {"category": "b", "abstention": True, "qa": {"dialectic": {"score": 1.0}}},
        {"category": "b", "qa": {}},
    ]
    summary = qa_summary(records)
    assert summary["dialectic"]["overall"] == {
        "score": pytest.approx(2.5 / 3),
        "n": 3.0,
        "errors": 0.0,
    }
    assert summary["dialectic"]["a"]["score"] == 0.75
    assert summary["full-context"]["a"] == {"score": 0.0, "n": 1.0, "errors": 1.0}


def test_level_table_bolds_the_best_ranker_per_cell() -> None:
    summary = {
        "ours": {"overall": {"recall_any@5": 0.5, "recall_all@5": 0.2, "ndcg_any@5": 0.4}},
        "bm25": {"overall": {"recall_any@5": 0.7, "recall_all@5": 0.2}},
    }
    text = level_table(summary, ["ours", "bm25"], {"ours": "Ours"}, [5], "")
    lines = text.splitlines()
    assert lines[0] == "| metric | ranker | @5 |"
    assert "| recall_any | Ours | 0.500 |" in lines
    assert "| recall_any | bm25 | **0.700** |" in lines
    assert "| recall_all | Ours | **0.200** |" in lines  # a tie: both are best
    assert "| NDCG | bm25 | - |" in lines


def _report() -> dict[str, Any]:
    records = [_record("q1", "temporal", 1.0), _record("q2", "multi", 0.0)]
    return {
        "ks": [5],
        "rankers": ["ours", "bm25"],
        "ranker_labels": {"ours": "Ours", "bm25": "BM25"},
        "retrieval": retrieval_summary(records, ["ours", "bm25"], [5]),
        "environment": {"machine_line": "2 cores", "neo4j": "5.26", "load": "min 1.0"},
        "timings": {
            "wall_s": 75.0,
            "resumed": 1,
            "embed_s": 10.0,
            "embedded": 1234,
            "embed_wait_s": 4.0,
            "ingest_s": 1.0,
            "drain_s": 2.0,
            "retrieval_s": 3.0,
            "qa_s": 0.0,
        },
        "counts": {
            "questions": 2,
            "abstentions": 0,
            "conversations": 2,
            "messages": 1000,
            "observations": 50,
            "dead_jobs": 0,
        },
        "dataset_label": "longmemeval, `x.json`",
        "date": "2026-01-01 00:00 UTC",
        "command": "python -m tests.bench.memory_bench",
        "provider": {"observations": "extractive provider (no LLM configured)"},
        "method": "Method: ...",
        "qa": {},
        "qa_notes": ["No LLM is configured."],
    }


def test_render_has_both_levels_categories_and_the_provider() -> None:
    text = render(_report())
    assert text.startswith("## Memory: longmemeval, `x.json`")
    assert "**extractive provider (no LLM configured)**" in text
    assert "1m15s for this invocation; embedding" in text
    assert "embedding 10 s (1,234 texts, in a thread beside the rest; the run waited 4 s" in text
    assert "### Turn level" in text and "### Session level" in text
    assert "| multi | 1 | 0.000 / 0.000 | 0.000 / 0.000 |" in text
    assert "| temporal | 1 | 1.000 / 0.500 | 0.000 / 0.500 |" in text
    assert text.rstrip().endswith("No LLM is configured.")


def test_render_says_what_was_resumed_skipped_and_left_out() -> None:
    report = _report()
    report["counts"]["retrieval_scored"] = 1
    report["resume"] = {"log": "/h/memory-longmemeval-x.jsonl", "data_sha256": "ab" * 32}
    report["ingestion"] = {
        "max_message_chars": 25_000,
        "skipped_turns": 3,
        "truncated_turns": 2,
        "questions_evidence_dropped": ["q1"],
        "questions_evidence_truncated": [],
    }
    report["retrieval_excluded"] = ["q2"]
    lines = render(report).splitlines()
    assert (
        "- Resumed: **1 of 2 questions** were read from the log `/h/memory-longmemeval-x.jsonl`, "
        "computed by an earlier run with the same settings on the same data (data sha256 "
        "`abababababab`); 1 were computed in this run, and only these count in the times below."
    ) in lines
    assert any("the retrieval metrics average 1)" in line for line in lines)
    assert (
        "- Ingestion: 3 turns not sent (empty text), 2 cut to the 25,000-character message "
        "limit. 1 questions cited turns not sent (dropped from their evidence); 0 cite a cut "
        "turn (kept as evidence)."
    ) in lines
    assert any(
        line.startswith("- Left out of the retrieval metrics: **1 questions**") for line in lines
    )
    report["timings"]["resumed"] = 0
    report["retrieval_excluded"] = []
    text = render(report)
    assert "- Resumed: none; all 2 questions were computed in this run" in text
    assert "none is left out of the retrieval metrics" in text


def test_render_without_derive_shows_costs_cache_and_halves() -> None:
    report = _report()
    records = [_record("q1", "temporal", 1.0), _record("q2", "multi", 0.0)]
    report["derive"] = False
    report["timings"] |= {"ingested_messages": 1000, "ingest_ms_per_message": 12.34}
    report["embed_cost"] = {
        "texts": 500.0,
        "batch": 100.0,
        "seconds": 40.0,
        "ms_per_message": 80.0,
        "passages": 1200.0,
        "ms_per_message_without_passages": 45.0,
    }
    report["ingest_cost"] = {
        "messages": 500.0,
        "batch": 25.0,
        "ms_per_message": 14.25,
        "ms_per_message_without_passages": 11.5,
    }
    report["embed_cache"] = {
        "directory": "/c",
        "model": "mini",
        "files": 2,
        "loaded": 5000,
        "served": 900,
        "written": 1234,
    }
    halves = {"q1": "tuning", "q2": "held-out"}
    report["split"] = split_summary(records, ["ours", "bm25"], [5], halves)
    report["split_note"] = "Tuning split: ..."
    text = render(report)
    run_line = text.splitlines()[2]
    assert "Ingest cost: embedding 80.0 ms per message" in run_line
    assert "45.0 ms per message for the same turns without their 1,200 passages" in run_line
    assert (
        "addMessages 14.2 ms per message with passages against 11.5 without (the same 500 "
        "turns sent both ways into scratch workspaces, in calls of 25" in run_line
    )
    assert "ingestion 12.3 ms per message (wall time of addMessages over 1,000 turns" in run_line
    assert "900 texts of 5,000 held in 2 files; 1,234 computed in this run" in run_line
    assert "**not built in this run** (`--no-derive`" in text
    assert "### Tuning and held-out halves" in text and "Tuning split: ..." in text
    assert "| held-out | BM25 | 1 | 1.000 |" in text  # session recall_all@5


def test_no_derive_refuses_dream() -> None:
    base = ["--dataset", "longmemeval", "--path", "x.json"]
    assert parse([*base, "--no-derive"]).no_derive
    with pytest.raises(SystemExit):
        parse([*base, "--no-derive", "--dream"])


def test_a_second_set_writes_its_own_section() -> None:
    base = ["--dataset", "longmemeval", "--path", "x.json"]
    assert parse(base).section == "memory"
    assert parse([*base, "--section", "memory-oracle-mix"]).section == "memory-oracle-mix"
    for bad in ("", "Memory", "memory:start -->", "-x"):
        with pytest.raises(SystemExit):
            parse([*base, "--section", bad])
