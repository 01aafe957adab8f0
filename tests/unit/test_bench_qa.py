"""The memory bench's QA parts and ingestion helpers: judge prompts, judges on a scripted LLM,
readers, perspectives, and how a conversation is mapped onto the API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reasoners.llm.interface import ChatMessage
from tests.bench import memory_bench
from tests.bench.common import DOCS
from tests.bench.ingest import (
    Ingested,
    app_views,
    ingest_conversation,
    iso_date,
    membership,
    message_inputs,
    safe_name,
    workspace_name,
)
from tests.bench.loaders import (
    Conversation,
    Question,
    SessionRecord,
    Turn,
    load_beam,
    load_locomo,
    load_longmemeval,
)
from tests.bench.memory_bench import parse, predicted_facts
from tests.bench.qa import (
    FullContextReader,
    QAItem,
    ReaderUnavailable,
    answer_and_grade,
    beam_judge_messages,
    beam_rubrics,
    check_reader_field,
    judge,
    locomo_judge_messages,
    longmemeval_judge_messages,
    perspective,
    reader_messages,
    render_conversation,
)
from tests.fakes.llm import ScriptedLLM

pytestmark = pytest.mark.unit

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _question(category: str = "single-session-user", **changes: Any) -> Question:
    fields: dict[str, Any] = {
        "id": "q1",
        "conversation_id": "c1",
        "question": "What tea do I drink?",
        "answer": "Oolong",
        "category": category,
        "question_date": "2023-05-30T09:15:00",
    }
    fields.update(changes)
    return Question(**fields)


def _system(messages: list[ChatMessage]) -> str:
    content = messages[0]["content"]
    assert isinstance(content, str)
    return content


def _user(messages: list[ChatMessage]) -> str:
    content = messages[-1]["content"]
    assert isinstance(content, str)
    return content


# -- judge prompts ---------------------------------------------------------------------------


def test_longmemeval_judge_rules_follow_the_question_type() -> None:
    plain = _system(longmemeval_judge_messages(_question(), "Oolong"))
    temporal = _system(longmemeval_judge_messages(_question("temporal-reasoning"), "18 days"))
    update = _system(longmemeval_judge_messages(_question("knowledge-update"), "x"))
    preference = longmemeval_judge_messages(_question("single-session-preference"), "x")
    assert "only part" in plain and "off-by-one" not in plain
    assert "off-by-one" in temporal
    assert "updated answer" in update
    assert "rubric" in _system(preference).lower()
    assert _user(preference).startswith("Question: What tea do I drink?\nRubric: Oolong")
    assert "Correct answer: Oolong" in _user(longmemeval_judge_messages(_question(), "x"))


def test_longmemeval_abstention_is_judged_on_declining() -> None:
    question = _question(id="q1_abs", abstention=True, answer="You never mentioned tea.")
    messages = longmemeval_judge_messages(question, "I don't know.")
    assert "cannot be answered" in _system(messages)
    assert "Explanation: You never mentioned tea." in _user(messages)
    assert _user(messages).endswith("Response: I don't know.")


def test_locomo_judge_is_generous_and_adversarial_rewards_declining() -> None:
    normal = locomo_judge_messages(_question("2", answer="7 May 2023"), "May 7th")
    assert "generous" in _system(normal) and "date" in _system(normal)
    assert "temporal" in _system(normal)  # the category's name, not its number
    trap = locomo_judge_messages(_question("5", answer="Rex", abstention=True), "Rex")
    assert "Trap answer (wrong): Rex" in _user(trap)
    assert "declines" in _system(trap)


def test_beam_judge_lists_the_rubric_items_in_order() -> None:
    messages = beam_judge_messages(_question("information_extraction"), "March 29", ["a", "b"])
    assert "1. a\n2. b" in _user(messages)
    assert "0.5" in _system(messages)


# -- judges on a scripted LLM ----------------------------------------------------------------


async def test_binary_judge_scores_one_or_zero() -> None:
    llm = ScriptedLLM(
        {"bench-judge": [{"reason": "same tea", "correct": True}, {"correct": False}]}
    )
    right = await judge(llm, "longmemeval", _question(), "Oolong")
    wrong = await judge(llm, "locomo", _question("4"), "Green tea")
    assert (right.score, right.reason) == (1.0, "same tea")
    assert wrong.score == 0.0
    assert [call.role for call in llm.calls] == ["bench-judge", "bench-judge"]


async def test_beam_rubric_score_is_the_mean_and_missing_items_count_zero() -> None:
    llm = ScriptedLLM(
        {"bench-judge": [{"scores": [1, 0.5, 0]}, {"scores": [1]}, {"scores": [0.7]}]}
    )
    full = await judge(llm, "beam", _question("x"), "r", ["a", "b", "c"])
    assert full.score == pytest.approx(0.5)
    assert full.items == [1.0, 0.5, 0.0]
    short = await judge(llm, "beam", _question("x"), "r", ["a", "b"])
    assert short.score == pytest.approx(0.5)  # [1, 0]: the skipped item is a 0
    # 0.7 is not a level of the scale: the judge is re-asked, and the script has run out.
    with pytest.raises(AssertionError):
        await judge(llm, "beam", _question("x"), "r", ["a"])


async def test_beam_without_rubric_grades_against_the_answer() -> None:
    llm = ScriptedLLM({"bench-judge": [{"scores": [1]}]})
    grade = await judge(llm, "beam", _question("x", answer="250ms"), "about 250ms")
    assert grade.score == 1.0
    assert "The response states: 250ms" in _user(llm.calls[0].messages)


def test_beam_rubrics_are_keyed_like_the_loader_ids() -> None:
    rubrics = beam_rubrics(FIXTURES / "beam_tiny")
    ids = {q.id for q in load_beam(FIXTURES / "beam_tiny").questions}
    assert set(rubrics) == ids
    assert rubrics["fixtures-beam_tiny:information_extraction:0"] == [
        "LLM response should state: March 29"
    ]


# -- readers and perspectives ----------------------------------------------------------------


def _conversation() -> Conversation:
    turns = [
        Turn("s1:0", "s1", "user", "I drink oolong every morning.", "2023-05-20T02:21:00", True),
        Turn("s1:1", "s1", "assistant", "Lovely.", "2023-05-20T02:21:00", False),
    ]
    return Conversation(
        "c1", [SessionRecord("s1", "2023-05-20T02:21:00", turns)], ["user", "assistant"]
    )


def test_full_context_prompt_holds_every_turn_with_dates() -> None:
    text = render_conversation(_conversation())
    assert text == (
        "### Session 1 (2023-05-20T02:21:00)\n"
        "user: I drink oolong every morning.\nassistant: Lovely."
    )
    messages = reader_messages(_question(), text, "conversation history")
    assert "asked on 2023-05-30T09:15:00" in _user(messages)
    assert _user(messages).endswith("Question: What tea do I drink?")


def _item(question: Question | None = None) -> QAItem:
    conversation = _conversation()
    question = question or _question()
    ingested = Ingested("ws", {"user": "user", "assistant": "assistant"}, {"s1": "s1"})
    return QAItem(
        "longmemeval",
        question,
        conversation,
        ingested,
        perspective("longmemeval", conversation, question),
    )


async def test_full_context_baseline_answers_and_is_graded() -> None:
    llm = ScriptedLLM({"bench-reader": ["Oolong."], "bench-judge": [{"correct": True}]})
    record = await answer_and_grade(FullContextReader(llm), llm, _item())
    assert record["answer"] == "Oolong."
    assert record["score"] == 1.0
    reader_call = llm.calls_for("bench-reader")[0]
    assert "I drink oolong every morning." in _user(reader_call.messages)


async def test_a_judge_failure_keeps_the_answer_and_records_the_error() -> None:
    llm = ScriptedLLM({"bench-reader": ["Oolong."], "bench-judge": ["not json"] * 3})
    record = await answer_and_grade(FullContextReader(llm), llm, _item())
    assert record["answer"] == "Oolong."
    assert "score" not in record
    assert record["error"].startswith("judge: LLMOutputInvalid")


class _FakeApi:
    def __init__(self, query_fields: dict[str, Any]) -> None:
        self.fields = query_fields

    async def root_fields(self) -> dict[str, dict[str, Any]]:
        return {"query": self.fields, "mutation": {}}


def _field(*args: str) -> dict[str, Any]:
    return {"name": "x", "args": [{"name": a} for a in args]}


async def test_a_missing_reader_field_says_so_and_names_the_fallback() -> None:
    with pytest.raises(ReaderUnavailable, match=r"no `chat` query yet.*retrieval metrics still"):
        await check_reader_field(_FakeApi({}), "chat")  # type: ignore[arg-type]
    partial = _FakeApi({"context": _field("workspace", "tokens", "session")})
    with pytest.raises(ReaderUnavailable, match="no peerTarget, searchQuery argument"):
        await check_reader_field(partial, "context")  # type: ignore[arg-type]
    full = _FakeApi({"chat": _field("workspace", "peer", "query", "target", "reasoningLevel")})
    await check_reader_field(full, "chat")  # type: ignore[arg-type]


def test_perspectives_per_dataset() -> None:
    lme = load_longmemeval(FIXTURES / "longmemeval_tiny.json")
    view = perspective("longmemeval", lme.conversations[0], lme.questions[0])
    assert (view.agent, view.target) == ("assistant", "user")
    locomo = load_locomo(FIXTURES / "locomo_tiny.json")
    conv = locomo.conversations[0]
    about_ben = next(q for q in locomo.questions if "Ben" in q.question and "Ana" not in q.question)
    assert perspective("locomo", conv, about_ben).agent == "Ben"
    assert perspective("locomo", conv, _question(question="Who came?")).agent == "Ana"


# -- ingestion helpers -----------------------------------------------------------------------


def test_names_are_valid_and_distinct() -> None:
    assert safe_name("answer_tea") == "answer_tea"
    cleaned = safe_name("s_chat#2")
    assert cleaned.startswith("s_chat-2.") and cleaned != safe_name("s_chat 2")
    assert len(safe_name("x" * 300)) == 100
    conversation = load_longmemeval(FIXTURES / "longmemeval_tiny.json").conversations[0]
    name = workspace_name("longmemeval", conversation, "t1")
    assert name.startswith("t1-longmemeval-q_tea-") and len(name) <= 100
    assert name == workspace_name("longmemeval", conversation, "t1")  # stable: resumable


def test_message_inputs_skip_empty_turns_and_cut_long_ones() -> None:
    turns = [
        Turn("a:0", "a", "user", "hello", "2023-05-20T02:21:00", False),
        Turn("a:1", "a", "assistant", "   ", None, False),
        Turn("a:2", "a", "user", "x" * 30, "sometime in May", False),
    ]
    items, skipped, truncated = message_inputs(
        SessionRecord("a", None, turns), {"user": "u", "assistant": "bot"}, max_chars=10
    )
    assert skipped == ["a:1"] and truncated == ["a:2"]
    assert items[0] == {
        "peer": "u",
        "content": "hello",
        "createdAt": "2023-05-20T02:21:00",
        "clientId": "turn:a:0",
        "metadata": {"turn_id": "a:0", "session_id": "a"},
    }
    assert items[1]["content"] == "x" * 10
    assert items[1]["createdAt"] is None  # an unparsed date: the server's clock
    assert iso_date("2023-05-20T02:21:00") == "2023-05-20T02:21:00"


def test_views_become_session_settings() -> None:
    lme = load_longmemeval(FIXTURES / "longmemeval_tiny.json").conversations[0]
    views = app_views("longmemeval", lme)
    assert views == [("assistant", "user"), ("assistant", "assistant")]
    assert membership(views, "assistant") == {"observeMe": True, "observeOthers": True}
    assert membership(views, "user") == {"observeMe": False, "observeOthers": False}
    locomo = load_locomo(FIXTURES / "locomo_tiny.json").conversations[0]
    views = app_views("locomo", locomo)
    assert views == [("Ana", "Ana"), ("Ben", "Ben")]
    assert membership(views, "Ana") == {"observeMe": True, "observeOthers": False}


def test_predicted_facts_are_the_extractive_sentences() -> None:
    conversation = _conversation()
    facts = predicted_facts(conversation, 25_000)
    assert len(facts) == 1
    assert "oolong" in facts[0] and "2023-05-20" in facts[0]


def test_arguments_are_checked() -> None:
    args = parse(["--dataset", "longmemeval", "--path", "x.json", "--ks", "10,5"])
    assert args.ks == (5, 10)
    # In the checkout's docs/, wherever the bench was started from.
    assert args.json == DOCS / "bench-memory-longmemeval.json" and args.json.is_absolute()
    with pytest.raises(SystemExit):
        parse(["--dataset", "longmemeval", "--path", "x.json", "--depth", "20", "--ks", "50"])
    with pytest.raises(SystemExit):
        parse(["--dataset", "longmemeval", "--path", "x.json", "--prefix", "a/b"])


class _RecordingApi:
    """Answers the ingestion mutations and records what was sent."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def call(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        variables = variables or {}
        self.sent.append((query, variables))
        if "addMessages" in query:
            messages = [
                {"id": f"m-{m['clientId']}", "clientId": m["clientId"]}
                for m in variables["messages"]
            ]
            return {"addMessages": {"created": len(messages), "messages": messages}}
        return {}


