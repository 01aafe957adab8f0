"""Reconciliation verdicts without an LLM, the LLM's verdicts with their fallback, which jobs
a purge removes, and where a merge moves each representation."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from graph.keys import Representation, scope_key
from graph.repo.reconciliation import Premise, Source, StaleBelief, Verdict
from reasoners.dreamer.prompt import GUIDANCE_HEADING
from reasoners.dreamer.reconcile import RECONCILE_CHUNK, ROLE, judge, unlinking
from reasoners.dreamer.reconcile_rules import (
    BeliefVerdict,
    ReconcileOutput,
    llm_verdicts,
    order,
    reconcile_messages,
    rule_verdicts,
)
from reasoners.llm.interface import ChatMessage
from reasoners.peers.merges import pair_repeats, scope_moves
from reasoners.peers.purge_order import chunks, dependents_first, jobs_to_purge
from tests.fakes.llm import ScriptedLLM


def fact(id_: str, *sources: Source) -> StaleBelief:
    return StaleBelief(id_, "explicit", f"fact {id_}", "its source message was edited", (), sources)


def derived(id_: str, level: str, *premises: Premise) -> StaleBelief:
    return StaleBelief(id_, level, f"belief {id_}", "a premise was corrected", premises, ())


def premise(id_: str, *, current: bool = True, pending: bool = False) -> Premise:
    return Premise(id_, f"content {id_}", "explicit", current, pending)


def actions(verdicts: list[Verdict]) -> dict[str, str]:
    return {v.id: v.action for v in verdicts}


def test_an_explicit_fact_stands_while_a_live_source_still_quotes_it() -> None:
    live = Source("m1", True, "Hello. I live in Rome now.", "I live in Rome")
    edited = Source("m2", True, "I live in Lisbon.", "I live in Rome")
    deleted = Source("m3", False, "I live in Rome.", "I live in Rome")
    verdicts = rule_verdicts(
        [fact("a", live), fact("b", edited), fact("c", deleted), fact("d", edited, live)]
    )
    assert actions(verdicts) == {"a": "keep", "b": "drop", "c": "drop", "d": "keep"}


def test_a_derived_belief_needs_enough_current_premises() -> None:
    verdicts = rule_verdicts(
        [
            derived("d1", "deductive", premise("p", current=False), premise("q")),
            derived("d2", "deductive", premise("p", current=False)),
            derived("i1", "inductive", premise("p", current=False), premise("q"), premise("r")),
            derived("i2", "inductive", premise("p", current=False), premise("q")),
            derived("c1", "contradiction", premise("q"), premise("r", pending=True)),
        ]
    )
    assert actions(verdicts) == {
        "d1": "keep",
        "d2": "drop",
        "i1": "keep",
        "i2": "drop",
        "c1": "drop",  # a premise still waiting for its own verdict does not count
    }


def test_a_kept_induction_in_the_zero_key_words_states_its_counts_as_they_are() -> None:
    """An induction kept after a split moved one of its premises away still said "3 times
    across 3 sessions"."""

    words_of = {
        "a": "Bot reads on Saturdays (stated on 2024-01-06).",
        "b": "Bot reads at weekends (stated on 2024-02-03).",
        "c": "bot reads on weekends (stated on 2024-03-02).",
    }

    def said(id_: str, session: str, current: bool = True) -> Premise:
        when = datetime(2024, 1 + "abc".index(id_), 6, tzinfo=UTC)
        return Premise(id_, words_of[id_], "explicit", current, False, session, valid_at=when)

    words = "A recurring pattern (3 times across 3 sessions): Bot reads on weekends."
    moved = StaleBelief(
        "i", "inductive", words, "a premise moved", (said("a", "s1", False), said("b", "s2"),
        said("c", "s3")), (),
    )  # fmt: skip
    same = StaleBelief("j", "inductive", words, "a premise was corrected",
                       (said("a", "s1"), said("b", "s2"), said("c", "s3")), ())  # fmt: skip
    llm_words = StaleBelief(
        "k", "inductive", "Bot reads on weekends.", "a premise moved",
        (said("a", "s1", False), said("b", "s2"), said("c", "s3")), (),
    )  # fmt: skip
    one_session = StaleBelief(
        "l", "inductive", words, "a premise moved",
        (said("a", "s1", False), said("b", "s2"), said("c", "s2")), (),
    )  # fmt: skip
    by_id = {v.id: v for v in rule_verdicts([moved, same, llm_words, one_session])}
    assert by_id["l"].action == "drop", "a pattern left in one session is no pattern"
    # Told in the words of the latest premise left (the one quoted may be the one that went,
    # its message deleted: its words stayed in a current belief).
    assert by_id["i"] == Verdict(
        "i", "update", "A recurring pattern (2 times across 2 sessions): Bot reads on weekends."
    )
    latest_gone = replace(
        moved, id="m", premises=(said("a", "s1"), said("b", "s2"), said("c", "s3", False))
    )
    [reworded] = rule_verdicts([latest_gone])
    assert reworded.content == (
        "A recurring pattern (2 times across 2 sessions): Bot reads at weekends."
    )
    # Stated last is what counts: a premise first said earlier but repeated since is the latest.
    repeated = replace(said("a", "s1"), stated_last=datetime(2024, 6, 1, tzinfo=UTC))
    by_repeat = replace(latest_gone, id="n", premises=(repeated, *latest_gone.premises[1:]))
    [reworded] = rule_verdicts([by_repeat])
    assert reworded.content == (
        "A recurring pattern (2 times across 2 sessions): Bot reads on Saturdays."
    )
    assert (by_id["j"].action, by_id["k"].action) == ("keep", "keep")


