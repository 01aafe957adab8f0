"""The dialectic's pure parts: levels, prompts, citation parsing, the ledger, argument checks."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import pytest

from graph.db import Database
from graph.errors import InvalidInput
from graph.records import MessageRecord, ObservationRecord, Replaced, SourceSpan
from graph.validation import check_query
from reasoners.dialectic.citations import (
    cite_all,
    known_markers,
    parse_citations,
    resolve_citations,
)
from reasoners.dialectic.evidence import (
    SPAN_LEAD,
    SPAN_MATCH,
    SPAN_SOURCE,
    Evidence,
    ObservationItem,
    View,
    matched_span,
)
from reasoners.dialectic.levels import DEFAULT_LEVELS, LEVEL_NAMES, ReasoningLevels
from reasoners.dialectic.prompt import (
    DIALECTIC_SYSTEM_PROMPT,
    EVIDENCE_CHARS,
    dialectic_messages,
    extractive_text,
    fit_evidence,
    render_evidence,
)
from reasoners.dialectic.tool_results import MessageItem
from reasoners.dialectic.tool_specs import TOOL_SPECS
from reasoners.dialectic.tools import Toolbox
from reasoners.embeddings.model import Embedder
from reasoners.llm.interface import ToolCall

pytestmark = pytest.mark.unit

T0 = datetime(2024, 5, 3, 14, 3, tzinfo=UTC)
SCOPE = View("w", "bob", "alice")


def message(mid: str, content: str, peer: str = "alice") -> MessageRecord:
    return MessageRecord(mid, "w", "s1", peer, content, None, {}, T0, 3, 10)


def observation(oid: str, content: str, level: str = "explicit", **extra: Any) -> ObservationRecord:
    fields: dict[str, Any] = {
        "id": oid,
        "workspace": "w",
        "observer": "bob",
        "observed": "alice",
        "level": level,
        "content": content,
        "created_at": T0,
        "valid_at": T0,
        "session": "s1",
        "confidence": None,
        "pattern_type": None,
        "times_derived": 1,
        "stale": False,
        "stale_reason": None,
        "facets": [],
        "superseded_at": None,
        "deleted_at": None,
    }
    return ObservationRecord(**(fields | extra))


LISBON = message("m-1", "Big news: I moved to Lisbon for a robotics job.")
LIVES = ObservationItem(
    observation("o-1", "alice lives in Lisbon."), [], [SourceSpan(LISBON, "I moved to Lisbon")]
)
CELLO_TURN = message("m-2", "I play the cello.")


# --- levels -----------------------------------------------------------------------------------


def test_default_levels_budgets_and_roles() -> None:
    budgets = {name: DEFAULT_LEVELS.get(name).max_tool_iterations for name in LEVEL_NAMES}
    assert budgets == {"minimal": 0, "low": 2, "medium": 4, "high": 6, "max": 10}
    # Each level is served by its own LLM role, so each can have its own model setting.
    assert DEFAULT_LEVELS.get("high").role == "dialectic-high"


def test_levels_can_be_configured_and_are_checked() -> None:
    levels = ReasoningLevels.parse("low=3, max=12")
    assert levels.get("low").max_tool_iterations == 3
    assert levels.get("max").max_tool_iterations == 12
    assert levels.get("medium").max_tool_iterations == 4  # untouched levels keep the default
    with pytest.raises(InvalidInput, match="unknown reasoning level"):
        ReasoningLevels.parse("turbo=3")
    with pytest.raises(InvalidInput, match="<level>=<iterations>"):
        ReasoningLevels.parse("low=lots")
    with pytest.raises(InvalidInput, match=r"not in 0\.\.50"):
        ReasoningLevels({"low": 99})
    with pytest.raises(InvalidInput, match="not one of"):
        ReasoningLevels({"low": 1}).get("high")


def test_query_is_checked() -> None:
    assert check_query("  where does alice live?  ") == "where does alice live?"
    with pytest.raises(InvalidInput, match="empty"):
        check_query("   ")
    with pytest.raises(InvalidInput, match="2001 characters; the limit is 2000"):
        check_query("x" * 2001)


# --- prompts ----------------------------------------------------------------------------------


def test_system_prompt_states_the_retrieval_policy() -> None:
    policy = DIALECTIC_SYSTEM_PROMPT.lower()
    for phrase in (
        "provenance",  # follow derived beliefs to their premises
        "cite that concrete evidence",
        "most recent supported value",
        "do not choose a side",  # conflicts are presented
        "abstain",
        "[obs:<id>]",
        "[msg:<id>]",
    ):
        assert phrase in policy, phrase


def test_messages_carry_the_question_the_view_and_the_prefetched_ids() -> None:
    messages = dialectic_messages(
        View("w", "bob", "alice", "s1"),
        "Where does alice live?",
        today=T0,
        card=["alice is a nurse"],
        prefetched=[LIVES],
        turns=[MessageItem(CELLO_TURN, CELLO_TURN.content)],
        tools=True,
    )
    assert messages[0] == {"role": "system", "content": DIALECTIC_SYSTEM_PROMPT}
    text = messages[1]["content"]
    assert text is not None
    for expected in (
        "Today is 2024-05-03.",
        "bob's view of alice",
        "session s1",
        "Question: Where does alice live?",
        "- alice is a nurse",
        "[obs:o-1]",
        "[msg:m-1]",
        '"I moved to Lisbon"',
        "Messages that match the question best:\n[msg:m-2]",
        "alice: I play the cello.",
    ):
        assert expected in text, expected
    assert "No tools" not in text
    # The system prompt is the same for every question (providers can cache it).
    other = dialectic_messages(
        SCOPE, "Pets?", today=T0, card=[], prefetched=[], turns=[], tools=False
    )
    assert other[0] == messages[0]
    assert "No tools are available" in str(other[1]["content"])
    assert "No observations in this memory" in str(other[1]["content"])
    assert "Messages that match" not in str(other[1]["content"])


def test_the_opening_evidence_stays_within_its_budget() -> None:
    """Eight beliefs over six facts, each with ten quoted sources, wrote 250,000 characters
    into the opening prompt: past many models' context, the question failed."""
    said = [message(f"m-{i}", "I bake sourdough every morning. " * 12) for i in range(10)]
    sources = [SourceSpan(m, m.content) for m in said]

    def fact(i: int) -> ObservationItem:
        return ObservationItem(observation(f"f-{i}", f"alice bakes bread {i}."), [], sources)

    beliefs = [
        ObservationItem(
            observation(f"b-{i}", f"alice likes baking {i}.", "inductive"),
            [f"f-{j}" for j in range(6)],
            [],
            premises=tuple(fact(j) for j in range(6)),
        )
        for i in range(8)
    ]
    whole = "\n".join(b.render() for b in beliefs)
    assert len(whole) > 4 * EVIDENCE_CHARS  # what it wrote before
    shown = render_evidence(fit_evidence(beliefs), tools=True)
    assert len(shown) <= EVIDENCE_CHARS + 100
    # Every belief is named; those past the budget with their premises' ids, not their text.
    assert all(f"[obs:b-{i}]" in shown for i in range(8))
    assert "premises: [obs:f-0], [obs:f-1]" in shown
    # Past even that, a count of what was left out (and where to read it, given tools).
    tight = fit_evidence(beliefs, limit=300)
    assert len(tight.items) < len(beliefs) and tight.left_out == len(beliefs) - len(tight.items)
    said = render_evidence(tight, tools=True)
    assert said.endswith("more left out for length: search_observations reads them)")
    assert render_evidence(tight, tools=False).endswith("more left out for length)")
    assert render_evidence(fit_evidence([LIVES]), tools=True) == LIVES.render()


