from datetime import UTC, datetime

import pytest

from graph.configuration import (
    QueueSwitches,
    card_created,
    card_used,
    dreams_enabled,
    instructions,
    message_derives,
    observes_itself,
    queue_switches,
)
from graph.records import MembershipRecord, MessageRecord
from graph.settings import Settings
from reasoners.deriver.routing import observers_for
from reasoners.dreamer.scheduling import unit_trigger
from reasoners.queue.schedule import (
    DERIVE,
    MAX_JOB_MESSAGES,
    SUMMARIZE,
    jobs_for_messages,
    summaries_again,
)

pytestmark = pytest.mark.unit

STAMP = datetime(2026, 1, 1, tzinfo=UTC)


def _message(seq: int, peer: str) -> MessageRecord:
    return MessageRecord(
        id=f"m{seq}",
        workspace="w",
        session="s",
        peer=peer,
        content="hello",
        context=None,
        metadata={},
        created_at=STAMP,
        seq=seq,
        token_count=seq + 1,
    )


def test_a_big_batch_makes_derive_jobs_of_bounded_size_per_sender() -> None:
    # A deriver run takes at least one whole job, so a job's size is what bounds a run.
    senders = ["maya"] * (2 * MAX_JOB_MESSAGES + 10) + ["tom"] * 3
    created = [_message(seq, peer) for seq, peer in enumerate(senders)]
    jobs = jobs_for_messages(Settings.from_env({}), created, STAMP, QueueSwitches())
    derive = [j for j in jobs if j.kind == DERIVE]
    assert [(j.peer, len(j.payload["message_ids"])) for j in derive] == [
        ("maya", MAX_JOB_MESSAGES),
        ("maya", MAX_JOB_MESSAGES),
        ("maya", 10),
        ("tom", 3),
    ]
    assert [i for j in derive for i in j.payload["message_ids"]] == [m.id for m in created]
    assert [j.tokens for j in derive] == [
        sum(m.token_count for m in created if m.id in j.payload["message_ids"]) for j in derive
    ]
    assert {j.work_unit for j in derive if j.peer == "maya"} == {"derive/w/s/maya"}
    assert all(j.kind == SUMMARIZE for j in jobs if j not in derive)


def test_the_switches_decide_what_a_batch_queues() -> None:
    settings = Settings.from_env({"BELIEFGRAPH_SUMMARY_SHORT_EVERY": "20"})
    created = [_message(seq, "maya") for seq in range(12)]

    def kinds(switches: QueueSwitches) -> list[tuple[str, object]]:
        jobs = jobs_for_messages(settings, created, STAMP, switches)
        return [(j.kind, j.payload.get("up_to_seq")) for j in jobs]

    assert kinds(QueueSwitches()) == [(DERIVE, None)]
    assert kinds(QueueSwitches(short_every=5)) == [(DERIVE, None), (SUMMARIZE, 4), (SUMMARIZE, 9)]
    assert kinds(QueueSwitches(derive=False, short_every=5)) == [(SUMMARIZE, 4), (SUMMARIZE, 9)]
    assert kinds(QueueSwitches(summarize=False, short_every=5)) == [(DERIVE, None)]


def test_a_session_switch_wins_over_its_workspace_and_unset_falls_through() -> None:
    off = {"reasoning": {"enabled": False}, "summary": {"messages_per_short_summary": 30}}
    on = {"reasoning": {"enabled": True}, "summary": {"enabled": None}}
    assert queue_switches(off, {}) == QueueSwitches(derive=False, short_every=30)
    assert queue_switches(off, on) == QueueSwitches(derive=True, short_every=30)
    assert queue_switches({}, {"summary": {"enabled": False}}).summarize is False
    # A value no client could have stored (an earlier version's) counts as unset.
    assert queue_switches({"reasoning": {"enabled": "no"}}, {}) == QueueSwitches()
    assert queue_switches({"summary": {"messages_per_short_summary": 0}}, {}) == QueueSwitches()


def test_a_client_cannot_ask_for_a_summary_every_few_messages() -> None:
    often = {"summary": {"messages_per_short_summary": 1, "messages_per_long_summary": 2}}
    assert queue_switches(often, {}) == QueueSwitches(short_every=10, long_every=20)