def test_a_chain_is_settled_premises_first_in_one_pass() -> None:
    grounded = fact("f", Source("m", True, "I have a dog.", "I have a dog"))
    lost = fact("g", Source("m2", False, "I have a cat.", "I have a cat"))
    on_f = derived("d1", "deductive", premise("f", current=False, pending=True))
    on_d1 = derived("d2", "deductive", premise("d1", current=False, pending=True))
    on_g = derived("d3", "deductive", premise("g", current=False, pending=True))
    batch = [on_d1, on_g, on_f, lost, grounded]
    assert [b.id for b in order(batch)].index("d1") < [b.id for b in order(batch)].index("d2")
    assert actions(rule_verdicts(batch)) == {
        "f": "keep",
        "g": "drop",
        "d1": "keep",
        "d2": "keep",
        "d3": "drop",
    }


def test_llm_verdicts_map_to_writes_and_fall_back_to_the_rules() -> None:
    beliefs = [
        derived("a", "deductive", replace(premise("p", current=False), replaced_by="p2")),
        derived("b", "deductive", premise("q")),
        derived("c", "deductive", premise("q")),
        derived("d", "deductive", premise("p", current=False)),
        derived("e", "deductive", premise("q")),
    ]
    answer = ReconcileOutput(
        verdicts=[
            BeliefVerdict(id="a", action="update", content=" alice lives in Germany. "),
            BeliefVerdict(id="b", action="tombstone"),
            BeliefVerdict(id="c", action="confirm"),
            BeliefVerdict(id="d", action="update", content="  "),  # no text: the rule decides
            BeliefVerdict(id="zzz", action="confirm"),  # not asked about: ignored
        ]
    )
    verdicts = {
        v.id: v for v in llm_verdicts(beliefs, answer, {"alice lives in Germany.": "key-a"})
    }
    assert verdicts["a"] == Verdict(
        "a", "update", content="alice lives in Germany.", content_key="key-a", relink=True
    )
    assert verdicts["b"] == Verdict("b", "drop")
    assert verdicts["c"] == Verdict("c", "keep", relink=True)
    assert verdicts["d"] == Verdict("d", "drop")
    assert verdicts["e"] == Verdict("e", "keep")  # skipped by the model, grounded by q
    assert set(verdicts) == {"a", "b", "c", "d", "e"}


