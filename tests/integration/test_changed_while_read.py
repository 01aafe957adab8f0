"""A message deleted, edited or purged while a worker had read it and was still working (the
LLM call between a handler's read and its write): nothing taken from the old text is written."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest

from graph.keys import Representation
from graph.repo import dream_writes, job_admin, jobs, observations, queue_status, summaries
from graph.repo import messages as message_repo
from graph.repo.dream_writes import DerivedWrite, ProvenanceRejected
from graph.repo.jobs import ClaimedUnit
from graph.repo.sessions import MemberSettings
from graph.validation import now
from reasoners.deriver.handler import DeriverHandler
from reasoners.deriver.schema import DeriverOutput
from reasoners.dreamer import scheduling
from reasoners.llm.interface import ChatMessage
from reasoners.peers import invalidation, merges, purge, splits
from reasoners.queue.worker import Handler, Prepared, Worker, WorkerConfig
from reasoners.summarizer.schema import SummaryOutput
from resolvers.services import Services
from tests import statements
from tests.fakes.db import BeforeFirstWrite
from tests.fakes.llm import ScriptedLLM
from tests.integration.derive_helpers import (
    beliefs,
    make_peers,
    make_session,
    post,
    target_messages,
    worker_for,
)
from tests.integration.dream_helpers import belief_id, with_dreams
from tests.integration.restructure_helpers import run_all
from tests.integration.tx_helpers import while_held

pytestmark = pytest.mark.integration


@dataclass
class ChangedWhileRead:
    """The wrapped handler, with `change` run once between its read and its write."""

    inner: Handler
    change: Callable[[], Awaitable[None]]
    ran: int = 0

    async def prepare(self, unit: ClaimedUnit) -> Prepared:
        prepared = await self.inner.prepare(unit)
        if not self.ran:
            self.ran += 1
            await self.change()
        return prepared


def verbatim(messages: list[ChatMessage], schema: Any) -> DeriverOutput:
    """Each target message's text is the fact."""
    return DeriverOutput.model_validate(
        {
            "observations": [
                {"content": text, "source_message_index": i, "source_span": text}
                for i, _, text in target_messages(messages)
            ]
        }
    )


def mentions_paris(messages: list[ChatMessage], schema: Any) -> SummaryOutput:
    said = "Paris" if "Paris" in str(messages[-1]["content"]) else "nowhere"
    return schema(summary=f"maya mentioned {said}")  # type: ignore[no-any-return]


async def drain_with(
    services: Services, workspace: str, kind: str, change: Callable[[], Awaitable[None]]
) -> tuple[Worker, ChangedWhileRead]:
    """Run the workspace's jobs, with `change` made while the first `kind` unit is read."""
    llm = ScriptedLLM({"deriver": verbatim, "summarizer": mentions_paris})
    base = worker_for(services, workspace, llm)
    hooked = ChangedWhileRead(base.handlers[kind], change)
    config = WorkerConfig(workspace=workspace, backoff=timedelta(0))
    worker = Worker(services.db, {**base.handlers, kind: hooked}, config)
    for _ in range(2):  # the change may queue work of its own (an edit: its derivation)
        await job_admin.flush(services.db, workspace, None, None)
        await worker.drain()
    assert hooked.ran == 1
    status = await queue_status.status(services.db, workspace, None, None)
    assert (status.dead, status.pending, status.running) == (0, 0, 0)
    return worker, hooked


async def paris_chat(services: Services, workspace: str, turns: int = 1) -> str:
    """maya says she lives in Paris (then `turns - 1` more lines); the Paris message's id."""
    await make_peers(services, workspace, "maya")
    await make_session(services, workspace, "chat", [MemberSettings("maya")])
    more = [("maya", f"Line {i} of small talk.") for i in range(1, turns)]
    await post(services, workspace, "chat", ("maya", "I live in Paris."), *more)
    [first, *_] = await message_repo.by_seq(services.db, workspace, "chat", 0, 0)
    return first.id


async def test_a_message_deleted_while_derived_gives_no_belief(
    services: Services, workspace: str
) -> None:
    """The belief was written, current (not stale), from a message already deleted: the
    deletion had marked stale what existed, and nothing marked the late one."""
    paris = await paris_chat(services, workspace)

    async def delete() -> None:
        await invalidation.delete_messages(
            services.db, services.embedder, services.settings, workspace, [paris]
        )

    worker, _ = await drain_with(services, workspace, "derive", delete)
    assert await beliefs(services, workspace, "maya", "maya") == []
    deriver = worker.handlers["derive"]
    assert isinstance(deriver, ChangedWhileRead) and isinstance(deriver.inner, DeriverHandler)
    assert deriver.inner.stats.source_changed == 1