async def test_ingestion_seats_the_agent_in_sessions_it_never_speaks_in() -> None:
    turns = [Turn("s2:0", "s2", "user", "I moved to Lisbon.", "2023-05-20T02:21:00", True)]
    conversation = Conversation(
        "c1",
        [*_conversation().sessions, SessionRecord("s2", "2023-05-21T00:00:00", turns)],
        ["user", "assistant"],
    )
    api = _RecordingApi()
    views = app_views("longmemeval", conversation)
    ingested = await ingest_conversation(api, "longmemeval", conversation, views=views)  # type: ignore[arg-type]
    sessions = {v["name"]: v["peers"] for q, v in api.sent if "createSession" in q}
    assert sessions["s2"] == [
        {"peer": "user", "observeMe": False, "observeOthers": False},
        {"peer": "assistant", "observeMe": True, "observeOthers": True},
    ]
    assert ingested.message_to_turn == {
        "m-turn:s1:0": "s1:0",
        "m-turn:s1:1": "s1:1",
        "m-turn:s2:0": "s2:0",
    }
    assert ingested.created == 3


def test_a_dataset_that_cannot_be_measured_is_told_before_neo4j_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A wrong path was a traceback after half a minute of starting Neo4j; an empty file
    wrote a report section of no questions and exited 0."""
    broken = tmp_path / "broken.json"
    broken.write_text('[{"question_id": 1', encoding="utf-8")
    empty = tmp_path / "empty.json"
    empty.write_text("[]", encoding="utf-8")
    out = ["--report", str(tmp_path / "r.md"), "--json", str(tmp_path / "r.json")]
    for path, says in (
        (tmp_path / "missing.json", "No such file"),
        (broken, "not valid UTF-8 JSON"),
        (empty, "no questions to measure"),
    ):
        argv = ["--dataset", "longmemeval", "--path", str(path), *out]
        assert memory_bench.main(argv) == 2
        assert says in capsys.readouterr().err
    assert not (tmp_path / "r.md").exists()