def test_a_derived_belief_the_model_keeps_still_needs_its_premises() -> None:
    """The model confirmed a deduction whose only premise was deleted, and one on a premise it
    tombstoned in the same pass: both were written current on nothing (the review). A premise
    a correction replaced still grounds one, through the correction it is relinked to."""
    gone = derived("d", "deductive", replace(premise("p", current=False), stands=False))
    q = derived("q", "deductive", premise("r"))
    on_q = derived("e", "deductive", premise("q", pending=True))
    corrected = derived("c", "deductive", replace(premise("s", current=False), replaced_by="s2"))
    pattern = derived(
        "i", "inductive", replace(premise("t", current=False), replaced_by="t2"), premise("u")
    )
    answer = ReconcileOutput(
        verdicts=[
            BeliefVerdict(id="d", action="confirm"),
            BeliefVerdict(id="q", action="tombstone"),
            BeliefVerdict(id="e", action="update", content="reworded"),
            BeliefVerdict(id="c", action="confirm"),
            BeliefVerdict(id="i", action="confirm"),
        ]
    )
    assert actions(
        llm_verdicts([on_q, gone, q, corrected, pattern], answer, {"reworded": "k"})
    ) == {
        "d": "drop",
        "q": "drop",
        "e": "drop",
        "c": "keep",
        "i": "keep",
    }


def test_premises_corrected_into_one_belief_ground_it_once() -> None:
    """Two facts corrected into one version count as one premise for an induction (the diff
    review); a premise still waiting outside the batch leaves the model's verdict standing."""
    same = "merged"
    pattern = derived(
        "i",
        "inductive",
        replace(premise("a", current=False), replaced_by=same),
        replace(premise("b", current=False), replaced_by=same),
    )
    later = derived("d", "deductive", premise("w", current=False, pending=True))
    answer = ReconcileOutput(
        verdicts=[
            BeliefVerdict(id="i", action="confirm"),
            BeliefVerdict(id="d", action="confirm"),
        ]
    )
    # d waits for w, judged in a later pass (the quick review: kept, it stayed current on w
    # once w was dropped); alone in its batch, it is judged now, on w as not current.
    assert actions(llm_verdicts([pattern, later], answer, {})) == {"i": "drop"}
    assert actions(llm_verdicts([later], answer, {})) == {"d": "drop"}


def test_the_model_never_decides_on_history() -> None:
    """A superseded version the model names anyway keeps the zero-key verdict: the model is
    shown current beliefs only, and a verdict of its own would reword or relink history."""
    old = replace(derived("old", "deductive", premise("q")), superseded=True)
    gone = replace(fact("gone", Source("m1", False, "", "x")), superseded=True)
    answer = ReconcileOutput(
        verdicts=[
            BeliefVerdict(id="old", action="update", content="reworded"),
            BeliefVerdict(id="gone", action="confirm"),
        ]
    )
    verdicts = llm_verdicts([old, gone], answer, {"reworded": "key"})
    assert verdicts == [Verdict("old", "keep"), Verdict("gone", "drop")]


def test_history_kept_in_the_same_pass_never_grounds_a_current_belief() -> None:
    """A superseded premise judged (and kept, as history) in the same pass counted as grounds
    for a current deduction resting on it alone."""
    old = replace(
        fact("p", Source("m1", True, "I live in Paris", "live in Paris")), superseded=True
    )
    on_it = derived("b", "deductive", replace(premise("p", current=False), stands=False))
    assert actions(rule_verdicts([old, on_it])) == {"p": "keep", "b": "drop"}
    assert actions(rule_verdicts([on_it])) == {"b": "drop"}


def test_history_is_judged_on_the_models_verdicts_on_its_premises() -> None:
    """The model tombstoned a current premise the rules would keep, and history resting on it
    alone was kept by the rules' own verdict on that premise."""
    q = derived("q", "deductive", premise("r"))
    h = replace(derived("h", "deductive", premise("q", pending=True)), superseded=True)
    answer = ReconcileOutput(verdicts=[BeliefVerdict(id="q", action="tombstone")])
    assert actions(llm_verdicts([q, h], answer, {})) == {"q": "drop", "h": "drop"}
    answer = ReconcileOutput(verdicts=[BeliefVerdict(id="q", action="confirm")])
    assert actions(llm_verdicts([q, h], answer, {})) == {"q": "keep", "h": "keep"}


def test_the_prompt_shows_each_belief_with_its_evidence() -> None:
    belief = StaleBelief(
        "b1",
        "deductive",
        "alice lives in France.",
        "a premise was corrected",
        (premise("p1", current=False), premise("p2")),
        (Source("m1", False, "", "x"), Source("m2", True, "I moved to Berlin.", "Berlin")),
    )
    text = str(reconcile_messages("agent", "alice", [belief])[-1]["content"])
    assert "[obs:b1] (deductive; stale: a premise was corrected) alice lives in France." in text
    assert "premise [obs:p1] (no longer current)" in text
    assert "premise [obs:p2] (current)" in text
    assert "source message m1 was deleted" in text
    assert "source message m2 now reads: I moved to Berlin." in text


