"""The no-LLM path end to end, and session summaries (extractive and scripted)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest

from graph.repo import job_admin, jobs, messages, observations, queue_status, summaries
from graph.repo.messages import MessageFilter
from graph.repo.observation_search import ObservationQuery
from graph.repo.sessions import MemberSettings
from reasoners.deriver.handler import MAX_FACTS_PER_MESSAGE, MAX_UNIT_MESSAGES, DeriverHandler
from reasoners.llm.interface import ChatMessage, LLMUnavailable
from reasoners.peers import invalidation, purge
from reasoners.queue.worker import Worker, WorkerConfig
from reasoners.summarizer.handler import SummarizerHandler
from reasoners.summarizer.schema import SummaryOutput
from reasoners.text.spans import is_grounded
from resolvers.graphql.context import Context
from resolvers.graphql.schema import build_schema
from resolvers.services import Services
from tests.conftest import GraphQLClient
from tests.fakes.llm import ScriptedLLM
from tests.integration.derive_helpers import (
    echo_deriver,
    flush_and_drain,
    make_peers,
    make_session,
    post,
    worker_for,
)

pytestmark = pytest.mark.integration

CONVERSATION = [
    ("maya", "Hi! I just got back from a week of hiking in the Dolomites."),
    ("assistant", "Welcome back! How was it?"),
    ("maya", "Amazing. I'm training for a marathon in October, so the climbs helped."),
    ("assistant", "Which marathon are you running?"),
    ("maya", "The Amsterdam one. My sister lives there, so I can stay with her."),
    ("assistant", "That sounds convenient."),
    ("maya", "It is. I work as a pharmacist, so I had to book the time off early."),
    ("assistant", "Do you run every day?"),
    ("maya", "Five days a week. I usually run before my shift starts at eight."),
    ("assistant", "Impressive discipline."),
    ("maya", "Thanks! I've been vegetarian for three years and it helps my recovery."),
    ("assistant", "What do you eat before long runs?"),
    ("maya", "Oatmeal with bananas, always."),
    ("assistant", "Classic choice."),
    ("maya", "I also have a border collie named Pixel who joins my shorter runs."),
    ("assistant", "Pixel must love that."),
    ("maya", "He does. I adopted him from a shelter in Utrecht two years ago."),
    ("assistant", "How old is he?"),
    ("maya", "He's four. Can you suggest a taper plan for the last three weeks?"),
    ("assistant", "Sure, let's reduce volume by about a quarter each week."),
]


async def summary_chat(services: Services, workspace: str) -> Services:
    """maya and the assistant in "chat", a short summary every 20 messages, no long one."""
    await make_peers(services, workspace, "maya", "assistant")
    await make_session(services, workspace, "chat", [])
    settings = dataclasses.replace(
        services.settings, summary_short_every=20, summary_long_every=1000
    )
    return dataclasses.replace(services, settings=settings)


def folding(services: Services, workspace: str, llm: Any, messages: int) -> Worker:
    """A worker whose summarizer folds at most `messages` messages a run."""
    base = worker_for(services, workspace, llm)
    handler = base.handlers["summarize"]
    assert isinstance(handler, SummarizerHandler)
    parts = {**base.handlers, "summarize": dataclasses.replace(handler, run_messages=messages)}
    return Worker(services.db, parts, WorkerConfig(workspace=workspace))


async def test_extractive_mode_turns_a_chat_into_facts_with_spans(
    services: Services, workspace: str
) -> None:
    await make_peers(services, workspace, "maya", "assistant")
    await make_session(
        services, workspace, "chat", [MemberSettings("maya"), MemberSettings("assistant")]
    )
    await post(services, workspace, "chat", *CONVERSATION)
    worker = worker_for(services, workspace, None)  # no LLM: the extractive provider
    await flush_and_drain(services, workspace, worker)
    page = await observations.list_page(
        services.db, workspace, ObservationQuery("maya", "maya"), after=None, limit=100
    )
    facts = page.items
    assert len(facts) >= 8, [f.content for f in facts]
    texts = [f.content for f in facts]
    assert any("marathon in October" in t for t in texts)
    assert any("pharmacist" in t for t in texts)
    for fact in facts:
        assert fact.content.startswith("Maya") or fact.content.startswith("maya"), fact.content
        assert not re.search(r"\b(I|my|me|I'm)\b", fact.content), fact.content
        detail = await observations.get_detail(services.db, workspace, fact.id)
        [source] = detail.sources
        assert is_grounded(source.span, source.message.content)
        assert source.message.peer == "maya"
    # The assistant watched maya: it holds the same facts about her; nobody models the questions.
    others = await observations.list_page(
        services.db, workspace, ObservationQuery("assistant", "maya"), after=None, limit=100
    )
    assert len(others.items) == len(facts)


async def test_a_fact_longer_than_a_belief_may_be_is_left_out_and_the_rest_derived(
    services: Services, workspace: str
) -> None:
    """A 2,500-word sentence used to fail the whole unit at the index (dead-lettered after five
    attempts, with the short fact beside it never derived)."""
    await make_peers(services, workspace, "maya")
    await make_session(services, workspace, "chat", [MemberSettings("maya")])
    long = "I like " + " ".join(f"thing{i}" for i in range(2_500)) + "."
    await post(services, workspace, "chat", ("maya", long), ("maya", "I live in Paris."))
    worker = worker_for(services, workspace, None)
    await flush_and_drain(services, workspace, worker)
    page = await observations.list_page(
        services.db, workspace, ObservationQuery("maya", "maya"), after=None, limit=10
    )
    assert [f.content.split(" (")[0] for f in page.items] == ["Maya lives in Paris"]
    deriver = worker.handlers["derive"]
    assert isinstance(deriver, DeriverHandler) and deriver.stats.too_long == 1
    status = await queue_status.status(services.db, workspace, None, None)
    assert (status.dead, status.pending) == (0, 0)


async def test_summaries_every_20_and_60_messages(services: Services, workspace: str) -> None:
    await make_peers(services, workspace, "maya", "assistant")
    await make_session(services, workspace, "chat", [])
    for _ in range(3):
        await post(services, workspace, "chat", *CONVERSATION)
    worker = worker_for(services, workspace, None)
    await flush_and_drain(services, workspace, worker)
    short = await summaries.list_for_session(services.db, workspace, "chat", kind="short", limit=10)
    long = await summaries.list_for_session(services.db, workspace, "chat", kind="long", limit=10)
    assert [s.up_to_message for s in short] == [59, 39, 19]
    assert [s.up_to_message for s in long] == [59]
    limit = services.settings.summary_short_words
    assert all(0 < len(s.content.split()) <= limit for s in short)
    assert "Dolomites" in short[-1].content


async def test_a_summary_a_change_removed_is_written_again_from_what_is_left(
    services: Services, workspace: str
) -> None:
    """The session kept no summary until enough new messages came, which in a finished
    conversation was never."""
    await make_peers(services, workspace, "maya", "assistant")
    await make_session(services, workspace, "chat", [])
    await post(services, workspace, "chat", *CONVERSATION)
    worker = worker_for(services, workspace, None)
    await flush_and_drain(services, workspace, worker)
    [before] = await summaries.list_for_session(
        services.db, workspace, "chat", kind="short", limit=10
    )
    assert "Dolomites" in before.content
    page = await messages.list_page(
        services.db, workspace, MessageFilter(session="chat"), after=None, limit=100
    )
    first, pixel = page.items[0], page.items[14]

    await invalidation.delete_messages(
        services.db, services.embedder, services.settings, workspace, [first.id]
    )
    await flush_and_drain(services, workspace, worker)
    [after] = await summaries.list_for_session(
        services.db, workspace, "chat", kind="short", limit=10
    )
    assert after.up_to_message == 19 and "Dolomites" not in after.content

    await invalidation.edit_message(
        services.db,
        services.embedder,
        services.tokens,
        services.settings,
        workspace,
        pixel.id,
        "I also have a tabby cat named Biscuit who sleeps all day.",
    )
    await flush_and_drain(services, workspace, worker)
    [edited] = await summaries.list_for_session(
        services.db, workspace, "chat", kind="short", limit=10
    )
    assert edited.up_to_message == 19 and "named Pixel" not in edited.content

    marathon = page.items[2]
    await purge.purge_messages(services.db, services.settings, workspace, [marathon.id])
    await flush_and_drain(services, workspace, worker)
    [purged] = await summaries.list_for_session(
        services.db, workspace, "chat", kind="short", limit=10
    )
    assert purged.up_to_message == 19 and "marathon in October" not in purged.content


async def test_a_summary_of_messages_all_purged_meanwhile_is_not_written(
    services: Services, workspace: str
) -> None:
    """The queued summary ran on no message and wrote an empty one claiming 20 messages."""
    await make_peers(services, workspace, "maya", "assistant")
    await make_session(services, workspace, "chat", [])
    await post(services, workspace, "chat", *CONVERSATION)
    page = await messages.list_page(
        services.db, workspace, MessageFilter(session="chat"), after=None, limit=100
    )
    await purge.purge_messages(
        services.db, services.settings, workspace, [m.id for m in page.items]
    )
    await flush_and_drain(services, workspace, worker_for(services, workspace, None))
    for kind in ("short", "long"):
        assert (
            await summaries.list_for_session(services.db, workspace, "chat", kind=kind, limit=9)
            == []
        )


async def test_llm_summaries_fold_the_previous_one(services: Services, workspace: str) -> None:
    await make_peers(services, workspace, "maya", "assistant")
    await make_session(services, workspace, "chat", [])
    seen: list[str] = []

    def summarize(messages: list[ChatMessage], schema: Any) -> SummaryOutput:
        prompt = str(messages[-1]["content"])
        seen.append(prompt)
        return schema(summary=f"summary number {len(seen)}")  # type: ignore[no-any-return]

    settings = dataclasses.replace(services.settings, summary_long_every=1000)
    services = dataclasses.replace(services, settings=settings)
    llm = ScriptedLLM({"summarizer": summarize, "deriver": lambda m, s: {"observations": []}})
    await post(services, workspace, "chat", *CONVERSATION)
    await post(services, workspace, "chat", *CONVERSATION)
    await flush_and_drain(services, workspace, worker_for(services, workspace, llm))
    assert "summary number 1" in seen[1], "the second run folds in the first summary"
    short = await summaries.latest(services.db, workspace, "chat", "short")
    assert short is not None and short.content == "summary number 2"


async def test_an_llm_summary_of_many_long_messages_folds_them_in_parts(
    services: Services, workspace: str
) -> None:
    """Every message since the last summary went into one prompt: after a deletion early in a
    long session, or with a cadence of thousands, past any model's context."""
    services = await summary_chat(services, workspace)
    prompts: list[str] = []

    def summarize(messages: list[ChatMessage], schema: Any) -> dict[str, str]:
        prompts.append(str(messages[-1]["content"]))
        return {"summary": f"part {len(prompts)}"}

    llm = ScriptedLLM({"summarizer": summarize, "deriver": lambda m, s: {"observations": []}})
    long = " ".join(["gardening"] * 600)  # about 600 tokens each: 12,000 in all
    await post(services, workspace, "chat", *[("maya", f"{i} {long}") for i in range(20)])
    await flush_and_drain(services, workspace, worker_for(services, workspace, llm))
    assert len(prompts) == 2 and "part 1" in prompts[1]
    assert all(services.tokens.count(p) < 9000 for p in prompts)
    short = await summaries.latest(services.db, workspace, "chat", "short")
    assert short is not None and (short.content, short.up_to_message) == ("part 2", 19)