async def test_a_fact_said_again_outlives_its_first_message_deleted_while_derived(
    services: Services, workspace: str
) -> None:
    """The second saying was kept as a repeat of the first, and went with it: the belief was
    lost though a message still says it."""
    await make_peers(services, workspace, "maya")
    await make_session(services, workspace, "chat", [MemberSettings("maya")])
    said = ("maya", "I live in Paris.")
    await post(services, workspace, "chat", said, ("maya", "Nice weather."), said, said)
    first, _, second, third = await message_repo.by_seq(services.db, workspace, "chat", 0, 3)

    async def delete() -> None:
        await invalidation.delete_messages(
            services.db, services.embedder, services.settings, workspace, [first.id]
        )

    await drain_with(services, workspace, "derive", delete)
    assert sorted(await beliefs(services, workspace, "maya", "maya")) == [
        "I live in Paris.",
        "Nice weather.",
    ]
    paris = await belief_id(services, workspace, "Paris", "maya", "maya")
    detail = await observations.get_detail(services.db, workspace, paris)
    assert sorted(s.message.id for s in detail.sources) == sorted([second.id, third.id])


async def test_a_message_edited_while_derived_gives_beliefs_of_the_new_text_only(
    services: Services, workspace: str
) -> None:
    paris = await paris_chat(services, workspace)

    async def edit() -> None:
        await invalidation.edit_message(
            services.db,
            services.embedder,
            services.tokens,
            services.settings,
            workspace,
            paris,
            "I live in Rome.",
        )

    await drain_with(services, workspace, "derive", edit)
    assert await beliefs(services, workspace, "maya", "maya") == ["I live in Rome."]


@pytest.mark.parametrize("how", ["delete", "purge"])
async def test_a_message_removed_while_summarized_is_not_in_the_summary(
    services: Services, workspace: str, how: str
) -> None:
    """The summary was written after the deletion had removed the summaries quoting the
    message, so it quoted the message for good (for a purge, against the erasure)."""
    services = with_dreams(services, summary_short_every=5, summary_long_every=1000)
    paris = await paris_chat(services, workspace, turns=5)

    async def remove() -> None:
        if how == "delete":
            await invalidation.delete_messages(
                services.db, services.embedder, services.settings, workspace, [paris]
            )
        else:
            await purge.purge_messages(services.db, services.settings, workspace, [paris])

    await drain_with(services, workspace, "summarize", remove)
    short = await summaries.latest(services.db, workspace, "chat", "short")
    assert short is not None and short.content == "maya mentioned nowhere"


async def test_an_edit_past_what_a_summary_reads_does_not_fail_it(
    services: Services, workspace: str
) -> None:
    """Any change in the session failed the summary and ran it again: an app editing its
    latest message as it streams failed every long summary (dead after its attempts)."""
    services = with_dreams(services, summary_short_every=5, summary_long_every=1000)
    await paris_chat(services, workspace, turns=7)
    [last] = await message_repo.by_seq(services.db, workspace, "chat", 6, 6)

    async def edit_the_latest() -> None:
        await invalidation.edit_message(
            services.db, services.embedder, services.tokens, services.settings, workspace,
            last.id, "Line 6, edited as it streamed.",
        )  # fmt: skip

    await drain_with(services, workspace, "summarize", edit_the_latest)
    short = await summaries.latest(services.db, workspace, "chat", "short")
    assert short is not None and short.up_to_message == 4
    done = await job_admin.list_jobs(
        services.db,
        workspace,
        session=None,
        peer=None,
        statuses=["done"],
        with_errors=False,
        limit=50,
    )
    assert [j.attempts for j in done if j.kind == "summarize"] == [1]