def test_a_purge_removes_only_jobs_that_carry_nothing_else() -> None:
    def job(id_: str, kind: str, peer: str | None = None, **payload: object) -> dict[str, object]:
        return {"id": id_, "kind": kind, "peer": peer, "payload": json.dumps(payload)}

    rows = [
        job("all", "derive", "bob", message_ids=["m1", "m2"]),
        job("mixed", "derive", "bob", message_ids=["m1", "m3"]),
        job("summary", "summarize"),
        job("bobs", "derive", "bob", message_ids=["m9"]),
        job("dream", "dream", observer="agent", observed="bob"),
        job("other", "dream", observer="agent", observed="carol"),
    ]
    assert jobs_to_purge(rows, {"m1", "m2"}, None) == ["all"]
    assert jobs_to_purge(rows, {"m1", "m2"}, "bob") == ["all", "mixed", "bobs", "dream"]


def test_a_merge_maps_each_representation_of_the_source_to_the_target() -> None:
    moves = scope_moves("w", "alicia", "alice", [("agent", "alicia"), ("alicia", "alicia")])
    assert [(m["observer"], m["observed"]) for m in moves] == [
        ("agent", "alice"),
        ("alice", "alice"),
    ]
    assert moves[0]["from_scope"] == scope_key("w", "agent", "alicia")
    assert moves[0]["scope"] == scope_key("w", "agent", "alice")
    assert moves[1]["scope"] == scope_key("w", "alice", "alice")


def test_a_merge_pairs_each_belief_once_per_round_and_settles_those_that_repeat_nothing() -> None:
    checked = [("m1", True), ("m2", True), ("m3", True), ("m4", False), ("m5", True)]
    # m1 repeats t1; m2 repeats m1 (already paired: it waits); m3 repeats nothing; m4 is gone;
    # m5 repeats m3.
    pairs, settled = pair_repeats(checked, ["t1", "m1", None, None, "m3"])
    assert pairs == [{"a": "m1", "b": "t1"}, {"a": "m5", "b": "m3"}]
    assert settled == ["m3", "m4"]


def test_a_purge_deletes_each_belief_after_everything_built_on_it() -> None:
    premises = {
        "paris": [],
        "dog": [],
        "france": ["paris"],
        "europe": ["france"],
        "both": ["paris", "dog"],
        "outside": ["elsewhere"],  # a premise the purge keeps does not hold anything up
    }
    order = dependents_first(premises)
    assert sorted(order) == sorted(premises)
    for belief, ps in premises.items():
        for p in ps:
            if p in premises:
                assert order.index(belief) < order.index(p), (belief, p)
    # Batches follow the order, so none deletes a premise before a later batch's dependent.
    assert [len(b) for b in chunks(order, 4)] == [4, 2]
    assert dependents_first({"a": ["b"], "b": ["a"]}) == ["a", "b"]  # a cycle still goes


def test_a_kept_fact_stops_citing_a_live_source_whose_text_lost_its_span() -> None:
    edited = Source("m1", True, "I have a cat.", "I live in Lisbon")
    still = Source("m2", True, "I live in Lisbon.", "I live in Lisbon")
    deleted = Source("m3", False, "I live in Lisbon.", "I live in Lisbon")
    fact = StaleBelief(
        "o1", "explicit", "alice lives in Lisbon", None, (), (edited, still, deleted)
    )
    assert unlinking(Verdict("o1", "keep"), fact).unlink == (edited,)
    # Nothing else grounds it (an LLM kept it): it stays traceable to what it was taken from.
    alone = replace(fact, sources=(edited, deleted))
    assert unlinking(Verdict("o1", "keep"), alone).unlink == ()
    assert unlinking(Verdict("o1", "drop"), fact).unlink == ()
    derived = replace(fact, level="deductive")
    assert unlinking(Verdict("o1", "keep"), derived).unlink == ()


