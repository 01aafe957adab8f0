"""Which evidence a question can be scored on: the turns the service was actually sent.

A turn the bench never sends (empty text, skipped at ingest) cannot be retrieved, so a question
citing it could never reach recall_all; such turns leave the question's evidence. A question
(not an abstention) left with no evidence turn or no evidence session, because its evidence
was empty, named no turn of the conversation or only unsent turns, has nothing to retrieve:
its recall_all would be vacuously 1 and its recall_any and NDCG 0, so the retrieval
aggregates leave it out (:func:`scored`) and the report lists it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tests.bench.loaders import Conversation, Question


@dataclass(frozen=True)
class SentEvidence:
    question: Question  # its evidence cut to what the service holds
    dropped: list[str]  # evidence turn ids that were never sent


def sent_evidence(
    question: Question, conversation: Conversation, sent: Collection[str]
) -> SentEvidence:
    """``question`` with evidence turns limited to ``sent`` (turn ids stored as messages) and
    evidence sessions to those holding a sent turn; a session cited only through unsent turns
    leaves too, since none of its evidence was sent."""
    session_of = conversation.session_of()
    turns = {t for t in question.evidence_turn_ids if t in sent}
    dropped = sorted(question.evidence_turn_ids - turns)
    held = {session_of[t] for t in sent if t in session_of}
    orphaned = {session_of[t] for t in dropped} - {session_of[t] for t in turns}
    sessions = (question.evidence_session_ids & held) - orphaned
    cut = dataclasses.replace(question, evidence_turn_ids=turns, evidence_session_ids=sessions)
    return SentEvidence(cut, dropped)


def scored(record: Mapping[str, Any]) -> bool:
    """Whether a per-question record counts in the retrieval aggregates: not an abstention,
    and with evidence at both levels (else its metrics are vacuous)."""
    if record.get("abstention"):
        return False
    return bool(record.get("evidence_turns")) and bool(record.get("evidence_sessions"))


def unscored_ids(records: Iterable[Mapping[str, Any]]) -> list[str]:
    """Ids of the non-abstention questions left out of the retrieval aggregates."""
    return [str(r["question_id"]) for r in records if not r.get("abstention") and not scored(r)]