async def test_a_long_stretch_is_summarized_a_bounded_part_per_run(
    services: Services, workspace: str
) -> None:
    """After an edit early in a session of 100,000 messages, one run read them all and wrote
    nothing until the end (and a failure near it lost everything)."""
    services = await summary_chat(services, workspace)
    prompts: list[str] = []

    def summarize(messages: list[ChatMessage], schema: Any) -> dict[str, str]:
        prompts.append(str(messages[-1]["content"]))
        return {"summary": f"part {len(prompts)}"}

    llm = ScriptedLLM({"summarizer": summarize, "deriver": lambda m, s: {"observations": []}})
    await post(
        services, workspace, "chat", *[("maya", f"Line {i} of the chat.") for i in range(20)]
    )
    worker = folding(services, workspace, llm, 7)
    await flush_and_drain(services, workspace, worker)
    short = await summaries.list_for_session(services.db, workspace, "chat", kind="short", limit=10)
    assert [(s.up_to_message, s.content) for s in short] == [
        (19, "part 3"),
        (13, "part 2"),
        (6, "part 1"),
    ]
    assert "part 2" in prompts[2]  # each part folds into the one before
    done = await job_admin.list_jobs(
        services.db,
        workspace,
        session=None,
        peer=None,
        statuses=["done"],
        with_errors=False,
        limit=50,
    )
    [job] = [j for j in done if j.kind == "summarize"]
    # Each run's tokens kept: the fake counts the words of '{"summary": "part N"}'.
    assert job.tokens_out == 3 * 3, job


