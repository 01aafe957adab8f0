"""Load LongMemEval, LoCoMo and BEAM into one small, typed shape.

Every loader returns a :class:`Dataset` of conversations (sessions of turns) and questions
whose evidence is given both as turn ids and as session ids. Malformed input raises
``ValueError("<file>: <record>: <problem>")``.

Shared conventions:

- Dates are naive ISO 8601 (``2023-05-20T02:21:00``); a date that does not parse is kept raw.
  The datasets date sessions, not turns, so a turn's ``created_at`` is its session's date
  (BEAM: the turn's own ``time_anchor`` when it has one).
- Ids are unique within a conversation. Where a dataset repeats an id (LongMemEval repeats a
  few identical sessions inside one haystack; BEAM and LoCoMo occasionally repeat turn ids),
  later occurrences get ``#2``, ``#3``... and evidence naming that id points at all of them.
- Evidence ids that name nothing in the conversation are dropped: they could never be
  retrieved and would only cap recall_all below 1.
- Every text read (turns, questions, answers, names, ids) has its unpaired UTF-16 surrogates
  (a lone ``"\\ud83d"`` is valid JSON) replaced by U+FFFD: they cannot be encoded as UTF-8,
  so the tokenizer or the database would fail on them mid-run.
- ``Dataset.digest`` is a SHA-256 of the bytes of every file the loader read, so a run can
  tell different data behind the same file name.

LongMemEval (``load_longmemeval``): a JSON list of questions, each with its own haystack
(``haystack_session_ids``, ``haystack_dates``, ``haystack_sessions`` of ``{role, content,
has_answer?}``). Each question becomes its own conversation, id = question id. Turn ids are
``f"{session_id}:{i}"`` with i counted from 0 (LongMemEval's own corpus ids use
``f"{session_id}_{i + 1}"``). A list ``answer`` becomes its items joined by ``"; "``.
Evidence turns are those with ``has_answer`` true (user or
assistant); evidence sessions are ``answer_session_ids`` as given. LongMemEval's retrieval
script indexes user turns only and drops answer sessions without a user ``has_answer`` turn;
a harness that wants exactly that can filter on ``Turn.speaker`` and ``Turn.is_evidence``.
Abstention: id ends with ``_abs``.

LoCoMo (``load_locomo``): ``locomo10.json``, a list of samples ``{sample_id, conversation:
{speaker_a, speaker_b, session_N: [{speaker, dia_id, text, blip_caption?}],
session_N_date_time}, qa: [{question, answer | adversarial_answer, evidence, category}]}``.
Sessions are ``session_N`` ordered by N; turn id = ``dia_id``. Evidence strings are searched
for every ``D<session>:<turn>`` reference, so packed ("D8:6; D9:17", "D1:3 D1:5") and sloppy
("D:11:26", "D30:05") forms work. A repeated ``sample_id`` is an error. Question ids are
``f"{sample_id}:{index in qa}"`` and the category is the number as a string (see
:data:`LOCOMO_CATEGORIES`). Category 5 is adversarial:
``abstention=True`` and ``answer`` holds ``adversarial_answer``, the tempting wrong answer a
model should refuse to give. ``Turn.is_evidence`` marks turns cited by any question.

BEAM (``load_beam``): one conversation directory of the BEAM repository
(``chats/<size>/<n>/``): ``chat.json`` plus ``probing_questions/probing_questions.json``.
Format read from the public BEAM data (mohammadtavakoli78/BEAM):

- ``chat.json`` is a list of batches ``{batch_number, turns: [[turn, ...], ...]}`` (turn
  groups); a turn is ``{role, id: int, content, time_anchor?, index?, question_type?}`` and
  ``time_anchor`` looks like ``"March-15-2024"``. The 10M size wraps batches in
  ``{"plan-1": [batch, ...], ...}``. Also accepted: a batch whose ``turns`` are flat, a bare
  list of turns as a session, and ``{"chat": [...], "probing_questions": {...}}`` in one file.
- Each batch becomes a session (``batch-<n>``, or ``plan-k/batch-<n>``); turn id =
  ``str(id)``. User turns end with a ``->-> 1,2`` plan coordinate, which is stripped.
- ``probing_questions.json`` maps an ability (abstention, event_ordering, ...) to questions
  with ``question``, an answer under one of :data:`BEAM_ANSWER_KEYS` and ``source_chat_ids``
  (a list of turn ids, or a dict of such lists). Category = ability; abstention = the
  ``abstention`` ability. Question ids are ``f"{conversation_id}:{ability}:{index}"``. A
  missing questions file yields no questions.
- The conversation id defaults to ``<size>-<n>``, the names of the two directories above
  ``chat.json`` (``chats/100K/1`` -> ``100K-1``), so sizes do not share ids.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

LOCOMO_CATEGORIES: dict[str, str] = {
    "1": "multi-hop",
    "2": "temporal",
    "3": "open-domain",
    "4": "single-hop",
    "5": "adversarial",
}
BEAM_ANSWER_KEYS: tuple[str, ...] = (
    "answer",
    "ideal_response",
    "ideal_answer",
    "ideal_summary",
    "expected_compliance",
)


@dataclass(frozen=True)
class Turn:
    id: str
    session_id: str
    speaker: str
    content: str
    created_at: str | None
    is_evidence: bool


@dataclass(frozen=True)
class SessionRecord:
    id: str
    date: str | None
    turns: list[Turn]


@dataclass(frozen=True)
class Conversation:
    id: str
    sessions: list[SessionRecord]
    speakers: list[str]

    def turns(self) -> Iterator[Turn]:
        """All turns in conversation order."""
        for session in self.sessions:
            yield from session.turns

    def session_of(self) -> dict[str, str]:
        """Turn id -> session id, for ``metrics.sessions_from_turns``."""
        return {turn.id: turn.session_id for turn in self.turns()}


@dataclass(frozen=True)
class Question:
    id: str
    conversation_id: str
    question: str
    answer: str
    category: str
    question_date: str | None
    evidence_turn_ids: set[str] = field(default_factory=set)
    evidence_session_ids: set[str] = field(default_factory=set)
    abstention: bool = False


@dataclass(frozen=True)
class Dataset:
    name: str
    conversations: list[Conversation]
    questions: list[Question]
    digest: str = ""  # SHA-256 over the files read (see the module docstring)

    def conversation(self, conversation_id: str) -> Conversation:
        for conversation in self.conversations:
            if conversation.id == conversation_id:
                return conversation
        raise KeyError(conversation_id)


# --------------------------------------------------------------------------- shared helpers


class _Source:
    """The file being read; builds errors that name it and the offending record."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sha256 = ""  # of the bytes, once read

    def error(self, where: str, problem: str) -> ValueError:
        return ValueError(f"{self.path}: {where}: {problem}")

    def read_json(self) -> Any:
        raw = self.path.read_bytes()
        self.sha256 = hashlib.sha256(raw).hexdigest()
        try:
            return clean_text(json.loads(raw.decode("utf-8")))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(f"{self.path}: not valid UTF-8 JSON: {exc}") from exc

    def get(self, record: object, key: str, kind: type | tuple[type, ...], where: str) -> Any:
        if not isinstance(record, dict):
            raise self.error(where, f"expected an object, got {type(record).__name__}")
        if key not in record:
            raise self.error(where, f"missing field {key!r}")
        value = record[key]
        # bool is an int subclass; a boolean is never a valid id, count or text here.
        if isinstance(value, bool) or not isinstance(value, kind):
            raise self.error(where, f"field {key!r} has type {type(value).__name__}")
        return value


