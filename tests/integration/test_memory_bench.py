"""The memory bench end to end on the tiny fixtures: ingestion through GraphQL, the queue, the
four rankings, QA with a scripted reader and judge, the report files, and resuming."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from graph.paging import encode
from graph.repo import workspaces
from reasoners.llm.interface import ChatMessage
from reasoners.search.fusion import TEXT_WEIGHT
from reasoners.search.speakers import SPEAKER_WEIGHT
from resolvers.services import Services
from tests.bench.fusion_replay import replay_ranking
from tests.bench.memory_bench import parse, run_bench
from tests.bench.retrieval import evidence_ranks
from tests.fakes.llm import ScriptedLLM

pytestmark = pytest.mark.integration

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ANSWERS = {"tea": "Oolong.", "marathons": "3 marathons.", "dog": "I don't know."}


def _text(messages: list[ChatMessage]) -> str:
    return "\n".join(str(m["content"]) for m in messages)


def _reader(messages: list[ChatMessage], schema: type[BaseModel] | None) -> str:
    question = _text(messages).rsplit("Question:", 1)[-1]
    return next((a for key, a in ANSWERS.items() if key in question), "I don't know.")


def _judge(messages: list[ChatMessage], schema: type[BaseModel] | None) -> dict[str, Any]:
    # Correct when the response holds the gold answer (or declines an abstention question).
    text = _text(messages)
    gold = text.split("Correct answer: ", 1)[-1].split("\n", 1)[0].casefold()
    response = text.rsplit("Response: ", 1)[-1].casefold()
    if "cannot be answered" in text:
        return {"reason": "abstention", "correct": "don't know" in response}
    return {"reason": "compared", "correct": gold.rstrip(".") in response}


def _args(tmp_path: Path, fixture: str, dataset: str, *extra: str) -> list[str]:
    return [
        "--dataset",
        dataset,
        "--path",
        str(FIXTURES / fixture),
        "--report",
        str(tmp_path / "BENCHMARKS.md"),
        "--json",
        str(tmp_path / f"{dataset}.json"),
        "--results",
        str(tmp_path / f"{dataset}.jsonl"),
        "--prefix",
        f"t{uuid.uuid4().hex[:8]}",
        "--ks",
        "1,5,10",
        "--depth",
        "20",
        *extra,
    ]


async def test_longmemeval_end_to_end_and_resume(services: Services, tmp_path: Path) -> None:
    llm = ScriptedLLM({"bench-reader": _reader, "bench-judge": _judge})
    argv = _args(tmp_path, "longmemeval_tiny.json", "longmemeval")
    report = await run_bench(services, parse(argv), judge_llm=llm, argv=argv, neo4j="test")

    saved = json.loads((tmp_path / "longmemeval.json").read_text(encoding="utf-8"))
    assert saved["counts"]["questions"] == 3
    assert saved["counts"]["messages"] == 13  # every turn of the three haystacks
    assert saved["counts"]["observations"] > 0
    assert saved["counts"]["dead_jobs"] == 0
    assert saved["provider"]["observations"].startswith("extractive")
    by_id = {r["question_id"]: r for r in saved["per_question"]}

    tea = by_id["q_tea"]
    # The easy question: its evidence turn comes first for our search and the baselines, and
    # the observation derived from it maps back to it.
    for ranker in ("ours", "observations", "bm25", "dense"):
        assert tea["evidence_ranks"][ranker][:1] == [1], ranker
        assert tea["retrieval"][ranker]["recall_all@1"] == 1.0
        assert tea["retrieval"][ranker]["session/ndcg_any@1"] == 1.0
    # Both evidence turns of the two-session question are among 4 turns: recall_all@5 = 1
    # for the rankers that rank every turn. BM25 has no stemming: "marathons" matches no turn.
    # `context` asked with the question packs the evidence turn as a matched message.
    packed = tea["context"]["with_messages"]
    assert packed["all"] and packed["via_messages"] == 1 and packed["tokens"] <= 4000
    assert saved["context"]["with_messages"]["overall"]["n"] == 2
    assert saved["context_latency"]["without_messages"]["n"] == 3  # every question is timed
    assert "### Context evidence" in (tmp_path / "BENCHMARKS.md").read_text(encoding="utf-8")
    count = by_id["q_count"]
    assert count["retrieval"]["ours"]["recall_all@5"] == 1.0
    assert count["retrieval"]["dense"]["session/recall_all@5"] == 1.0
    assert count["ranked_lengths"]["bm25"] == 0

    # Retrieval means skip the abstention question; QA counts it.
    ours = report["retrieval"]["ours"]["overall"]
    assert ours["n"] == 2
    assert ours["recall_all@10"] == 1.0
    baseline = report["qa"]["full-context"]
    assert baseline["overall"] == {"score": 1.0, "n": 3.0, "errors": 0.0}
    dialectic = report["qa"]["dialectic"]["overall"]
    assert dialectic["n"] + dialectic["errors"] == 3
    assert tea["qa"]["dialectic"]["mode"] == "extractive"  # the services run no LLM
    assert tea["qa"]["full-context"]["answer"] == "Oolong."
    reader_prompt = llm.calls_for("bench-reader")[0].messages
    assert "I drink a cup of oolong tea every morning" in _text(reader_prompt)

    markdown = (tmp_path / "BENCHMARKS.md").read_text(encoding="utf-8")
    assert "<!-- bench:memory:start -->" in markdown and "<!-- bench:memory:end -->" in markdown
    assert "### Turn level" in markdown and "### Session level" in markdown
    assert "| single-session-user | 1 |" in markdown
    assert "| category | dialectic | full-context |" in markdown  # QA: one column per system
    assert "| overall | " in markdown

    # A second run finds every question in the log: nothing is ingested or asked again.
    calls = len(llm.calls)
    again = await run_bench(services, parse(argv), judge_llm=llm, argv=argv, neo4j="test")
    assert again["timings"]["resumed"] == 3
    assert again["resume"]["resumed"] == 3
    assert "- Resumed: **3 of 3 questions** were read from the log" in (
        tmp_path / "BENCHMARKS.md"
    ).read_text(encoding="utf-8")
    assert again["timings"]["ingest_s"] == 0.0
    assert len(llm.calls) == calls
    assert again["retrieval"] == report["retrieval"]


async def test_no_llm_means_retrieval_only(services: Services, tmp_path: Path) -> None:
    argv = _args(tmp_path, "locomo_tiny.json", "locomo", "--limit", "2")
    report = await run_bench(services, parse(argv), judge_llm=None, argv=argv, neo4j="test")
    assert report["counts"]["questions"] == 2
    assert report["qa"] == {}
    assert "No LLM is configured" in report["qa_notes"][0]
    record = report["per_question"][0]
    # LoCoMo: each speaker keeps a self-model; "What did Ana make" is answered from D1:3.
    assert record["evidence_turns"] == ["D1:3"]
    assert record["ranked_lengths"]["ours"] == 7  # every turn of the conversation, mapped back
    assert record["retrieval"]["ours"]["recall_any@10"] == 1.0
    assert record["observation_hits"] > 0
    markdown = (tmp_path / "BENCHMARKS.md").read_text(encoding="utf-8")
    assert "measures retrieval only" in markdown


async def test_evidence_never_sent_is_dropped_and_questions_without_any_left_out(
    services: Services, tmp_path: Path
) -> None:
    sample = json.loads((FIXTURES / "locomo_tiny.json").read_text(encoding="utf-8"))[0]
    sample["conversation"]["session_2"][1]["text"] = ""  # D2:2: not sent
    sample["qa"] = [
        {"question": "How many bowls?", "answer": "2", "evidence": ["D1:3; D2:2"], "category": 1},
        {
            "question": "What is Ben's cat called?",
            "answer": "-",
            "evidence": ["D9:9"],
            "category": 4,
        },
    ]
    path = tmp_path / "locomo_gaps.json"
    path.write_text(json.dumps([sample]), encoding="utf-8")
    argv = _args(tmp_path, "locomo_tiny.json", "locomo", "--no-derive")
    argv[argv.index("--path") + 1] = str(path)
    report = await run_bench(services, parse(argv), judge_llm=None, argv=argv, neo4j="test")
    bowls, cat = report["per_question"]
    assert bowls["evidence_turns"] == ["D1:3"] and bowls["evidence_dropped"] == ["D2:2"]
    assert cat["evidence_turns"] == []
    assert report["retrieval_excluded"] == ["conv-t1:1"]
    assert report["retrieval"]["ours"]["overall"]["n"] == 1
    assert report["ingestion"]["skipped_turns"] == 1
    assert report["ingestion"]["questions_evidence_dropped"] == ["conv-t1:0"]
    markdown = (tmp_path / "BENCHMARKS.md").read_text(encoding="utf-8")
    assert "- Left out of the retrieval metrics: **1 questions**" in markdown


async def test_beam_rubric_judging(services: Services, tmp_path: Path) -> None:
    def rubric_judge(messages: list[ChatMessage], schema: type[BaseModel] | None) -> Any:
        return {"scores": [0.5], "reason": "partly"}

    llm = ScriptedLLM({"bench-reader": _reader, "bench-judge": rubric_judge})
    argv = _args(tmp_path, "beam_tiny", "beam", "--reader", "context")
    report = await run_bench(services, parse(argv), judge_llm=llm, argv=argv, neo4j="test")
    assert report["counts"]["questions"] == 3
    for system in ("context", "full-context"):
        assert report["qa"][system]["overall"] == {"score": 0.5, "n": 3.0, "errors": 0.0}
    judged = _text(llm.calls_for("bench-judge")[0].messages)
    assert "Rubric:\n1. " in judged
    record = next(r for r in report["per_question"] if r["category"] == "information_extraction")
    assert record["qa"]["context"]["context_tokens"] > 0


async def test_a_workspace_an_earlier_run_kept_is_ingested_and_derived_again(
    services: Services, tmp_path: Path
) -> None:
    """A run with --keep leaves its workspaces; the next run over the same conversations starts
    each from an empty workspace, so it measures its own ingestion and derivation instead of
    reusing the earlier run's graph (ingestion is idempotent: nothing would be derived)."""
    argv = _args(tmp_path, "longmemeval_tiny.json", "longmemeval", "--keep")
    first = await run_bench(services, parse(argv), judge_llm=None, argv=argv, neo4j="test")
    kept = [r["conversation_stats"]["workspace"] for r in first["per_question"]]
    born = [(await workspaces.get(services.db, name)).created_at for name in kept]
    again = await run_bench(
        services, parse([*argv, "--fresh"]), judge_llm=None, argv=argv, neo4j="test"
    )
    reborn = [(await workspaces.get(services.db, name)).created_at for name in kept]
    assert all(later > earlier for earlier, later in zip(born, reborn, strict=True))

    def stats(report: dict[str, Any]) -> list[tuple[int, int]]:
        return [
            (r["conversation_stats"]["jobs_done"], r["conversation_stats"]["observations"])
            for r in report["per_question"]
        ]

    assert all(done > 0 and seen > 0 for done, seen in stats(first))
    assert stats(again) == stats(first)
    assert again["timings"]["resumed"] == 0