async def test_a_message_deleted_while_a_dream_runs_gets_a_dream_of_its_own(
    services: Services, workspace: str
) -> None:
    """The deletion reused the running dream, which had read the beliefs before; its finish
    released the claim, and the belief the deletion made stale waited for no dream."""
    services = with_dreams(services, dream_mode="rules", dream_threshold=0)
    paris = await paris_chat(services, workspace)
    llm = ScriptedLLM({"deriver": verbatim})
    await job_admin.flush(services.db, workspace, None, None)
    await worker_for(services, workspace, llm).drain()
    belief = await belief_id(services, workspace, "Paris", "maya", "maya")
    view = Representation(workspace, "maya", "maya")
    await scheduling.on_demand(services.db, services.settings, view)

    async def delete() -> None:
        await invalidation.delete_messages(
            services.db, services.embedder, services.settings, workspace, [paris]
        )

    await drain_with(services, workspace, "dream", delete)
    row = await statements.read_one(
        services.db, "get_observation_state", workspace=workspace, id=belief
    )
    assert row is not None and row["deleted"] and not row["pending"], row


async def alicia_in_paris(services: Services, workspace: str) -> None:
    """alicia (to be merged into alice) says she lives in Paris."""
    await make_peers(services, workspace, "alice", "alicia")
    await make_session(services, workspace, "chat", [MemberSettings("alicia")])
    await post(services, workspace, "chat", ("alicia", "I live in Paris."))


async def merge_alicia(services: Services, workspace: str) -> None:
    op = merges.Operation(["alicia"], "alice", True)
    await merges.start(services.db, services.settings, workspace, op)
    await run_all(services, workspace)


async def test_messages_merged_away_while_derived_are_derived_for_the_target(
    services: Services, workspace: str
) -> None:
    """The derivation wrote its beliefs into the merged-away peer's representation: the
    statement found no such peer and wrote nothing, the job ended done, and alicia's message
    was never derived for alice."""
    await alicia_in_paris(services, workspace)

    async def merge() -> None:
        await merge_alicia(services, workspace)

    await drain_with(services, workspace, "derive", merge)
    assert await beliefs(services, workspace, "alice", "alice") == ["I live in Paris."]


async def test_a_derivation_left_running_when_its_peer_was_merged_away_derives_for_the_target(
    services: Services, workspace: str
) -> None:
    """A worker died running alicia's derivation; the merge moved only waiting jobs, and the
    one reclaimed later failed (no peer alicia) until it was dead."""
    await alicia_in_paris(services, workspace)
    await job_admin.flush(services.db, workspace, None, None)
    crashed = await jobs.claim(
        services.db, "crashed", lease=timedelta(minutes=5), max_jobs=10, workspace=workspace
    )
    assert crashed is not None and crashed.jobs[0].peer == "alicia"
    await merge_alicia(services, workspace)  # its worker cannot reclaim the derivation meanwhile
    # The dead worker's lease runs out only now.
    assert await jobs.extend_lease(services.db, crashed, timedelta(seconds=-1))
    llm = ScriptedLLM({"deriver": verbatim})
    await worker_for(services, workspace, llm, backoff=timedelta(0)).drain()
    status = await queue_status.status(services.db, workspace, None, None)
    assert (status.dead, status.pending, status.running) == (0, 0, 0)
    assert await beliefs(services, workspace, "alice", "alice") == ["I live in Paris."]


async def test_a_belief_invalidated_again_while_a_dream_reconciles_it_is_not_kept(
    services: Services, workspace: str
) -> None:
    """The dream read the deduction stale with one current premise left, and kept it. The
    other premise was deleted before the dream committed; propagation skipped the deduction
    (already stale), and the keep made it current on grounds that had gone."""
    services = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await make_peers(services, workspace, "maya")
    await make_session(services, workspace, "chat", [MemberSettings("maya")])
    await post(services, workspace, "chat", ("maya", "I live in Paris."), ("maya", "I have a dog."))
    await job_admin.flush(services.db, workspace, None, None)
    await worker_for(services, workspace, ScriptedLLM({"deriver": verbatim})).drain()
    paris = await belief_id(services, workspace, "Paris", "maya", "maya")
    dog = await belief_id(services, workspace, "dog", "maya", "maya")
    view = Representation(workspace, "maya", "maya")
    both = DerivedWrite(f"{workspace}-both", "deductive", "maya keeps a dog in a city.",
                        [0.1] * 384, (paris, dog))  # fmt: skip
    await services.db.write_tx(
        lambda tx: dream_writes.create_derived(tx, view, [both], origin="dreamer:rules", now=now())
    )
    await invalidation.delete_observation(services.db, services.settings, workspace, paris)

    async def delete_dog() -> None:
        await invalidation.delete_observation(services.db, services.settings, workspace, dog)

    await drain_with(services, workspace, "dream", delete_dog)
    row = await statements.read_one(
        services.db, "get_observation_state", workspace=workspace, id=both.id
    )
    assert row is not None and row["deleted"] and not row["pending"], row