# The JSON decoder joins escaped surrogate pairs, so any surrogate left in a string is unpaired.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(value: Any) -> Any:
    """``value`` (decoded JSON) with unpaired surrogates in every string, keys included,
    replaced by U+FFFD."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [clean_text(item) for item in value]
    if isinstance(value, dict):
        return {clean_text(key): clean_text(item) for key, item in value.items()}
    return value


def read_clean_json(path: Path) -> Any:
    """A JSON file as the loaders read it (unpaired surrogates replaced)."""
    return _Source(path).read_json()


def _digest(sources: Iterable[_Source]) -> str:
    """One SHA-256 over the files read: each file's name and the hash of its bytes."""
    digest = hashlib.sha256()
    for src in sources:
        digest.update(f"{src.path.name}\0{src.sha256}\0".encode())
    return digest.hexdigest()


class _UniqueIds:
    """Hands out ids unique within one scope: repeats become ``id#2``, ``id#3``..."""

    def __init__(self) -> None:
        self._seen: Counter[str] = Counter()

    def take(self, raw: str) -> str:
        self._seen[raw] += 1
        count = self._seen[raw]
        return raw if count == 1 else f"{raw}#{count}"


def _parse_date(raw: str | None, formats: tuple[str, ...]) -> str | None:
    """Naive ISO 8601 for the first matching format; the raw text when none matches."""
    if raw is None:
        return None
    text = " ".join(raw.split())
    if not text:
        return None
    for fmt in formats:
        try:
            return datetime.strptime(text, fmt).isoformat()
        except ValueError:
            continue
    return raw