async def test_no_derive_ranks_messages_only_and_the_cache_serves_the_next_run(
    services: Services, tmp_path: Path
) -> None:
    cache = tmp_path / "vectors"
    pools = tmp_path / "pools.jsonl"
    argv = _args(
        tmp_path,
        "longmemeval_tiny.json",
        "longmemeval",
        "--no-derive",
        "--embed-cache",
        str(cache),
        "--pools",
        str(pools),
    )
    report = await run_bench(services, parse(argv), judge_llm=None, argv=argv, neo4j="test")
    assert report["rankers"] == ["ours", "bm25", "dense"]
    # The kept pools, fused again at the shipped weights, rank as searchMessages did.
    kept = [json.loads(line) for line in pools.read_text().splitlines()]
    assert [k["question_id"] for k in kept] == [r["question_id"] for r in report["per_question"]]
    for pooled, record in zip(kept, report["per_question"], strict=True):
        assert pooled["pool"]["vector"] and pooled["pool"]["session_of"]
        ranked = replay_ranking(pooled["pool"], 20, TEXT_WEIGHT, SPEAKER_WEIGHT)
        assert evidence_ranks(ranked, record["evidence_turns"]) == record["evidence_ranks"]["ours"]
    assert report["counts"]["observations"] == 0
    assert all(set(r["retrieval"]) == {"ours", "bm25", "dense"} for r in report["per_question"])
    assert report["per_question"][0]["conversation_stats"]["jobs_done"] == 0
    computed = report["timings"]["embedded"]
    assert computed > 0 and report["embed_cache"]["written"] == computed
    assert report["embed_cost"]["texts"] > 0
    # addMessages timed both ways on the same sample, in scratch workspaces deleted afterwards.
    cost = report["ingest_cost"]
    assert cost["messages"] == report["embed_cost"]["texts"]
    assert cost["ms_per_message"] > 0 and cost["ms_per_message_without_passages"] > 0
    prefix = argv[argv.index("--prefix") + 1]
    from_prefix = encode(workspaces.WORKSPACES, f"{prefix}-ingest-cost")
    after = await workspaces.list_page(services.db, after=from_prefix, limit=5)
    assert not [w for w in after.items if w.name.startswith(f"{prefix}-ingest-cost")]
    assert report["timings"]["ingested_messages"] == 13
    halves = report["split"]
    assert (
        halves["tuning"]["ours"]["overall"]["n"] + halves["held-out"]["ours"]["overall"]["n"] == 2
    )
    markdown = (tmp_path / "BENCHMARKS.md").read_text(encoding="utf-8")
    assert "**not built in this run**" in markdown
    assert "### Tuning and held-out halves" in markdown
    assert f"{computed:,} computed in this run" in markdown

    # Started over: every vector comes from the directory, none is computed.
    again = await run_bench(
        services, parse([*argv, "--fresh"]), judge_llm=None, argv=argv, neo4j="test"
    )
    assert len(pools.read_text().splitlines()) == len(kept)  # emptied by --fresh, then kept
    assert again["timings"]["embedded"] == 0
    assert again["embed_cache"]["served"] == computed
    assert again["retrieval"] == report["retrieval"]