def test_a_kept_fact_dated_by_the_edited_message_takes_the_date_of_those_left() -> None:
    day = datetime(2024, 3, 1, tzinfo=UTC)
    edited = Source("m1", True, "I have a cat.", "I live in Lisbon", day.replace(month=1), "s1")
    june = Source("m2", True, "I live in Lisbon.", "I live in Lisbon", day.replace(month=6), "s1")
    march = Source("m3", True, "I live in Lisbon.", "I live in Lisbon", day, "s2")
    content = "Alice lives in Lisbon (stated on 2024-01-01)."
    fact = StaleBelief(
        "o1", "explicit", content, None, (), (edited, june, march), session="s1",
        valid_at=day.replace(month=1),
    )  # fmt: skip
    verdict = unlinking(Verdict("o1", "keep"), fact)
    # As the unlink picks: the earliest message left of its own session, June, not March.
    redated = "Alice lives in Lisbon (stated on 2024-06-01)."
    assert (verdict.action, verdict.content, verdict.redate) == ("update", redated, True)
    assert verdict.unlink == (edited,)
    other = replace(fact, session="s9")  # none of its session left: the earliest
    assert unlinking(Verdict("o1", "keep"), other).content == redated.replace("06", "03")
    # Words already of that date, or undated, stay.
    same = replace(fact, content=redated)
    assert unlinking(Verdict("o1", "keep"), same).action == "keep"
    plain = replace(fact, content="Alice lives in Lisbon.")
    assert unlinking(Verdict("o1", "keep"), plain).action == "keep"


def test_the_apps_guidance_follows_the_reconciliation_rules() -> None:
    belief = StaleBelief("o1", "explicit", "alice lives in Lisbon", None, (), ())
    plain = reconcile_messages("bob", "alice", [belief])
    guided = reconcile_messages("bob", "alice", [belief], "Keep places.")
    expected = f"{plain[0]['content']}\n\n{GUIDANCE_HEADING}\n    Keep places."
    assert str(guided[0]["content"]) == expected
    assert guided[1] == plain[1]


def test_a_fact_whose_every_message_was_deleted_is_dropped_whatever_the_model_says() -> None:
    """The model confirmed "alice is divorced" after its only message was deleted: current
    again, citing nothing live. An edited message's new text may still hold it, reworded."""
    gone = fact("g", Source("m", False, "I am divorced.", "I am divorced"))
    edited = fact("e", Source("n", True, "I am divorced now.", "I am single"))
    answer = ReconcileOutput(
        verdicts=[
            BeliefVerdict(id="g", action="confirm"),
            BeliefVerdict(id="e", action="update", content="alice is divorced."),
        ]
    )
    verdicts = {v.id: v for v in llm_verdicts([gone, edited], answer, {"alice is divorced.": "k"})}
    assert verdicts["g"] == Verdict("g", "drop")
    assert verdicts["e"].action == "update"


async def test_reconciliation_asks_in_parts_and_a_part_never_answered_falls_to_the_rules() -> None:
    """A thousand verdicts in one answer outgrew its token limit: cut off, invalid on every
    retry, and every later dream of the view failed the same way."""
    beliefs = [derived(f"d{i:02}", "deductive", premise("p")) for i in range(30)]

    def confirm_all(messages: list[ChatMessage], schema: Any) -> ReconcileOutput:
        shown = str(messages[-1]["content"])
        ids = [b.id for b in beliefs if f"[obs:{b.id}]" in shown]
        return ReconcileOutput(verdicts=[BeliefVerdict(id=i, action="confirm") for i in ids])

    llm = ScriptedLLM(max_retries=0).add(ROLE, confirm_all, "not an answer")
    view = Representation("w", "agent", "alice")
    given, usage = await judge(llm, view, beliefs, None)
    assert [str(c.messages[-1]["content"]).count("[obs:d") for c in llm.calls] == [
        RECONCILE_CHUNK,
        30 - RECONCILE_CHUNK,
    ]
    assert [v.id for v in given] == [b.id for b in beliefs[:RECONCILE_CHUNK]]
    assert usage.input_tokens > 0 and usage.output_tokens > 0  # the failed part's tokens too
    # The part with no answer keeps the rules' verdicts (grounded: kept, not relinked).
    verdicts = llm_verdicts(beliefs, ReconcileOutput(verdicts=given), {})
    assert {v.relink for v in verdicts[:RECONCILE_CHUNK]} == {True}
    assert {v.relink for v in verdicts[RECONCILE_CHUNK:]} == {False}