# "2023/05/20 (Sat) 02:21"; the weekday is redundant and not checked.
_LME_DATE = re.compile(r"^(\d{4})/(\d{1,2})/(\d{1,2})\s*(?:\(\w+\))?\s*(\d{1,2}):(\d{2})$")


def _parse_longmemeval_date(raw: str) -> str:
    match = _LME_DATE.match(raw.strip())
    if match is None:
        return raw
    year, month, day, hour, minute = (int(part) for part in match.groups())
    try:
        return datetime(year, month, day, hour, minute).isoformat()
    except ValueError:
        return raw


_LOCOMO_DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %B %Y", "%I:%M %p on %d %b, %Y")
_BEAM_DATE_FORMATS = ("%B-%d-%Y", "%b-%d-%Y", "%Y-%m-%d", "%B %d, %Y")


def _text(value: object) -> str:
    """Answers may be numbers (LongMemEval, LoCoMo) or lists; compare them as text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "; ".join(_text(item) for item in value)
    return str(value)


# ------------------------------------------------------------------------------ LongMemEval


def load_longmemeval(path: str | Path) -> Dataset:
    """Load a LongMemEval file (oracle, S or M); see the module docstring."""
    src = _Source(Path(path))
    data = src.read_json()
    if not isinstance(data, list):
        raise src.error("top level", f"expected a list of questions, got {type(data).__name__}")
    conversations: list[Conversation] = []
    questions: list[Question] = []
    seen_ids: set[str] = set()
    for index, record in enumerate(data):
        where = f"question #{index}"
        qid = src.get(record, "question_id", str, where)
        where = f"question #{index} ({qid!r})"
        if qid in seen_ids:
            raise src.error(where, "duplicate question_id")
        seen_ids.add(qid)
        conversation, evidence_turns, session_ids = _longmemeval_haystack(src, record, qid, where)
        answer_sessions = {_text(s) for s in src.get(record, "answer_session_ids", list, where)}
        evidence_sessions = {unique for unique, raw in session_ids if raw in answer_sessions}
        question_date = src.get(record, "question_date", str, where)
        conversations.append(conversation)
        questions.append(
            Question(
                id=qid,
                conversation_id=qid,
                question=src.get(record, "question", str, where),
                answer=_text(src.get(record, "answer", (str, int, float, list), where)),
                category=src.get(record, "question_type", str, where),
                question_date=_parse_longmemeval_date(question_date),
                evidence_turn_ids=evidence_turns,
                evidence_session_ids=evidence_sessions,
                abstention=qid.endswith("_abs"),
            )
        )
    return Dataset("longmemeval", conversations, questions, digest=_digest([src]))


def _longmemeval_haystack(
    src: _Source, record: object, qid: str, where: str
) -> tuple[Conversation, set[str], list[tuple[str, str]]]:
    """One question's haystack as a conversation, its evidence turn ids and
    (unique session id, raw session id) pairs."""
    session_ids = src.get(record, "haystack_session_ids", list, where)
    dates = src.get(record, "haystack_dates", list, where)
    sessions = src.get(record, "haystack_sessions", list, where)
    if not len(session_ids) == len(dates) == len(sessions):
        raise src.error(
            where,
            f"haystack lists differ in length (ids {len(session_ids)}, dates {len(dates)}, "
            f"sessions {len(sessions)})",
        )
    unique_ids = _UniqueIds()
    records: list[SessionRecord] = []
    evidence: set[str] = set()
    pairs: list[tuple[str, str]] = []
    for position, (raw_id, raw_date, turns) in enumerate(
        zip(session_ids, dates, sessions, strict=True)
    ):
        at = f"{where}, haystack session #{position}"
        if not isinstance(raw_id, str) or not isinstance(raw_date, str):
            raise src.error(at, "session id and date must be strings")
        if not isinstance(turns, list):
            raise src.error(at, f"expected a list of turns, got {type(turns).__name__}")
        session_id = unique_ids.take(raw_id)
        pairs.append((session_id, raw_id))
        date = _parse_longmemeval_date(raw_date)
        session_turns: list[Turn] = []
        for turn_index, turn in enumerate(turns):
            turn_at = f"{at} ({raw_id!r}), turn #{turn_index}"
            is_evidence = isinstance(turn, dict) and turn.get("has_answer") is True
            session_turns.append(
                Turn(
                    id=f"{session_id}:{turn_index}",
                    session_id=session_id,
                    speaker=src.get(turn, "role", str, turn_at),
                    content=src.get(turn, "content", str, turn_at),
                    created_at=date,
                    is_evidence=is_evidence,
                )
            )
            if is_evidence:
                evidence.add(f"{session_id}:{turn_index}")
        records.append(SessionRecord(id=session_id, date=date, turns=session_turns))
    conversation = Conversation(id=qid, sessions=records, speakers=["user", "assistant"])
    return conversation, evidence, pairs


# ----------------------------------------------------------------------------------- LoCoMo

_SESSION_KEY = re.compile(r"^session_(\d+)$")
# "D8:6", "D30:05", "D:11:26" (stray colon), "D 3 : 4".
_EVIDENCE_REF = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")


def parse_locomo_evidence(value: object) -> list[str]:
    """Normalised ``D<session>:<turn>`` references found in a LoCoMo evidence field.

    Accepts a list of strings or one string; each string may pack several references
    separated by ``;``, ``,`` or spaces. Anything else in the text is ignored.
    """
    items = value if isinstance(value, list) else [value]
    refs: list[str] = []
    for item in items:
        if not isinstance(item, str):
            continue
        for session, turn in _EVIDENCE_REF.findall(item):
            ref = f"D{int(session)}:{int(turn)}"
            if ref not in refs:
                refs.append(ref)
    return refs


@dataclass
class _RawTurn:
    raw_id: str  # the id as the dataset spells it, before de-duplication
    id: str
    session_id: str
    speaker: str
    content: str
    created_at: str | None


def load_locomo(path: str | Path) -> Dataset:
    """Load ``locomo10.json`` (or a file of the same shape); see the module docstring."""
    src = _Source(Path(path))
    data = src.read_json()
    if isinstance(data, dict):
        data = [data]  # a single sample
    if not isinstance(data, list):
        raise src.error("top level", f"expected a list of samples, got {type(data).__name__}")
    conversations: list[Conversation] = []
    questions: list[Question] = []
    seen_ids: set[str] = set()
    for index, sample in enumerate(data):
        where = f"sample #{index}"
        sample_id = _text(src.get(sample, "sample_id", (str, int), where))
        where = f"sample #{index} ({sample_id!r})"
        if sample_id in seen_ids:
            # Question ids and the conversation lookup are keyed by sample_id.
            raise src.error(where, f"duplicate sample_id {sample_id!r}")
        seen_ids.add(sample_id)
        conv = src.get(sample, "conversation", dict, where)
        sessions, speakers = _locomo_sessions(src, conv, where)
        by_ref: dict[str, list[str]] = {}
        for _, _, turns in sessions:
            for turn in turns:
                # Index by the normalised form so "D30:05"-style citations still match.
                key = (parse_locomo_evidence(turn.raw_id) or [turn.raw_id])[0]
                by_ref.setdefault(key, []).append(turn.id)
        session_of = {turn.id: turn.session_id for _, _, turns in sessions for turn in turns}
        qa = sample.get("qa", [])
        if not isinstance(qa, list):
            raise src.error(where, f"field 'qa' has type {type(qa).__name__}")
        cited: set[str] = set()
        for q_index, item in enumerate(qa):
            question = _locomo_question(src, item, sample_id, q_index, by_ref, session_of, where)
            cited |= question.evidence_turn_ids
            questions.append(question)
        records = [
            SessionRecord(
                id=session_id,
                date=date,
                turns=[
                    Turn(t.id, t.session_id, t.speaker, t.content, t.created_at, t.id in cited)
                    for t in turns
                ],
            )
            for session_id, date, turns in sessions
        ]
        conversations.append(Conversation(id=sample_id, sessions=records, speakers=speakers))
    return Dataset("locomo", conversations, questions, digest=_digest([src]))


def _locomo_sessions(
    src: _Source, conv: Mapping[str, Any], where: str
) -> tuple[list[tuple[str, str | None, list[_RawTurn]]], list[str]]:
    numbered = sorted(
        (int(match.group(1)), key)
        for key in conv
        if (match := _SESSION_KEY.match(key)) and isinstance(conv[key], list)
    )
    if not numbered:
        raise src.error(where, "conversation has no session_N lists")
    speakers = [conv[key] for key in ("speaker_a", "speaker_b") if isinstance(conv.get(key), str)]
    unique_ids = _UniqueIds()
    sessions: list[tuple[str, str | None, list[_RawTurn]]] = []
    for _, key in numbered:
        raw_date = conv.get(f"{key}_date_time")
        date = _parse_date(raw_date if isinstance(raw_date, str) else None, _LOCOMO_DATE_FORMATS)
        turns: list[_RawTurn] = []
        for turn_index, turn in enumerate(conv[key]):
            at = f"{where}, {key} turn #{turn_index}"
            speaker = src.get(turn, "speaker", str, at)
            dia_id = src.get(turn, "dia_id", str, at)
            text = turn.get("text", "")
            if not isinstance(text, str):
                raise src.error(at, f"field 'text' has type {type(text).__name__}")
            caption = turn.get("blip_caption")
            if isinstance(caption, str) and caption.strip():
                # The image itself is not in the file; its caption is what a reader can use.
                text = f"{text} [shares image: {caption.strip()}]".strip()
            if speaker not in speakers:
                speakers.append(speaker)
            turns.append(_RawTurn(dia_id, unique_ids.take(dia_id), key, speaker, text, date))
        sessions.append((key, date, turns))
    return sessions, speakers


def _locomo_question(
    src: _Source,
    item: object,
    sample_id: str,
    q_index: int,
    by_ref: Mapping[str, list[str]],
    session_of: Mapping[str, str],
    where: str,
) -> Question:
    at = f"{where}, qa #{q_index}"
    text = src.get(item, "question", str, at)
    category = src.get(item, "category", (int, str), at)
    category_text = str(category).strip()
    if category_text not in LOCOMO_CATEGORIES:
        raise src.error(at, f"unknown category {category!r}")
    assert isinstance(item, dict)  # checked by src.field above
    adversarial = category_text == "5"
    # Category 5 keeps its answer in adversarial_answer (the trap, not the expected reply).
    keys = ("adversarial_answer", "answer") if adversarial else ("answer", "adversarial_answer")
    answer = next((item[key] for key in keys if item.get(key) is not None), None)
    turn_ids = {
        turn_id
        for ref in parse_locomo_evidence(item.get("evidence"))
        for turn_id in by_ref.get(ref, [])
    }
    return Question(
        id=f"{sample_id}:{q_index}",
        conversation_id=sample_id,
        question=text,
        answer=_text(answer),
        category=category_text,
        question_date=None,
        evidence_turn_ids=turn_ids,
        evidence_session_ids={session_of[turn_id] for turn_id in turn_ids},
        abstention=adversarial,
    )


# ------------------------------------------------------------------------------------- BEAM

# User turns end with " ->-> 1,2" (the plan coordinate of the message), not conversation text.
_BEAM_MARKER = re.compile(r"\s*->->\s*[\d\s,]*$")


def load_beam(path: str | Path, conversation_id: str | None = None) -> Dataset:
    """Load one BEAM conversation: ``chat.json`` or its directory; see the module docstring.

    ``conversation_id`` defaults to :func:`beam_conversation_id`.
    """
    chat_path = beam_chat_path(path)
    src = _Source(chat_path)
    conv_id = conversation_id or beam_conversation_id(chat_path)
    data = src.read_json()
    probing: object = None
    if isinstance(data, dict):
        probing = data.get("probing_questions")
        data = src.get(data, "chat", list, "top level")
    if not isinstance(data, list):
        raise src.error("top level", f"expected a list of batches, got {type(data).__name__}")
    sessions = _beam_sessions(src, data)
    questions_src = src
    if probing is None:
        questions_path = chat_path.parent / "probing_questions" / "probing_questions.json"
        if questions_path.is_file():
            questions_src = _Source(questions_path)
            probing = questions_src.read_json()
    by_raw: dict[str, list[str]] = {}
    for _, _, turns in sessions:
        for turn in turns:
            by_raw.setdefault(turn.raw_id, []).append(turn.id)
    session_of = {turn.id: turn.session_id for _, _, turns in sessions for turn in turns}
    questions = _beam_questions(questions_src, probing, conv_id, by_raw, session_of)
    cited = {turn_id for question in questions for turn_id in question.evidence_turn_ids}
    speakers: list[str] = []
    records: list[SessionRecord] = []
    for session_id, date, turns in sessions:
        for turn in turns:
            if turn.speaker not in speakers:
                speakers.append(turn.speaker)
        records.append(
            SessionRecord(
                id=session_id,
                date=date,
                turns=[
                    Turn(t.id, t.session_id, t.speaker, t.content, t.created_at, t.id in cited)
                    for t in turns
                ],
            )
        )
    conversation = Conversation(id=conv_id, sessions=records, speakers=speakers)
    read = [src] if questions_src is src else [src, questions_src]
    return Dataset("beam", [conversation], questions, digest=_digest(read))


def beam_chat_path(path: str | Path) -> Path:
    """The ``chat.json`` of a BEAM ``--path`` (the file, or its directory)."""
    chat_path = Path(path)
    return chat_path / "chat.json" if chat_path.is_dir() else chat_path


def beam_conversation_id(chat_path: Path) -> str:
    """``<size>-<n>`` from ``.../<size>/<n>/chat.json``: the folder name alone (``1``) is
    repeated in every size of the BEAM repository."""
    folder = Path(os.path.abspath(chat_path)).parent  # abspath: no "." or ".." names
    names = [p.name for p in (folder.parent, folder) if p.name]
    return "-".join(names) or "beam"


def _beam_batches(src: _Source, chat: list[Any]) -> Iterator[tuple[str, str, object]]:
    """(session name, location for errors, batch) for every batch, plan-wrapped or not."""
    for index, element in enumerate(chat):
        where = f"chat element #{index}"
        if isinstance(element, list):
            yield f"session-{index + 1}", where, {"turns": element}
        elif isinstance(element, dict) and "turns" in element:
            yield _beam_batch_name(element, index), where, element
        elif (
            isinstance(element, dict)
            and element
            and all(isinstance(key, str) and key.startswith("plan-") for key in element)
        ):
            for plan, batches in element.items():
                if not isinstance(batches, list):
                    raise src.error(f"{where}, {plan}", "expected a list of batches")
                for b_index, batch in enumerate(batches):
                    name = f"{plan}/{_beam_batch_name(batch, b_index)}"
                    yield name, f"{where}, {plan} batch #{b_index}", batch
        else:
            raise src.error(where, "expected a batch with 'turns', a plan-N map or a turn list")


def _beam_batch_name(batch: object, index: int) -> str:
    number = batch.get("batch_number") if isinstance(batch, dict) else None
    if isinstance(number, int) and not isinstance(number, bool):
        return f"batch-{number}"
    return f"batch-{index + 1}"


def _beam_sessions(src: _Source, chat: list[Any]) -> list[tuple[str, str | None, list[_RawTurn]]]:
    session_ids = _UniqueIds()
    turn_ids = _UniqueIds()
    sessions: list[tuple[str, str | None, list[_RawTurn]]] = []
    for name, where, batch in _beam_batches(src, chat):
        session_id = session_ids.take(name)
        groups = src.get(batch, "turns", list, where)
        flat: list[tuple[int, object]] = []
        for group in groups:
            members = group if isinstance(group, list) else [group]
            flat.extend((len(flat), turn) for turn in members)
        assert isinstance(batch, dict)  # checked by src.field above
        anchor = batch.get("time_anchor")
        if not isinstance(anchor, str):
            anchor = next(
                (
                    t["time_anchor"]
                    for _, t in flat
                    if isinstance(t, dict) and isinstance(t.get("time_anchor"), str)
                ),
                None,
            )
        date = _parse_date(anchor, _BEAM_DATE_FORMATS)
        turns: list[_RawTurn] = []
        for position, turn in flat:
            at = f"{where} ({session_id}), turn #{position}"
            role = src.get(turn, "role", str, at)
            content = src.get(turn, "content", str, at)
            assert isinstance(turn, dict)
            raw_id = turn.get("id")
            if isinstance(raw_id, bool) or not isinstance(raw_id, int | str):
                # No usable id: no question can cite it, but it is still conversation.
                raw_id = f"{session_id}:{position}"
            own_anchor = turn.get("time_anchor")
            created_at = (
                _parse_date(own_anchor, _BEAM_DATE_FORMATS) if isinstance(own_anchor, str) else date
            )
            turns.append(
                _RawTurn(
                    raw_id=str(raw_id),
                    id=turn_ids.take(str(raw_id)),
                    session_id=session_id,
                    speaker=role,
                    content=_BEAM_MARKER.sub("", content),
                    created_at=created_at,
                )
            )
        sessions.append((session_id, date, turns))
    return sessions


def _flatten_ids(value: object) -> list[str]:
    """Turn ids in a ``source_chat_ids`` value: an id, or lists / dicts of them, nested."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, int):
        return [str(value)]
    if isinstance(value, str):
        return [value.strip()] if value.strip().isdigit() else []
    if isinstance(value, list):
        return [i for item in value for i in _flatten_ids(item)]
    if isinstance(value, dict):
        return [i for item in value.values() for i in _flatten_ids(item)]
    return []


