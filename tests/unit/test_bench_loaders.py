"""Dataset loaders, on the hand-written fixtures in tests/fixtures."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.bench.loaders import (
    Dataset,
    Question,
    load_beam,
    load_locomo,
    load_longmemeval,
    parse_locomo_evidence,
)

pytestmark = pytest.mark.unit

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _question(dataset: Dataset, question_id: str) -> Question:
    return next(q for q in dataset.questions if q.id == question_id)


def _write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# ------------------------------------------------------------------------------ LongMemEval


def test_longmemeval_one_conversation_per_question() -> None:
    ds = load_longmemeval(FIXTURES / "longmemeval_tiny.json")
    assert ds.name == "longmemeval"
    assert [c.id for c in ds.conversations] == ["q_tea", "q_count", "q_dog_abs"]
    assert [q.conversation_id for q in ds.questions] == ["q_tea", "q_count", "q_dog_abs"]
    assert ds.conversation("q_tea").speakers == ["user", "assistant"]


def test_longmemeval_sessions_turns_and_dates() -> None:
    ds = load_longmemeval(FIXTURES / "longmemeval_tiny.json")
    conv = ds.conversation("q_tea")
    # The repeated "s_chat" session keeps both occurrences under distinct ids.
    assert [s.id for s in conv.sessions] == ["s_chat", "answer_tea", "s_chat#2"]
    assert [s.date for s in conv.sessions] == [
        "2023-05-20T02:21:00",
        "2023-05-21T18:53:00",
        "sometime in May",  # unparseable: kept raw
    ]
    turn = conv.sessions[1].turns[0]
    assert turn.id == "answer_tea:0"
    assert turn.session_id == "answer_tea"
    assert turn.speaker == "user"
    assert turn.created_at == "2023-05-21T18:53:00"
    assert turn.is_evidence
    assert [t.id for t in conv.sessions[2].turns] == ["s_chat#2:0", "s_chat#2:1"]
    assert conv.session_of()["s_chat#2:1"] == "s_chat#2"


def test_longmemeval_questions_and_evidence() -> None:
    ds = load_longmemeval(FIXTURES / "longmemeval_tiny.json")
    tea = _question(ds, "q_tea")
    assert tea.question_date == "2023-05-30T09:15:00"
    assert tea.category == "single-session-user"
    assert tea.evidence_turn_ids == {"answer_tea:0"}
    assert tea.evidence_session_ids == {"answer_tea"}
    assert not tea.abstention

    count = _question(ds, "q_count")
    assert count.answer == "3"  # integer answers become text
    # has_answer on an assistant turn is evidence too.
    assert count.evidence_turn_ids == {"answer_run_1:0", "answer_run_2:1"}
    assert count.evidence_session_ids == {"answer_run_1", "answer_run_2"}

    dog = _question(ds, "q_dog_abs")
    assert dog.abstention
    assert dog.evidence_turn_ids == set()


def test_longmemeval_missing_field_names_file_and_record(tmp_path: Path) -> None:
    record = json.loads((FIXTURES / "longmemeval_tiny.json").read_text(encoding="utf-8"))[0]
    del record["question"]
    path = _write(tmp_path / "broken.json", [record])
    with pytest.raises(ValueError, match=r"broken\.json: question #0 \('q_tea'\): missing field"):
        load_longmemeval(path)


def test_longmemeval_mismatched_haystack(tmp_path: Path) -> None:
    record = json.loads((FIXTURES / "longmemeval_tiny.json").read_text(encoding="utf-8"))[0]
    record["haystack_dates"] = record["haystack_dates"][:1]
    path = _write(tmp_path / "short.json", [record])
    with pytest.raises(ValueError, match="differ in length"):
        load_longmemeval(path)


def test_longmemeval_bad_turn_and_bad_json(tmp_path: Path) -> None:
    record = json.loads((FIXTURES / "longmemeval_tiny.json").read_text(encoding="utf-8"))[0]
    record["haystack_sessions"][1][0]["content"] = 42
    with pytest.raises(ValueError, match=r"haystack session #1 \('answer_tea'\), turn #0"):
        load_longmemeval(_write(tmp_path / "turn.json", [record]))
    (tmp_path / "truncated.json").write_text('[{"question_id": ', encoding="utf-8")
    with pytest.raises(ValueError, match=r"truncated\.json: not valid UTF-8 JSON"):
        load_longmemeval(tmp_path / "truncated.json")
    with pytest.raises(ValueError, match="expected a list of questions"):
        load_longmemeval(_write(tmp_path / "object.json", {"question_id": "x"}))


# ----------------------------------------------------------------------------------- LoCoMo


def test_parse_locomo_evidence_packed_and_malformed() -> None:
    assert parse_locomo_evidence(["D8:6; D9:17"]) == ["D8:6", "D9:17"]
    assert parse_locomo_evidence(["D1:3 D1:5", "D1:3"]) == ["D1:3", "D1:5"]
    assert parse_locomo_evidence(["D:11:26", "D30:05", "D2:4,D2:5"]) == [
        "D11:26",
        "D30:5",
        "D2:4",
        "D2:5",
    ]
    assert parse_locomo_evidence("D4:1") == ["D4:1"]
    assert parse_locomo_evidence(["", "none", 7, None]) == []


def test_locomo_sessions_speakers_and_images() -> None:
    ds = load_locomo(FIXTURES / "locomo_tiny.json")
    assert ds.name == "locomo"
    conv = ds.conversation("conv-t1")
    assert conv.speakers == ["Ana", "Ben"]
    # Numeric order: session_10 comes after session_2.
    assert [s.id for s in conv.sessions] == ["session_1", "session_2", "session_10"]
    assert [s.date for s in conv.sessions] == [
        "2023-05-08T13:56:00",
        "2023-06-27T10:37:00",
        "not a date",
    ]
    image_turn = conv.sessions[0].turns[2]
    assert image_turn.id == "D1:3"
    assert image_turn.speaker == "Ana"
    assert image_turn.content == (
        "A small bowl. Here it is. [shares image: a photo of a blue ceramic bowl]"
    )
    assert image_turn.created_at == "2023-05-08T13:56:00"


def test_locomo_questions_and_evidence() -> None:
    ds = load_locomo(FIXTURES / "locomo_tiny.json")
    assert [q.id for q in ds.questions] == [f"conv-t1:{i}" for i in range(5)]

    single = _question(ds, "conv-t1:0")
    assert single.category == "4"
    assert single.evidence_turn_ids == {"D1:3"}
    assert single.evidence_session_ids == {"session_1"}
    assert single.question_date is None

    packed_semicolon = _question(ds, "conv-t1:1")
    assert packed_semicolon.answer == "2"
    assert packed_semicolon.evidence_turn_ids == {"D1:3", "D2:2"}
    assert packed_semicolon.evidence_session_ids == {"session_1", "session_2"}

    packed_space = _question(ds, "conv-t1:2")
    assert packed_space.evidence_turn_ids == {"D1:1", "D1:2"}

    # "D:2:1" and "D10:01" are repaired; "D9:9" names no turn and is dropped.
    malformed = _question(ds, "conv-t1:3")
    assert malformed.evidence_turn_ids == {"D2:1", "D10:1"}
    assert malformed.evidence_session_ids == {"session_2", "session_10"}

    adversarial = _question(ds, "conv-t1:4")
    assert adversarial.abstention
    assert adversarial.category == "5"
    assert adversarial.answer == "Rex"  # the adversarial (trap) answer


def test_locomo_is_evidence_marks_cited_turns() -> None:
    conv = load_locomo(FIXTURES / "locomo_tiny.json").conversation("conv-t1")
    uncited = [t.id for t in conv.turns() if not t.is_evidence]
    assert uncited == ["D2:3"]


def test_locomo_malformed_records(tmp_path: Path) -> None:
    sample = json.loads((FIXTURES / "locomo_tiny.json").read_text(encoding="utf-8"))[0]
    sample["qa"][1]["category"] = "seven"
    with pytest.raises(ValueError, match=r"bad\.json: sample #0 \('conv-t1'\), qa #1"):
        load_locomo(_write(tmp_path / "bad.json", [sample]))
    del sample["conversation"]
    with pytest.raises(ValueError, match="missing field 'conversation'"):
        load_locomo(_write(tmp_path / "bad2.json", [sample]))


# ------------------------------------------------------------------------------------- BEAM


def test_beam_sessions_turns_and_markers() -> None:
    ds = load_beam(FIXTURES / "beam_tiny")
    assert ds.name == "beam"
    [conv] = ds.conversations
    assert conv.id == "fixtures-beam_tiny"  # <size>-<n> in BEAM's chats/<size>/<n>
    assert conv.speakers == ["user", "assistant"]
    assert [s.id for s in conv.sessions] == ["batch-1", "batch-2"]
    assert [s.date for s in conv.sessions] == ["2024-03-15T00:00:00", "2024-04-02T00:00:00"]
    turns = list(conv.turns())
    assert [t.id for t in turns] == ["0", "1", "2", "3", "4", "5"]
    # The "->-> 1,2" plan coordinate is not conversation text.
    assert turns[2].content == "My first sprint ends on March 29 and covers login."
    assert turns[2].created_at == "2024-03-15T00:00:00"  # carried from the batch
    assert turns[4].session_id == "batch-2"


def test_beam_questions_and_evidence() -> None:
    ds = load_beam(FIXTURES / "beam_tiny" / "chat.json", conversation_id="c1")
    assert [q.id for q in ds.questions] == [
        "c1:abstention:0",
        "c1:information_extraction:0",
        "c1:knowledge_update:0",
    ]
    abstain, extract, update = ds.questions
    assert abstain.abstention
    assert abstain.answer.startswith("Based on the provided chat")
    assert abstain.evidence_turn_ids == set()
    assert extract.category == "information_extraction"
    assert extract.answer == "March 29."
    assert extract.evidence_turn_ids == {"2", "3"}
    assert extract.evidence_session_ids == {"batch-1"}
    # A dict of id lists; 99 names no turn and is dropped.
    assert update.evidence_turn_ids == {"1", "4"}
    assert update.evidence_session_ids == {"batch-1", "batch-2"}
    cited = {t.id for t in ds.conversations[0].turns() if t.is_evidence}
    assert cited == {"1", "2", "3", "4"}


def test_beam_plan_wrapped_chat_with_inline_questions(tmp_path: Path) -> None:
    batch = {"turns": [[{"role": "user", "id": 0, "content": "hello ->-> 1,1"}]]}
    data = {
        "chat": [
            {"plan-1": [dict(batch, batch_number=1)], "plan-2": [dict(batch, batch_number=1)]}
        ],
        # The Hugging Face export stores questions as a Python literal.
        "probing_questions": "{'temporal_reasoning': [{'question': 'When?', 'answer': 'Then',"
        " 'source_chat_ids': {'first_event': [0]}}]}",
    }
    ds = load_beam(_write(tmp_path / "chat.json", data))
    conv = ds.conversations[0]
    assert [s.id for s in conv.sessions] == ["plan-1/batch-1", "plan-2/batch-1"]
    assert [t.id for t in conv.turns()] == ["0", "0#2"]
    assert [t.content for t in conv.turns()] == ["hello", "hello"]
    # An id repeated across plans is ambiguous: evidence covers every turn carrying it.
    [question] = ds.questions
    assert question.evidence_turn_ids == {"0", "0#2"}
    assert question.question_date is None


def test_beam_without_questions_file(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "beam_tiny" / "chat.json", tmp_path / "chat.json")
    ds = load_beam(tmp_path)
    assert ds.questions == []
    assert not any(t.is_evidence for t in ds.conversations[0].turns())


def test_beam_malformed_turn(tmp_path: Path) -> None:
    data = [{"batch_number": 1, "turns": [[{"id": 0, "content": "no role"}]]}]
    with pytest.raises(ValueError, match=r"chat\.json: chat element #0 \(batch-1\), turn #0"):
        load_beam(_write(tmp_path / "chat.json", data))
    with pytest.raises(ValueError, match="expected a batch"):
        load_beam(_write(tmp_path / "chat.json", [42]))


# ------------------------------------------------------------------- shared: data and texts


def _longmemeval_record(**changes: object) -> dict[str, Any]:
    record = json.loads((FIXTURES / "longmemeval_tiny.json").read_text(encoding="utf-8"))[0]
    return {**record, **changes}


def test_digest_tells_apart_files_of_the_same_name(tmp_path: Path) -> None:
    (tmp_path / "v1").mkdir()
    (tmp_path / "v2").mkdir()
    first = _write(tmp_path / "v1" / "s.json", [_longmemeval_record()])
    second = _write(tmp_path / "v2" / "s.json", [_longmemeval_record(answer="Green tea")])
    digest = load_longmemeval(first).digest
    assert len(digest) == 64
    assert load_longmemeval(second).digest != digest
    shutil.copy(first, tmp_path / "v2" / "s.json")
    assert load_longmemeval(tmp_path / "v2" / "s.json").digest == digest


def test_beam_digest_covers_the_questions_file(tmp_path: Path) -> None:
    folder = tmp_path / "100K" / "1"
    shutil.copytree(FIXTURES / "beam_tiny", folder)
    digest = load_beam(folder).digest
    questions = folder / "probing_questions" / "probing_questions.json"
    questions.write_text(questions.read_text(encoding="utf-8").replace("March 29", "April 2"))
    assert load_beam(folder).digest != digest


def test_beam_default_id_names_the_size_folder(tmp_path: Path) -> None:
    for size in ("100K", "500K"):
        shutil.copytree(FIXTURES / "beam_tiny", tmp_path / "chats" / size / "1")
    small = load_beam(tmp_path / "chats" / "100K" / "1")
    large = load_beam(tmp_path / "chats" / "500K" / "1" / "chat.json")
    assert [c.id for c in small.conversations] == ["100K-1"]
    assert [c.id for c in large.conversations] == ["500K-1"]
    assert not {q.id for q in small.questions} & {q.id for q in large.questions}


LONE = "\ud83d"  # half of an emoji: valid JSON (as an escape), not encodable as UTF-8


def _texts(ds: Dataset) -> list[str]:
    """Every text of a dataset that reaches the service, the tokenizer or the judge."""
    return [
        *(t.content for c in ds.conversations for t in c.turns()),
        *(t.speaker for c in ds.conversations for t in c.turns()),
        *(s for c in ds.conversations for s in c.speakers),
        *(q.question for q in ds.questions),
        *(q.answer for q in ds.questions),
    ]


def _encodable(ds: Dataset) -> None:
    for text in _texts(ds):
        text.encode("utf-8")  # raises on a lone surrogate


def test_longmemeval_unpaired_surrogates_are_replaced(tmp_path: Path) -> None:
    record = _longmemeval_record(question=f"Tea {LONE}?", answer=f"Oolong {LONE}")
    record["haystack_sessions"][1][0]["content"] = f"I drink oolong {LONE} tea."
    ds = load_longmemeval(_write(tmp_path / "lme.json", [record]))
    _encodable(ds)
    assert ds.questions[0].question == "Tea \ufffd?"
    assert ds.questions[0].answer == "Oolong \ufffd"
    assert "I drink oolong \ufffd tea." in _texts(ds)
    # A pair of escapes spells one character, left as it is.
    pair = _write(tmp_path / "pair.json", [_longmemeval_record(question="\ud83d\ude00")])
    assert load_longmemeval(pair).questions[0].question == "\U0001f600"


def test_locomo_unpaired_surrogates_are_replaced(tmp_path: Path) -> None:
    sample = json.loads((FIXTURES / "locomo_tiny.json").read_text(encoding="utf-8"))[0]
    sample["conversation"]["speaker_a"] = f"An{LONE}a"
    for turn in sample["conversation"]["session_1"]:
        turn["speaker"] = turn["speaker"].replace("Ana", f"An{LONE}a")
    # Low half before high half: no pair, two lone halves.
    sample["conversation"]["session_2"][0]["text"] = f"A puppy \udc00{LONE} named Rex"
    ds = load_locomo(_write(tmp_path / "locomo.json", [sample]))
    _encodable(ds)
    assert ds.conversations[0].speakers[0] == "An\ufffda"
    assert "A puppy \ufffd\ufffd named Rex" in _texts(ds)


def test_beam_unpaired_surrogates_are_replaced(tmp_path: Path) -> None:
    chat = [{"turns": [[{"role": "user", "id": 0, "content": f"hi {LONE}"}]]}]
    # The Hugging Face export's Python literal can spell one with its own escape.
    literal = "{'ie': [{'question': 'Q \\ud83d?', 'answer': 'A', 'source_chat_ids': [0]}]}"
    ds = load_beam(_write(tmp_path / "chat.json", {"chat": chat, "probing_questions": literal}))
    _encodable(ds)
    assert next(ds.conversations[0].turns()).content == "hi \ufffd"
    assert ds.questions[0].question == "Q \ufffd?"


def test_longmemeval_list_answer_is_joined(tmp_path: Path) -> None:
    ds = load_longmemeval(
        _write(tmp_path / "list.json", [_longmemeval_record(answer=["Paris", "Lyon", 2])])
    )
    assert ds.questions[0].answer == "Paris; Lyon; 2"


def test_locomo_duplicate_sample_id_is_refused(tmp_path: Path) -> None:
    sample = json.loads((FIXTURES / "locomo_tiny.json").read_text(encoding="utf-8"))[0]
    with pytest.raises(
        ValueError, match=r"dup\.json: sample #1 \('conv-t1'\): duplicate sample_id"
    ):
        load_locomo(_write(tmp_path / "dup.json", [sample, sample]))