async def test_a_stretch_of_deleted_messages_is_passed_over_in_one_run(
    services: Services, workspace: str
) -> None:
    """A part whose messages were all deleted wrote nothing and went on from the same place:
    the job was claimed again, empty, for good, and the session's later summaries waited."""
    services = await summary_chat(services, workspace)
    lines = [("maya", f"Line {i} of it.") for i in range(20)]
    await post(services, workspace, "chat", *lines)
    gone = await messages.by_seq(services.db, workspace, "chat", 0, 13)
    await invalidation.delete_messages(
        services.db, services.embedder, services.settings, workspace, [m.id for m in gone]
    )
    worker = folding(services, workspace, None, 7)
    await job_admin.flush(services.db, workspace, None, None)
    runs = 0
    while await worker.run_once():
        runs += 1
        assert runs < 10, "claimed again and again"
    short = await summaries.list_for_session(services.db, workspace, "chat", kind="short", limit=10)
    assert [s.up_to_message for s in short] == [19]
    assert "Line 14" in short[0].content and "Line 13" not in short[0].content


async def test_a_summary_failing_on_a_later_part_bills_the_parts_before(
    services: Services, workspace: str
) -> None:
    """The summarizer lost the tokens of the parts it had folded when a later one failed."""
    services = await summary_chat(services, workspace)
    calls: list[str] = []

    def summarize(messages: list[ChatMessage], schema: Any) -> Any:
        calls.append("asked")
        if len(calls) == 2:
            return LLMUnavailable("the LLM is down")
        return {"summary": "part one"}

    llm = ScriptedLLM({"summarizer": summarize, "deriver": lambda m, s: {"observations": []}})
    long = " ".join(["gardening"] * 600)  # about 600 tokens each: two parts
    await post(services, workspace, "chat", *[("maya", f"{i} {long}") for i in range(20)])
    await job_admin.flush(services.db, workspace, None, None)
    worker = worker_for(services, workspace, llm)
    while len(calls) < 2:
        assert await worker.run_once()
    failed = await job_admin.list_jobs(
        services.db,
        workspace,
        session=None,
        peer=None,
        statuses=["pending"],
        with_errors=True,
        limit=50,
    )
    [job] = [j for j in failed if j.kind == "summarize"]
    assert job.error == "LLMUnavailable: the LLM is down"
    assert job.tokens_in > 0 and job.tokens_out == 3  # '{"summary": "part one"}'