def test_self_model_is_named_as_such() -> None:
    messages = dialectic_messages(
        View("w", "alice", "alice"),
        "Who am I?",
        today=T0,
        card=[],
        prefetched=[],
        turns=[],
        tools=True,
    )
    assert "alice's own self-model" in str(messages[1]["content"])


def test_extractive_text_says_no_model_answered() -> None:
    turn = MessageItem(CELLO_TURN, CELLO_TURN.content)
    text = extractive_text(SCOPE, [LIVES], [turn])
    assert text.startswith("No language model is configured; here is the evidence")
    assert "no model answered" in text
    assert "[obs:o-1]" in text and "[msg:m-1]" in text
    assert text.index("[obs:o-1]") < text.index("match it best") < text.index("[msg:m-2]")
    # Turns alone still answer: a fact said but not made an observation.
    turns_only = extractive_text(SCOPE, [], [turn])
    assert "no observations in bob's view of alice" in turns_only and "[msg:m-2]" in turns_only
    empty = extractive_text(SCOPE, [], [])
    assert "no model answered" in empty and "holds no observations or messages" in empty


def test_rendering_flags_superseded_and_stale_beliefs() -> None:
    old = ObservationItem(
        observation("o-2", "alice lives in Porto.", superseded_at=T0, stale=True),
        premise_ids=["o-0"],
    )
    text = old.render()
    assert "SUPERSEDED on 2024-05-03" in text and "STALE" in text and "premises: [obs:o-0]" in text