async def test_a_belief_built_while_a_purge_reads_its_plan_is_erased_with_it(
    services: Services, workspace: str
) -> None:
    """A dream built a deduction on a belief after the purge had read what to erase and before
    it tombstoned it: erasing the premise cut the deduction's only edge, no later round found
    it, and it stayed current on nothing, in words taken from the purged message."""
    said = await paris_chat(services, workspace)
    await job_admin.flush(services.db, workspace, None, None)
    await worker_for(services, workspace, ScriptedLLM({"deriver": verbatim})).drain()
    paris = await belief_id(services, workspace, "Paris", "maya", "maya")
    view = Representation(workspace, "maya", "maya")
    france = DerivedWrite(
        f"{workspace}-fr", "deductive", "maya lives in France.", [0.1] * 384, (paris,)
    )
    europe = DerivedWrite(
        f"{workspace}-eu", "deductive", "maya lives in Europe.", [0.1] * 384, (france.id,)
    )

    async def dream() -> None:
        for belief in (france, europe):
            await services.db.write_tx(
                lambda tx, b=belief: dream_writes.create_derived(
                    tx, view, [b], origin="dreamer:rules", now=now()
                )
            )

    racing = BeforeFirstWrite(services.db, "tombstone_purged", dream)
    report = await purge.purge_messages(racing, services.settings, workspace, [said])  # type: ignore[arg-type]
    assert racing.ran and report.observations["deductive"] == 2, report
    for belief in (paris, france.id, europe.id):
        row = await statements.read_one(
            services.db, "get_observation_state", workspace=workspace, id=belief
        )
        assert row is None, (belief, row)


async def test_a_message_derived_while_a_split_moves_its_observer_goes_to_the_part(
    services: Services, workspace: str
) -> None:
    """The derivation routed bob's message to alice, as the session's members were when read;
    the split then moved alice's place in the session to alice-work, and the belief was written
    into alice's view, which no step of the split came back for (the review)."""
    await make_peers(services, workspace, "alice", "bob")
    await make_session(
        services, workspace, "work", [MemberSettings("alice"), MemberSettings("bob")]
    )
    await post(services, workspace, "work", ("bob", "I live in Paris."))

    async def split() -> None:
        part = splits.Split("alice", [splits.Part("alice-work", ["work"])])
        await splits.start(services.db, services.settings, workspace, part)
        await run_all(services, workspace)

    await drain_with(services, workspace, "derive", split)
    assert await beliefs(services, workspace, "alice", "bob") == []
    assert await beliefs(services, workspace, "alice-work", "bob") == ["I live in Paris."]


async def test_a_belief_built_on_one_a_purge_tombstones_meanwhile_is_refused(
    services: Services, workspace: str
) -> None:
    """The dream read its premise current while the purge's tombstone was not yet committed,
    then wrote on it: the purge, having looked for beliefs built on what it tombstoned, erased
    the premise under it (the diff review). The write now waits for the premise's lock."""
    said = await paris_chat(services, workspace)
    await job_admin.flush(services.db, workspace, None, None)
    await worker_for(services, workspace, ScriptedLLM({"deriver": verbatim})).drain()
    paris = await belief_id(services, workspace, "Paris", "maya", "maya")
    view = Representation(workspace, "maya", "maya")
    france = DerivedWrite(
        f"{workspace}-fr", "deductive", "maya lives in France.", [0.1] * 384, (paris,)
    )

    async def tombstone(tx: Any) -> None:
        await tx.rows(
            "tombstone_purged",
            workspace=workspace,
            now=now(),
            observation_ids=[paris],
            message_ids=[],
        )

    async def dream() -> Any:
        return await services.db.write_tx(
            lambda tx: dream_writes.create_derived(
                tx, view, [france], origin="dreamer:rules", now=now()
            )
        )

    with pytest.raises(ProvenanceRejected, match="stale, deleted or superseded"):
        await while_held(services, tombstone, dream)
    row = await statements.read_one(
        services.db, "get_observation_state", workspace=workspace, id=france.id
    )
    assert row is None and said, row