async def test_a_summary_far_over_its_word_limit_is_re_asked_never_stored(
    services: Services, workspace: str
) -> None:
    """An 8 MB summary was stored as it came, and filled a 500-token context on its own."""
    await make_peers(services, workspace, "maya", "assistant")
    await make_session(services, workspace, "chat", [])
    limit = services.settings.summary_short_words
    answers = iter(["word " * (3 * limit), "A" * 100_000, "a fitting summary"])
    asked: list[str] = []

    def summarize(messages: list[ChatMessage], schema: Any) -> dict[str, str]:
        asked.append(str(messages[-1]["content"]))
        return {"summary": next(answers, "a fitting summary")}

    settings = dataclasses.replace(services.settings, summary_long_every=1000)
    services = dataclasses.replace(services, settings=settings)
    llm = ScriptedLLM({"summarizer": summarize, "deriver": lambda m, s: {"observations": []}})
    await post(services, workspace, "chat", *CONVERSATION)
    await flush_and_drain(services, workspace, worker_for(services, workspace, llm))
    assert f"write at most about {limit} words" in asked[1] and "100000 characters" in asked[2]
    short = await summaries.latest(services.db, workspace, "chat", "short")
    assert short is not None and short.content == "a fitting summary"


async def test_summaries_read_with_their_default_under_a_small_page_size(
    services: Services, workspace: str
) -> None:
    """`summaries` defaulted to 10, refused (INVALID_INPUT) once the page size was set below."""
    await make_peers(services, workspace, "maya", "assistant")
    await make_session(services, workspace, "chat", [])
    small = dataclasses.replace(services.settings, max_page_size=3)
    s = dataclasses.replace(services, settings=small)
    result = await build_schema(small).execute(
        'query($w: String!) { session(workspace: $w, name: "chat") { summaries { kind } } }',
        variable_values={"w": workspace},
        context_value=Context(s, None),
    )
    assert result.errors is None and result.data == {"session": {"summaries": []}}