def test_a_knowledge_update_shows_the_old_belief_current_until_the_new_one_was_stated() -> None:
    """It showed the day the update was written: a dream today over last year's messages told
    the model the old number held until today."""
    stated = T0 + timedelta(days=30)
    written = T0 + timedelta(days=400)
    new = ObservationItem(
        observation("o-3", "alice lives in Berlin.", valid_at=stated),
        replaces=(Replaced("o-2", "alice lives in Porto.", written),),
    )
    assert f"(current until {stated.date().isoformat()}): " in new.render()
    undated = replace(new, observation=observation("o-3", "alice lives in Berlin.", valid_at=None))
    assert f"(current until {written.date().isoformat()}): " in undated.render()


def test_a_superseded_belief_says_it_ended_when_its_replacement_was_stated() -> None:
    """Its own line said "SUPERSEDED on" the day the update was written (today, for a dream
    over last year's messages), while its replacement said it held until last year."""
    stated = T0 + timedelta(days=30)
    written = T0 + timedelta(days=400)
    old = ObservationItem(
        observation("o-2", "alice lives in Porto.", superseded_at=written),
        replaced_by=("o-3",),
        replaced_on=stated,
    )
    assert f"SUPERSEDED on {stated.date().isoformat()}" in old.render()
    # A replacement stated after the update was written (imported later) does not move it on.
    later = replace(old, replaced_on=written + timedelta(days=9))
    assert f"SUPERSEDED on {written.date().isoformat()}" in later.render()
    assert f"SUPERSEDED on {written.date().isoformat()}" in replace(old, replaced_on=None).render()


# --- citations --------------------------------------------------------------------------------


def test_citation_markers_are_parsed_in_order_without_repeats() -> None:
    text = (
        "alice lives in Lisbon [obs:o-1][msg:m-1]. She moved (obs:o-2) "
        "[obs:o-1, msg:m-9]. Not a marker: jobs:o-3, msg:"
    )
    assert parse_citations(text) == [
        ("obs", "o-1"),
        ("msg", "m-1"),
        ("obs", "o-2"),
        ("msg", "m-9"),
    ]


def test_only_citations_in_the_ledger_count() -> None:
    evidence = Evidence()
    evidence.add_item(LIVES)
    cited = resolve_citations(
        [("obs", "o-1"), ("obs", "o-404"), ("msg", "m-1"), ("msg", "m-404")], evidence
    )
    assert [o.id for o in cited.observations] == ["o-1"]
    assert [(m.id, m.span) for m in cited.messages] == [("m-1", "I moved to Lisbon")]


def test_the_ledger_keeps_the_most_precise_span() -> None:
    evidence = Evidence()
    evidence.add_message(LISBON, "Berlin", SPAN_MATCH)  # not in the message: the lead instead
    assert evidence.messages["m-1"].span == LISBON.content[:200]
    assert evidence.messages["m-1"].strength == SPAN_LEAD
    evidence.add_message(LISBON, "Lisbon", SPAN_MATCH)
    assert evidence.messages["m-1"].span == "Lisbon"
    # A stored span that differs in case or spacing (the grounding check allows that) is cited
    # as the message's own words.
    evidence.add_message(LISBON, "i moved  to LISBON", SPAN_SOURCE)
    evidence.add_message(LISBON, "robotics", SPAN_MATCH)  # weaker than the source span
    assert evidence.messages["m-1"].span == "I moved to Lisbon"


def test_a_message_two_beliefs_came_from_is_cited_with_each_ones_span() -> None:
    """One message, two beliefs: citing the second cited the message with the first's span
    (the ledger kept one span a message)."""
    said = message("m-7", "I have a dog named Rex. I live in Lisbon.")
    dog = ObservationItem(
        observation("o-dog", "alice has a dog named Rex."),
        sources=[SourceSpan(said, "I have a dog named Rex")],
    )
    home = ObservationItem(
        observation("o-home", "alice lives in Lisbon."),
        sources=[SourceSpan(said, "I live in Lisbon")],
    )
    evidence = Evidence()
    evidence.add_item(dog)
    evidence.add_item(home)
    cited = resolve_citations([("obs", "o-home")], evidence)
    assert [(m.id, m.span) for m in cited.messages] == [("m-7", "I live in Lisbon")]
    cited = resolve_citations([("obs", "o-dog")], evidence)
    assert [(m.id, m.span) for m in cited.messages] == [("m-7", "I have a dog named Rex")]