def _beam_questions(
    src: _Source,
    probing: object,
    conv_id: str,
    by_raw: Mapping[str, list[str]],
    session_of: Mapping[str, str],
) -> list[Question]:
    if probing is None:
        return []
    if isinstance(probing, str):
        # The Hugging Face export stores the questions as a Python literal string.
        try:
            # Cleaned again: the literal's own escapes can spell a lone surrogate.
            probing = clean_text(ast.literal_eval(probing))
        except (ValueError, SyntaxError) as exc:
            raise src.error("probing_questions", f"unparseable literal: {exc}") from exc
    if not isinstance(probing, dict):
        raise src.error("probing_questions", f"expected an object, got {type(probing).__name__}")
    questions: list[Question] = []
    for ability, items in probing.items():
        if not isinstance(items, list):
            raise src.error(f"ability {ability!r}", "expected a list of questions")
        for index, item in enumerate(items):
            at = f"ability {ability!r}, question #{index}"
            text = src.get(item, "question", str, at)
            assert isinstance(item, dict)
            answer = next((item[key] for key in BEAM_ANSWER_KEYS if item.get(key)), None)
            turn_ids = {
                turn_id
                for raw in _flatten_ids(item.get("source_chat_ids"))
                for turn_id in by_raw.get(raw, [])
            }
            questions.append(
                Question(
                    id=f"{conv_id}:{ability}:{index}",
                    conversation_id=conv_id,
                    question=text,
                    answer=_text(answer),
                    category=str(ability),
                    question_date=None,
                    evidence_turn_ids=turn_ids,
                    evidence_session_ids={session_of[turn_id] for turn_id in turn_ids},
                    abstention=ability == "abstention",
                )
            )
    return questions