async def test_graphql_exposes_summaries_queue_and_sources(
    gql: GraphQLClient, services: Services, workspace: str
) -> None:
    await make_peers(services, workspace, "maya", "assistant")
    await make_session(services, workspace, "chat", [])
    await post(services, workspace, "chat", *CONVERSATION)
    status = await gql.ok(
        "query($w: String!) { queueStatus(workspace: $w) { pending running done idle } }",
        {"w": workspace},
    )
    assert status["queueStatus"]["pending"] >= 2 and not status["queueStatus"]["idle"]
    flushed = await gql.ok("mutation($w: String!) { flushQueue(workspace: $w) }", {"w": workspace})
    assert flushed["flushQueue"] >= 2
    await worker_for(services, workspace, None).drain()
    data = await gql.ok(
        """query($w: String!) {
          queueStatus(workspace: $w) { pending done idle }
          session(workspace: $w, name: "chat") { summaries { kind upToMessage content } }
          observations(workspace: $w, observer: "maya", observed: "maya", first: 1) {
            nodes { id content }
          }
        }""",
        {"w": workspace},
    )
    assert data["queueStatus"]["idle"] is True
    assert data["session"]["summaries"][0]["upToMessage"] == 19
    kinds = """query($w: String!, $k: String!) {
      session(workspace: $w, name: "chat") { summaries(kind: $k) { kind } }
    }"""
    short = await gql.ok(kinds, {"w": workspace, "k": "short"})
    assert {s["kind"] for s in short["session"]["summaries"]} == {"short"}
    # A kind that does not exist listed nothing, as if no summary had been made.
    assert await gql.error_code(kinds, {"w": workspace, "k": "medium"}) == "INVALID_INPUT"
    [first] = data["observations"]["nodes"]
    detail = await gql.ok(
        """query($w: String!, $id: ID!) {
          observation(workspace: $w, id: $id) { sources { span message { peer content } } }
        }""",
        {"w": workspace, "id": first["id"]},
    )
    [source] = detail["observation"]["sources"]
    assert source["span"] in source["message"]["content"]


async def test_a_message_gives_at_most_its_cap_of_facts(services: Services, workspace: str) -> None:
    """The extractive deriver makes a fact of every first-person sentence: one long message
    gave 1,200, and an upload of such messages kept a unit embedding for hours."""
    await make_peers(services, workspace, "maya")
    await make_session(services, workspace, "chat", [MemberSettings("maya")])
    cap = MAX_FACTS_PER_MESSAGE
    lines = " ".join(f"I visited city number {i} last year." for i in range(cap + 10))
    await post(services, workspace, "chat", ("maya", lines))
    worker = worker_for(services, workspace, None)
    await flush_and_drain(services, workspace, worker)
    deriver = worker.handlers["derive"]
    assert isinstance(deriver, DeriverHandler)
    assert deriver.stats.over_cap == 10, deriver.stats
    page = await observations.list_page(
        services.db, workspace, ObservationQuery("maya", "maya"), after=None, limit=100
    )
    assert 0 < len(page.items) <= cap