def test_what_a_tool_recorded_but_did_not_show_cannot_be_cited() -> None:
    """A tool's answer cut at 12,000 characters (or timed out) had recorded every node it
    read: citations brought in nodes the model never saw."""
    evidence = Evidence()
    evidence.add_item(LIVES)  # shown before
    before = evidence.snapshot()
    cello = ObservationItem(
        observation("o-9", "alice plays the cello."), sources=[SourceSpan(CELLO_TURN, "cello")]
    )
    evidence.add_item(cello)
    evidence.forget_unshown(before, "[obs:o-1] ... (output cut here)")
    assert list(evidence.observations) == ["o-1"] and "m-2" not in evidence.messages
    cited = resolve_citations([("obs", "o-9"), ("msg", "m-2")], evidence)
    assert (cited.observations, cited.messages) == ([], [])
    # A message shown before keeps the span it had then, whatever the unshown part upgraded.
    evidence.add_message(CELLO_TURN, "cello", SPAN_MATCH)  # a grep showed it
    before = evidence.snapshot()
    evidence.add_message(CELLO_TURN, "I play the cello", SPAN_SOURCE)
    assert evidence.messages["m-2"].span == "I play the cello"
    evidence.forget_unshown(before, "nothing shown")
    assert evidence.messages["m-2"].span == "cello"
    del evidence.messages["m-2"]
    # Shown, it stays.
    before = evidence.snapshot()
    evidence.add_item(cello)
    evidence.forget_unshown(before, cello.render())
    assert "o-9" in evidence.observations and "m-2" in evidence.messages


def test_cite_all_cites_each_item_and_its_sources() -> None:
    evidence = Evidence()
    evidence.add_item(LIVES)
    evidence.add_message(CELLO_TURN, CELLO_TURN.content, SPAN_LEAD)
    cited = cite_all([LIVES], [MessageItem(CELLO_TURN, CELLO_TURN.content)], evidence)
    assert [o.id for o in cited.observations] == ["o-1"]
    assert [m.id for m in cited.messages] == ["m-1", "m-2"]


def test_matched_span_is_the_original_text() -> None:
    assert matched_span("I moved to LISBON.", "lisbon") == "LISBON"
    # "İ" lowercases to two characters, so positions shift; the match is still verbatim.
    assert matched_span("İstanbul then Lisbon", "lisbon") == "Lisbon"


# --- tool specs and argument checks (no database is reached) ----------------------------------


def test_tool_specs_are_json_schema_objects() -> None:
    names = [spec.name for spec in TOOL_SPECS]
    assert names == [
        "search_observations",
        "search_messages",
        "grep_messages",
        "messages_by_date",
        "message_context",
        "provenance",
        "peer_card",
        "search_files",
        "list_sub_peers",
        "list_parent_peers",
    ]
    for spec in TOOL_SPECS:
        assert spec.parameters["type"] == "object"
        assert spec.parameters.get("additionalProperties") is False
    search = TOOL_SPECS[0].parameters
    assert search["required"] == ["query"]
    assert search["properties"]["limit"]["maximum"] == 20


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (ToolCall("1", "drop_database", {}), "there is no tool 'drop_database'"),
        (ToolCall("2", "grep_messages", {}, "arguments are not valid JSON"), "not valid JSON"),
        (ToolCall("3", "grep_messages", {"text": "a"}), "text: String should have at least 2"),
        (ToolCall("4", "grep_messages", {"text": "cello", "limt": 3}), "limt: Extra inputs"),
        (ToolCall("5", "search_observations", {"query": "x", "limit": 500}), "limit"),
        (
            ToolCall("6", "search_observations", {"query": "x", "levels": ["rumour"]}),
            "levels.0",
        ),
        (
            ToolCall("7", "messages_by_date", {"since": "2024-06-01", "until": "2024-05-01"}),
            "since must be before until",
        ),
        (ToolCall("8", "provenance", {"observation_id": "o-1", "depth": 0}), "depth"),
        (ToolCall("9", "search_messages", {"query": ""}), "query: String should have at least 1"),
        (
            ToolCall("10", "search_messages", {"query": "x" * 501}),
            "query: String should have at most",
        ),
        (ToolCall("11", "search_messages", {"query": "cello", "limit": 21}), "limit"),
        (
            ToolCall("12", "messages_by_date", {"since": "0001-01-01T00:00:00+14:00"}),
            "outside the years 1 to 9999",
        ),
        (
            ToolCall("13", "messages_by_date", {"until": "9999-12-31T23:59:00-05:00"}),
            "outside the years 1 to 9999",
        ),
    ],
)
async def test_bad_arguments_become_an_error_for_the_model(call: ToolCall, expected: str) -> None:
    # No database and no embedder: a refused call must not reach either.
    tools = Toolbox(cast(Database, None), cast(Embedder, None), SCOPE)
    text = await tools.dispatch(call)
    assert text.startswith("Error:"), text
    assert expected in text, text


