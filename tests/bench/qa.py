"""Question answering: readers, the full-context baseline, and each benchmark's judge.

Readers (one per run, ``--reader``):

- ``dialectic``: GraphQL ``chat(workspace, peer, query, target, reasoningLevel)``; the answer
  is the service's own.
- ``context``: GraphQL ``context(workspace, tokens, session, peerTarget, searchQuery)`` (with
  ``peerPerspective`` = the agent when it reads another peer); the bench's LLM answers from
  that blob alone.

The full-context baseline gives the same LLM the whole conversation in one prompt.

Judges follow each benchmark's protocol, in our own words (prompts are pure functions below):

- LongMemEval: a binary yes/no judge whose instructions depend on the question type
  (temporal-reasoning tolerates off-by-one day counts, knowledge-update accepts an answer that
  also mentions the old value as long as the updated one is given, single-session-preference
  grades against a rubric of the user's preferences, abstention questions are correct when the
  answer says the information is not available).
- LoCoMo: a binary judge that is generous about wording and date formats; adversarial
  questions (category 5) are correct when the answer declines instead of giving the trap.
- BEAM: rubric judging: every rubric item gets 0, 0.5 or 1; the question's score is the mean.

Roles: the reader LLM runs as ``bench-reader`` and the judge as ``bench-judge`` (served by the
default model unless configured), so a scripted LLM can answer each separately in tests.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, Field, field_validator

from reasoners.llm.interface import LLM, ChatMessage, system, user
from tests.bench.ingest import Api, GraphQLError, Ingested
from tests.bench.loaders import (
    BEAM_ANSWER_KEYS,
    LOCOMO_CATEGORIES,
    Conversation,
    Question,
    beam_chat_path,
    beam_conversation_id,
    clean_text,
    read_clean_json,
)

READER_ROLE = "bench-reader"
JUDGE_ROLE = "bench-judge"
FULL_CONTEXT = "full-context"


# -- who asks ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Perspective:
    """Which peer asks (the agent) and about whom, for the readers."""

    agent: str  # dataset speaker name
    target: str | None  # dataset speaker name; None: the agent's own self-model


def perspective(dataset: str, conversation: Conversation, question: Question) -> Perspective:
    """LongMemEval and BEAM: the assistant asks about its user (the app's point of view).
    That view holds what the user said; what the assistant itself said (the evidence of
    LongMemEval's single-session-assistant questions) is in the assistant's self-model, which
    the dialectic does not read when asked about the user.

    LoCoMo has no assistant: two people talk, and questions name one of them. The named speaker
    answers from its self-model (the facts it stated), which is where an app built on the
    service would look; with no name in the question, the first speaker does.
    """
    speakers = list(conversation.speakers)
    if dataset in ("longmemeval", "beam") and {"user", "assistant"} <= set(speakers):
        return Perspective("assistant", "user")
    text = question.question.casefold()
    for speaker in speakers:
        if speaker.casefold() in text:
            return Perspective(speaker, None)
    return Perspective(speakers[0] if speakers else "user", None)


# -- prompts (pure) ------------------------------------------------------------------------


def render_conversation(conversation: Conversation) -> str:
    """The whole conversation, session by session with dates, as the baseline reads it."""
    blocks: list[str] = []
    for index, session in enumerate(conversation.sessions, start=1):
        lines = [f"### Session {index} ({session.date or 'date unknown'})"]
        lines += [f"{turn.speaker}: {turn.content}" for turn in session.turns]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def reader_messages(question: Question, material: str, what: str) -> list[ChatMessage]:
    """Answer ``question`` from ``material`` only (a context blob or the whole conversation)."""
    when = f"The question is asked on {question.question_date}.\n" if question.question_date else ""
    return [
        system(
            f"You answer a question using only the {what} below. Be brief: give the answer "
            "itself, with a date, number or name when the question asks for one. Reason about "
            "dates relative to when the question is asked. If the material does not contain "
            "the answer, say that you don't know."
        ),
        user(f"{what.capitalize()}:\n\n{material}\n\n{when}Question: {question.question}"),
    ]


_LME_RULES: dict[str, str] = {
    "default": (
        "Answer yes if the response contains the correct answer, or states something equivalent "
        "to it. If the response gives only part of what the correct answer requires, answer no."
    ),
    "temporal-reasoning": (
        "Answer yes if the response contains the correct answer or something equivalent to it. "
        "If it gives only part of what is required, answer no. Do not penalise an off-by-one "
        "error in a count of days, weeks or months (18 days where 19 is expected is correct)."
    ),
    "knowledge-update": (
        "Answer yes if the response contains the correct answer or something equivalent to it. "
        "A response that also mentions earlier, outdated information is still correct as long "
        "as it gives the updated answer as the answer."
    ),
    "single-session-preference": (
        "The expected answer is a rubric describing what a good, personalised response does. "
        "Answer yes if the response recalls and uses the user's personal information "
        "correctly, as the rubric describes; it need not cover every point of the rubric."
    ),
}


def longmemeval_judge_messages(question: Question, response: str) -> list[ChatMessage]:
    if question.abstention:
        task = (
            "This question cannot be answered from the conversation history. The explanation "
            "says why. Answer yes if the response recognises that the question cannot be "
            "answered (says the information is missing, incomplete or never mentioned), and no "
            "if it answers as if it knew."
        )
        gold = f"Explanation: {question.answer}"
    else:
        task = _LME_RULES.get(question.category, _LME_RULES["default"])
        label = "Rubric" if question.category == "single-session-preference" else "Correct answer"
        gold = f"{label}: {question.answer}"
    return [
        system(
            "You grade a chat assistant's answer about the user's past conversations. "
            f"{task} Reply with JSON: a short reason, then correct: true (yes) or false (no)."
        ),
        user(f"Question: {question.question}\n{gold}\nResponse: {response}"),
    ]


def locomo_judge_messages(question: Question, response: str) -> list[ChatMessage]:
    if question.abstention:
        task = (
            "The question asks about something the conversation never says. The trap answer "
            "is what a model would wrongly claim. Mark the response correct if it declines, "
            "says the information is not mentioned, or otherwise avoids asserting the trap; "
            "mark it wrong if it gives the trap answer or another made-up one."
        )
        gold = f"Trap answer (wrong): {question.answer}"
    else:
        task = (
            "Be generous about wording: the response is correct if it refers to the same thing "
            "as the gold answer, even when it is longer or phrased differently. For a time, it "
            'is correct if it names the same date or period in any format ("May 7th" and '
            '"7 May" match). It is wrong if it gives a different answer or none.'
        )
        gold = f"Gold answer: {question.answer}"
    category = LOCOMO_CATEGORIES.get(question.category, question.category)
    return [
        system(
            "You grade an answer to a question about a long conversation between two people "
            f"(question type: {category}). {task} Reply with JSON: a short reason, then "
            "correct: true or false."
        ),
        user(f"Question: {question.question}\n{gold}\nResponse: {response}"),
    ]


def beam_judge_messages(
    question: Question, response: str, rubric: Sequence[str]
) -> list[ChatMessage]:
    items = "\n".join(f"{i}. {item}" for i, item in enumerate(rubric, start=1))
    return [
        system(
            "You grade a chat assistant's response against a rubric. Score every rubric item: "
            "1 if the response fully satisfies it, 0.5 if it partly does, 0 if it does not. "
            "Judge meaning, not wording. Reply with JSON: scores, one number per rubric item "
            "in order, and a short reason."
        ),
        user(
            f"Question ({question.category}): {question.question}\n"
            f"Rubric:\n{items}\nResponse: {response}"
        ),
    ]


class Verdict(BaseModel):
    reason: str = ""
    correct: bool


class RubricScores(BaseModel):
    scores: list[float] = Field(min_length=1)
    reason: str = ""

    @field_validator("scores")
    @classmethod
    def _levels(cls, scores: list[float]) -> list[float]:
        for score in scores:
            if score not in (0.0, 0.5, 1.0):
                raise ValueError(f"every score must be 0, 0.5 or 1, not {score}")
        return scores


# -- judging -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Grade:
    score: float  # 0..1 (binary judges: 0 or 1)
    reason: str = ""
    items: list[float] = field(default_factory=list)  # BEAM: per rubric item


def default_rubric(question: Question) -> list[str]:
    return [f"The response states: {question.answer}"] if question.answer else []


async def judge(
    llm: LLM,
    dataset: str,
    question: Question,
    response: str,
    rubric: Sequence[str] | None = None,
) -> Grade:
    if dataset == "beam":
        items = list(rubric or default_rubric(question))
        if not items:
            raise ValueError(f"{question.id}: no rubric and no answer to grade against")
        result = await llm.structured(
            JUDGE_ROLE, beam_judge_messages(question, response, items), RubricScores
        )
        scores = result.value.scores
        if len(scores) != len(items):
            # A judge that skips items has not graded them; count the missing ones as 0.
            scores = (scores + [0.0] * len(items))[: len(items)]
        return Grade(sum(scores) / len(items), result.value.reason, scores)
    if dataset == "longmemeval":
        messages = longmemeval_judge_messages(question, response)
    elif dataset == "locomo":
        messages = locomo_judge_messages(question, response)
    else:
        raise ValueError(f"no judge for dataset {dataset!r}")
    verdict = (await llm.structured(JUDGE_ROLE, messages, Verdict)).value
    return Grade(1.0 if verdict.correct else 0.0, verdict.reason)


def beam_rubrics(path: str | Path, conversation_id: str | None = None) -> dict[str, list[str]]:
    """Question id -> rubric items of a BEAM conversation (the loader keeps no rubrics).

    Ids are built exactly as ``loaders.load_beam`` builds them: ``<conv>:<ability>:<index>``.
    """
    chat_path = beam_chat_path(path)
    conv_id = conversation_id or beam_conversation_id(chat_path)
    data: Any = read_clean_json(chat_path)
    probing: Any = data.get("probing_questions") if isinstance(data, dict) else None
    if probing is None:
        questions_path = chat_path.parent / "probing_questions" / "probing_questions.json"
        if not questions_path.is_file():
            return {}
        probing = read_clean_json(questions_path)
    if isinstance(probing, str):
        probing = clean_text(ast.literal_eval(probing))
    rubrics: dict[str, list[str]] = {}
    if not isinstance(probing, dict):
        return rubrics
    for ability, items in probing.items():
        if not isinstance(items, list):
            continue
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                continue
            rubric = item.get("rubric")
            if isinstance(rubric, str):
                rubric = [rubric]
            if isinstance(rubric, list) and rubric:
                rubrics[f"{conv_id}:{ability}:{index}"] = [str(r) for r in rubric]
            else:
                answer = next((item[k] for k in BEAM_ANSWER_KEYS if item.get(k)), None)
                if answer:
                    rubrics[f"{conv_id}:{ability}:{index}"] = [f"The response states: {answer}"]
    return rubrics


# -- readers -------------------------------------------------------------------------------


@dataclass(frozen=True)
class QAItem:
    """One question with everything a reader may need."""

    dataset: str
    question: Question
    conversation: Conversation
    ingested: Ingested
    perspective: Perspective


@dataclass(frozen=True)
class Reading:
    answer: str
    cited_turns: list[str] = field(default_factory=list)
    detail: dict[str, Any] = field(default_factory=dict)


class Reader(Protocol):
    name: str

    async def read(self, item: QAItem) -> Reading: ...


class ReaderUnavailable(RuntimeError):
    """The API has no field for this reader (yet): QA is skipped, retrieval still runs."""


CHAT = """
query($w: String!, $peer: String!, $q: String!, $target: String, $level: ReasoningLevel) {
  chat(workspace: $w, peer: $peer, query: $q, target: $target, reasoningLevel: $level) {
    answer mode citations { messages { id } observations { id } }
  }
}"""
CONTEXT = """
query($w: String!, $tokens: Int!, $session: String, $target: String, $q: String) {
  context(workspace: $w, tokens: $tokens, session: $session, peerTarget: $target,
          searchQuery: $q) { text tokensUsed }
}"""
# The same, read from the agent's view of the target (not the target's self-model).
CONTEXT_FROM = """
query($w: String!, $tokens: Int!, $session: String, $target: String, $from: String,
      $q: String) {
  context(workspace: $w, tokens: $tokens, session: $session, peerTarget: $target,
          peerPerspective: $from, searchQuery: $q) { text tokensUsed }
}"""
_REQUIRED_ARGS: dict[str, set[str]] = {
    "chat": {"workspace", "peer", "query", "target", "reasoningLevel"},
    "context": {"workspace", "tokens", "session", "peerTarget", "searchQuery"},
}


async def check_reader_field(api: Api, name: str) -> set[str]:
    """The argument names of ``Query.<name>``; raises :class:`ReaderUnavailable` unless the
    field exists with the arguments the reader needs."""
    roots = await api.root_fields()
    found = roots.get("query", {}).get(name)
    if found is None:
        raise ReaderUnavailable(
            f"the GraphQL schema has no `{name}` query yet, so the `{READER_FIELD_OWNER[name]}` "
            "reader cannot run: QA is skipped (retrieval metrics still run)"
        )
    have = {arg["name"] for arg in found.get("args") or []}
    missing = _REQUIRED_ARGS[name] - have
    if missing:
        raise ReaderUnavailable(
            f"`{name}` takes no {', '.join(sorted(missing))} argument(s) (it has "
            f"{', '.join(sorted(have))}): QA is skipped (retrieval metrics still run)"
        )
    return have


READER_FIELD_OWNER = {"chat": "dialectic", "context": "context"}


class DialecticReader:
    name = "dialectic"

    def __init__(self, api: Api, level: str = "low") -> None:
        self.api = api
        self.level = level.upper()  # the ReasoningLevel enum's names

    async def read(self, item: QAItem) -> Reading:
        peers = item.ingested.peer_of
        target = item.perspective.target
        data = await self.api.call(
            CHAT,
            {
                "w": item.ingested.workspace,
                "peer": peers[item.perspective.agent],
                "q": question_text(item.question),
                "target": peers[target] if target is not None else None,
                "level": self.level,
            },
        )
        chat = data["chat"]
        to_turn = item.ingested.message_to_turn
        cited = [to_turn[m["id"]] for m in chat["citations"]["messages"] if m["id"] in to_turn]
        return Reading(
            chat["answer"],
            cited,
            {"mode": chat["mode"], "cited_observations": len(chat["citations"]["observations"])},
        )


class ContextReader:
    name = "context"

    def __init__(self, api: Api, llm: LLM, tokens: int, *, with_perspective: bool) -> None:
        self.api = api
        self.llm = llm
        self.tokens = tokens
        self.with_perspective = with_perspective

    async def read(self, item: QAItem) -> Reading:
        peers = item.ingested.peer_of
        view = item.perspective
        last = item.conversation.sessions[-1].id if item.conversation.sessions else None
        variables: dict[str, Any] = {
            "w": item.ingested.workspace,
            "tokens": self.tokens,
            # The most recent session: where the app would be talking when asked.
            "session": item.ingested.session_of[last] if last is not None else None,
            "target": peers[view.target or view.agent],
            "q": question_text(item.question),
        }
        document = CONTEXT
        if view.target is not None and view.target != view.agent:
            if not self.with_perspective:
                raise ReaderUnavailable(
                    "`context` has no peerPerspective argument, so it cannot read the "
                    f"{view.agent}'s view of the {view.target}"
                )
            document = CONTEXT_FROM
            variables["from"] = peers[view.agent]
        data = await self.api.call(document, variables)
        blob = data["context"]
        turn = await self.llm.chat(
            READER_ROLE, reader_messages(item.question, blob["text"], "memory context")
        )
        return Reading(
            (turn.content or "").strip(),
            detail={
                "context_tokens": blob["tokensUsed"],
                "reader_tokens_in": turn.usage.input_tokens,
            },
        )


class FullContextReader:
    name = FULL_CONTEXT

    def __init__(self, llm: LLM) -> None:
        self.llm = llm

    async def read(self, item: QAItem) -> Reading:
        material = render_conversation(item.conversation)
        turn = await self.llm.chat(
            READER_ROLE, reader_messages(item.question, material, "conversation history")
        )
        return Reading(
            (turn.content or "").strip(),
            detail={"chars": len(material), "reader_tokens_in": turn.usage.input_tokens},
        )


def question_text(question: Question) -> str:
    # The API caps queries at 2,000 characters; benchmark questions are far shorter.
    return question.question[:2000]


async def answer_and_grade(
    reader: Reader,
    judge_llm: LLM,
    item: QAItem,
    rubric: Sequence[str] | None = None,
) -> dict[str, Any]:
    """One system on one question, as a JSON-ready record (errors are recorded, not raised,
    except a missing reader field, which stops QA for the whole run)."""
    try:
        reading = await reader.read(item)
    except ReaderUnavailable:
        raise
    except GraphQLError as exc:
        if "Cannot query field" in str(exc) or "Unknown argument" in str(exc):
            raise ReaderUnavailable(f"{reader.name}: {exc}") from exc
        return {"error": f"reader: {exc}"}
    except Exception as exc:  # one failed answer (an LLM timeout...) loses one question
        return {"error": f"reader: {type(exc).__name__}: {exc}"}
    evidence = item.question.evidence_turn_ids
    record: dict[str, Any] = {"answer": reading.answer, **reading.detail}
    if reading.cited_turns:
        record["cited_turns"] = reading.cited_turns
        record["cited_evidence"] = len(set(reading.cited_turns) & set(evidence))
    try:
        grade = await judge(judge_llm, item.dataset, item.question, reading.answer, rubric)
    except Exception as exc:  # a judge failure loses one grade, not the run
        record["error"] = f"judge: {type(exc).__name__}: {exc}"
        return record
    record["score"] = grade.score
    record["judge_reason"] = grade.reason
    if grade.items:
        record["rubric_scores"] = grade.items
    return record


def rubric_for(rubrics: Mapping[str, list[str]], question: Question) -> list[str] | None:
    return rubrics.get(question.id)