def test_dream_and_card_switches_take_the_most_specific_level_set() -> None:
    off = {"dream": {"enabled": False}, "peer_card": {"use": False, "create": False}}
    on = {"dream": {"enabled": True}, "peer_card": {"use": True, "create": None}}
    assert dreams_enabled({}) and card_used({}) and card_created({})
    assert not dreams_enabled(off) and not card_used(off) and not card_created(off)
    assert dreams_enabled(on, off) and card_used(on, off)
    assert not dreams_enabled({"dream": None}, off)  # unset falls through
    assert card_created(on)  # null is unset: the default
    # A value no client could have stored counts as unset.
    assert dreams_enabled({"dream": {"enabled": "no"}})


def test_instructions_join_the_top_level_and_each_named_section() -> None:
    configuration = {
        "custom_instructions": " Be brief. ",
        "dream": {"custom_instructions": "Mind dates."},
        "peer_card": {"custom_instructions": "Names only."},
        "summary": {"custom_instructions": "  "},
    }
    assert instructions(configuration, "dream") == "Be brief.\n\nMind dates."
    assert instructions(configuration, "dream", "peer_card") == (
        "Be brief.\n\nMind dates.\n\nNames only."
    )
    assert instructions(configuration, "summary") == "Be brief."
    assert instructions({"summary": {"custom_instructions": "x"}}, "dialectic") is None
    assert instructions({"custom_instructions": 3, "dialectic": "y"}, "dialectic") is None


def test_messages_decided_one_by_one_are_derived_alone_and_all_count_for_summaries() -> None:
    settings = Settings.from_env({"BELIEFGRAPH_SUMMARY_SHORT_EVERY": "10"})
    created = [_message(seq, "maya") for seq in range(10)]
    jobs = jobs_for_messages(settings, created, STAMP, QueueSwitches(derive=False), created[3:5])
    derived = [i for j in jobs if j.kind == DERIVE for i in j.payload["message_ids"]]
    assert derived == ["m3", "m4"]
    assert [j.payload["up_to_seq"] for j in jobs if j.kind == SUMMARIZE] == [9]
    assert [j.kind for j in jobs_for_messages(settings, created, STAMP, QueueSwitches(), [])] == [
        SUMMARIZE
    ]


def test_a_messages_and_a_peers_own_switches() -> None:
    assert message_derives(None) is None and message_derives({}) is None
    assert message_derives({"reasoning": {"enabled": False}}) is False
    assert message_derives({"reasoning": {"enabled": None}}) is None
    assert observes_itself({}) and observes_itself({"observe_me": None})
    assert not observes_itself({"observe_me": False})
    assert observes_itself({"observe_me": "no"})  # no client could store it: unset


def test_a_peer_that_does_not_observe_itself_is_routed_to_the_others_only() -> None:
    members = [
        MembershipRecord("maya", "s", True, True, STAMP, None),
        MembershipRecord("tom", "s", True, True, STAMP, None),
    ]
    assert observers_for("maya", STAMP, members) == ["maya", "tom"]
    assert observers_for("maya", STAMP, members, observe_self=False) == ["tom"]


def test_a_dream_of_several_jobs_runs_under_the_strongest_trigger() -> None:
    assert unit_trigger({"reconcile", "threshold"}) == "threshold"  # a reconcile only settles
    assert unit_trigger({"idle", "manual", "reconcile"}) == "manual"
    assert unit_trigger({"reconcile"}) == "reconcile"


def test_summaries_a_change_removed_are_queued_again_up_to_what_they_covered() -> None:
    stamp = datetime(2024, 1, 1, tzinfo=UTC)
    dropped = {"s2": {"short": 39}, "s1": {"short": 19, "long": 59}}
    queued = summaries_again(Settings(), "w", dropped, stamp)
    assert [(j.session, j.kind, j.payload) for j in queued] == [
        ("s1", SUMMARIZE, {"kind": "long", "up_to_seq": 59}),
        ("s1", SUMMARIZE, {"kind": "short", "up_to_seq": 19}),
        ("s2", SUMMARIZE, {"kind": "short", "up_to_seq": 39}),
    ]
    assert {j.work_unit for j in queued} == {"summarize/w/s1", "summarize/w/s2"}
    assert all(j.run_after == stamp for j in queued)
    assert summaries_again(Settings(), "w", {}, stamp) == []