def test_a_views_session_filters_combine_with_its_session() -> None:
    assert View("w", "bob", "alice").sessions is None
    assert View("w", "bob", "alice", "s1").sessions == ["s1"]
    assert View("w", "bob", "alice", session_ids=("s1", "s2")).sessions == ["s1", "s2"]
    assert View("w", "bob", "alice", "s1", session_ids=("s1", "s2")).sessions == ["s1"]
    # A session outside the listed ones leaves nothing to read.
    assert View("w", "bob", "alice", "s3", session_ids=("s1",)).sessions == []


def test_an_aggregated_views_pairs_follow_whose_view_it_is() -> None:
    assert View("w", "bob", "alice", aggregated=("alice-dm",)).pairs == [
        ("bob", "alice"),
        ("bob", "alice-dm"),
    ]
    # A peer's view of itself covers each sub-peer's view of itself.
    assert View("w", "alice", "alice", aggregated=("alice-dm",)).pairs == [
        ("alice", "alice"),
        ("alice-dm", "alice-dm"),
    ]


def test_the_apps_guidance_is_in_the_question_not_the_system_prompt() -> None:
    plain, guided = (
        dialectic_messages(
            SCOPE, "Pets?", today=T0, card=[], prefetched=[], turns=[], tools=True, guidance=g
        )
        for g in (None, "Answer in French.")
    )
    assert guided[0] == plain[0]  # the system prompt stays cacheable
    asked = str(guided[1]["content"])
    assert "The app's instructions for answering:\n    Answer in French." in asked
    assert "instructions" not in str(plain[1]["content"])


async def test_without_cards_the_card_tool_is_neither_offered_nor_run() -> None:
    tools = Toolbox(cast(Database, None), cast(Embedder, None), SCOPE, cards=False)
    assert "peer_card" not in [spec.name for spec in tools.specs]
    assert len(tools.specs) == len(TOOL_SPECS) - 1
    text = await tools.dispatch(ToolCall("1", "peer_card", {}))
    assert text.startswith("Error: there is no tool 'peer_card'"), text


def test_markers_of_nodes_no_tool_showed_leave_the_answer_text() -> None:
    """They stayed in the text, read as citations, though the citations left them out."""
    evidence = Evidence()
    evidence.add_item(LIVES)
    made_up = "00000000-0000-0000-0000-000000000000"
    assert known_markers(f"Lisbon [obs:o-1][obs:{made_up}].", evidence) == "Lisbon [obs:o-1]."
    assert known_markers("Lisbon [obs:o-1, obs:X, msg:m-1].", evidence) == (
        "Lisbon [obs:o-1, msg:m-1]."
    )
    assert known_markers("Lisbon (obs:X) and (msg:m-404).", evidence) == "Lisbon and."
    assert known_markers(f"See obs:{made_up} now.", evidence) == "See now."
    # Doubled brackets go whole; markers among words go, the words stay.
    assert known_markers("x [[obs:dead-beef]] y", evidence) == "x y"
    assert known_markers("x [[obs:o-1]] y", evidence) == "x [[obs:o-1]] y"
    assert known_markers("x (obs:dead-beef; per msg:1234-5) y", evidence) == "x (per) y"
    assert known_markers("x (obs:o-1; per msg:m-1) y", evidence) == "x (obs:o-1; per msg:m-1) y"
    assert known_markers("x (obs:dead-1: 2023-01-01) y", evidence) == "x (2023-01-01) y"
    # A bracket of the text around one keeps its side: only as many close as opened.
    assert known_markers("Paris (as she said [obs:dead-1]).", evidence) == "Paris (as she said)."
    assert known_markers("Paris [see [obs:dead-1]] ok", evidence) == "Paris [see] ok"
    assert known_markers("Paris ((obs:dead-1) and more).", evidence) == "Paris ( and more)."
    assert known_markers("x [[obs:dead-1] y", evidence) == "x [ y"
    # The model's own words stay: a bracket of them, and prose that reads like a marker.
    for prose in (
        "Lisbon (per her note) [see page 3].",
        "The obs: field and e.g. msg:hello world.",
        "x [obs:X, and more] (according to obs:X).",
    ):
        assert known_markers(prose, evidence) == prose