async def test_a_failed_derivation_charges_only_the_jobs_it_took(
    services: Services, workspace: str
) -> None:
    """With the LLM down, every job of the unit was charged, those past the run's cap too, and
    after a few failures all of them were dead though most were never read."""
    await make_peers(services, workspace, "maya")
    await make_session(services, workspace, "chat", [MemberSettings("maya")])
    per_job = MAX_UNIT_MESSAGES * 2 // 3
    for batch in range(3):
        await post(
            services, workspace, "chat", *[("maya", f"I read {batch}-{i}.") for i in range(per_job)]
        )
    down = ScriptedLLM({"deriver": lambda messages, schema: LLMUnavailable("the LLM is down")})
    worker = worker_for(services, workspace, down)
    await job_admin.flush(services.db, workspace, None, None)
    listed: list[jobs.JobRecord] = []
    for _ in range(4):  # the session's summary job may be claimed first
        assert await worker.run_once()
        every = await job_admin.list_jobs(
            services.db,
            workspace,
            session=None,
            peer=None,
            statuses=None,
            with_errors=False,
            limit=50,
        )
        listed = [j for j in every if j.kind == "derive"]
        if any(j.attempts for j in listed):
            break
    charged = [j for j in listed if j.attempts]
    assert sum(len(j.payload["message_ids"]) for j in charged) <= MAX_UNIT_MESSAGES
    assert charged and all(j.error == "LLMUnavailable: the LLM is down" for j in charged)
    assert len(charged) < len(listed)


async def test_a_derivation_that_fails_on_a_later_batch_charges_the_batches_before(
    services: Services, workspace: str
) -> None:
    """The LLM failing on a run's second batch lost the first batch's tokens: the jobs showed
    0, and the retry paid for it again."""
    small = dataclasses.replace(services, settings=dataclasses.replace(
        services.settings, deriver_batch_tokens=16
    ))  # fmt: skip
    await make_peers(small, workspace, "maya")
    await make_session(small, workspace, "chat", [MemberSettings("maya")])
    await post(
        small,
        workspace,
        "chat",
        *[("maya", f"I read book number {i} last week.") for i in range(4)],
    )
    calls = []

    def first_then_down(messages: list[ChatMessage], schema: Any) -> Any:
        calls.append(1)
        return echo_deriver(messages, schema) if len(calls) == 1 else LLMUnavailable("down")

    worker = worker_for(small, workspace, ScriptedLLM({"deriver": first_then_down}))
    await job_admin.flush(small.db, workspace, None, None)
    for _ in range(3):  # the session's summary job may be claimed first
        await worker.run_once()
    listed = await job_admin.list_jobs(
        small.db, workspace, session=None, peer=None, statuses=None, with_errors=True, limit=50
    )
    charged = [j for j in listed if j.kind == "derive" and j.attempts]
    assert len(calls) >= 2 and charged, (calls, listed)
    assert sum(j.tokens_in for j in charged) > 0, charged


async def test_a_large_unit_is_derived_a_part_at_a_time(services: Services, workspace: str) -> None:
    """A claim took all of a unit's waiting jobs: twenty upload batches were 2,000 long
    messages in one run, whose facts' pairwise similarities alone needed gigabytes."""
    await make_peers(services, workspace, "maya")
    await make_session(services, workspace, "chat", [MemberSettings("maya")])
    per_job = MAX_UNIT_MESSAGES * 2 // 3
    for batch in range(3):
        lines = [("maya", f"I read book {batch}-{i} this week.") for i in range(per_job)]
        await post(services, workspace, "chat", *lines)
    worker = worker_for(services, workspace, None)
    await flush_and_drain(services, workspace, worker)
    deriver = worker.handlers["derive"]
    assert isinstance(deriver, DeriverHandler)
    assert deriver.stats.units == 3, "one run per job: two would pass the cap"
    status = await queue_status.status(services.db, workspace, None, None)
    assert (status.pending, status.running, status.dead) == (0, 0, 0)
