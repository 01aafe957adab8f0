"""A purge that stopped half-way (its process died, or Neo4j failed it) is finished by a worker
once its record's lease runs out; before, it stayed half done until the app purged again."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from datetime import timedelta

import pytest

from graph.errors import Conflict, NotFound
from graph.repo import members, peers, purges, workspaces
from graph.repo.sessions import MemberSettings
from graph.settings import Settings
from graph.validation import now
from reasoners.peers import merges, purge, purge_resume, splits
from reasoners.peers.purge_leases import under_record
from reasoners.peers.splits import Part
from resolvers.services import Services
from tests import statements
from tests.integration.derive_helpers import make_peers, make_session, post
from tests.integration.restructure_helpers import run_all
from tests.integration.test_restructure import (
    Interrupted,
    Watch,
    beliefs,
    card_on_paris,
    chain,
    counts,
    dreams_queued,
)

pytestmark = pytest.mark.integration

EXPIRED = timedelta(0)  # a lease that has run out at once
LEASE = timedelta(seconds=0.3)


def batched(s: Services, batch: int) -> Settings:
    """The settings with purges of `batch` nodes per transaction."""
    return replace(s.settings, purge_batch=batch)


async def test_an_interrupted_purge_is_finished_by_a_worker(
    services: Services, workspace: str
) -> None:
    c = await chain(services, workspace)
    s = c.services
    with pytest.raises(Interrupted):
        await purge.purge_peer(
            s.db,
            batched(s, 2),
            workspace,
            "alice",
            Watch(s, workspace, stop_after=3),
        )
    half = await counts(s, workspace)
    assert half["Purge"] == 1 and half["Peer"] > 0 and beliefs(half) > 0

    watch = Watch(s, workspace)
    # It failed in its process, which gave up the lease: the next look takes it up.
    assert (
        await purge_resume.resume_interrupted(
            s.db, batched(s, 2), workspace=workspace, checkpoint=watch
        )
        == 1
    )
    left = await counts(s, workspace)
    assert beliefs(left) == 0 and "Message" not in left and "Purge" not in left
    assert watch.batches > 0 and watch.unsupported == 0
    with pytest.raises(NotFound):
        await peers.get(s.db, workspace, "alice")


async def test_a_purge_whose_process_died_waits_out_its_lease_and_blocks_another(
    services: Services, workspace: str
) -> None:
    """A process that died after writing the record (no release): its lease still runs."""
    c = await chain(services, workspace)
    s = c.services
    await purges.begin_peer(s.db, workspace, "alice", lease=purge.PURGE_LEASE)
    assert await purge_resume.resume_interrupted(s.db, batched(s, 2), workspace=workspace) == 0
    with pytest.raises(Conflict, match="'alice' is already being purged"):
        await purge.purge_peer(s.db, batched(s, 2), workspace, "alice")
    await statements.write(s.db, "expire_purge", id=await record_id(s, workspace), now=now())
    assert await purge_resume.resume_interrupted(s.db, batched(s, 2), workspace=workspace) == 1
    assert "Purge" not in await counts(s, workspace)


async def test_purging_a_peer_again_after_its_purge_failed_finishes_that_purge(
    services: Services, workspace: str
) -> None:
    c = await chain(services, workspace)
    s = c.services
    before = await counts(s, workspace)
    with pytest.raises(Interrupted):
        await purge.purge_peer(
            s.db,
            batched(s, 2),
            workspace,
            "alice",
            Watch(s, workspace, stop_after=3),
        )
    await record_id(s, workspace)

    report = await purge.purge_peer(s.db, batched(s, 2), workspace, "alice")

    left = await counts(s, workspace)
    assert "Purge" not in left and "Message" not in left and beliefs(left) == 0
    # The record taken over (no second one left behind); the report counts what this call
    # erased (the first had tombstoned, not yet deleted, the messages).
    assert report.peers == 1 and report.messages == before["Message"]


async def test_a_run_whose_lease_ran_out_cannot_release_or_renew_the_next_ones(
    services: Services, workspace: str
) -> None:
    """Releasing cleared the lease whoever held it: a run that had lost its lease to a worker
    freed the record under the worker, and a third run purged beside it."""
    await make_peers(services, workspace, "alice")
    db = services.db
    first = await purges.begin_peer(db, workspace, "alice", lease=EXPIRED)
    worker = await purges.claim_interrupted(db, purge.PURGE_LEASE, workspace=workspace)
    assert worker is not None and worker.id == first.id and worker.owner != first.owner
    await purges.release(db, first)
    await purges.extend(db, first, EXPIRED)
    with pytest.raises(Conflict, match="already being purged"):
        await purges.begin_peer(db, workspace, "alice", lease=purge.PURGE_LEASE)
    await purges.release(db, worker.held)
    taken = await purges.begin_peer(db, workspace, "alice", lease=purge.PURGE_LEASE)
    assert taken.id == first.id


async def record_ids(s: Services, workspace: str) -> list[str]:
    return [str(r["id"]) for r in await statements.read(s.db, "purge_records", workspace=workspace)]


async def record_id(s: Services, workspace: str) -> str:
    [ident] = await record_ids(s, workspace)
    return ident


async def test_concurrent_purges_of_one_peer_run_one_and_count_each_node_once(
    services: Services, workspace: str
) -> None:
    """Each purge counted the nodes its statements matched, another deleted some of them first:
    three at once reported more messages than there were."""
    await make_peers(services, workspace, "alice")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    await post(services, workspace, "s1", *[("alice", f"Message number {i}.") for i in range(40)])
    results = await asyncio.gather(
        *(
            purge.purge_peer(services.db, batched(services, 5), workspace, "alice")
            for _ in range(3)
        ),
        return_exceptions=True,
    )
    reports = [r for r in results if isinstance(r, purge.PurgeReport)]
    refused = [r for r in results if isinstance(r, Conflict | NotFound)]
    assert len(reports) == 1 and len(refused) == 2, results
    assert reports[0].messages == 40 and reports[0].peers == 1
    assert "Message" not in await counts(services, workspace)


async def test_concurrent_purges_of_the_same_messages_run_one(
    services: Services, workspace: str
) -> None:
    """Three purges of the same 40 messages at once reported 120-odd messages between them."""
    await make_peers(services, workspace, "alice")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    await post(services, workspace, "s1", *[("alice", f"Message number {i}.") for i in range(40)])
    rows = await statements.read(services.db, "list_message_ids", workspace=workspace)
    ids = [str(r["id"]) for r in rows]
    results = await asyncio.gather(
        *(purge.purge_messages(services.db, batched(services, 5), workspace, ids) for _ in "abc"),
        return_exceptions=True,
    )
    reports = [r for r in results if isinstance(r, purge.PurgeReport)]
    refused = [r for r in results if isinstance(r, Conflict | NotFound)]
    assert len(reports) == 1 and len(refused) == 2, results
    assert reports[0].messages == 40


async def test_a_peer_made_again_after_its_purge_is_not_erased_by_the_record(
    services: Services, workspace: str
) -> None:
    """The purge deleted the peer (its last step) and stopped before deleting its record."""
    await make_peers(services, workspace, "alice")
    await purges.begin_peer(services.db, workspace, "alice", lease=EXPIRED)
    await services.db.write("delete_peer", workspace=workspace, peer="alice")
    await make_peers(services, workspace, "alice")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    await post(services, workspace, "s1", ("alice", "I am new here."))
    assert (
        await purge_resume.resume_interrupted(
            services.db, batched(services, 5), workspace=workspace
        )
        == 1
    )
    kinds = await counts(services, workspace)
    assert kinds["Message"] == 1 and "Purge" not in kinds
    await peers.get(services.db, workspace, "alice")


async def test_a_resumed_purge_that_fails_waits_longer_before_its_next_try(
    services: Services, workspace: str
) -> None:
    c = await chain(services, workspace)
    s = c.services
    with pytest.raises(Interrupted):
        await purge.purge_messages(
            s.db,
            batched(s, 1),
            workspace,
            [c.paris_message],
            Watch(s, workspace, stop_after=1),
            lease=EXPIRED,
        )
    failing = Watch(s, workspace, stop_after=1)
    assert (
        await purge_resume.resume_interrupted(
            s.db, batched(s, 1), workspace=workspace, checkpoint=failing
        )
        == 1
    )
    # It failed (Interrupted); its record now waits out a backoff instead of the lease of 0.
    assert await purge_resume.resume_interrupted(s.db, batched(s, 1), workspace=workspace) == 0
    assert (await counts(s, workspace))["Purge"] == 1


async def test_a_purge_whose_end_fails_waits_out_a_backoff(
    services: Services, workspace: str
) -> None:
    """A failure of the purge's end (the transaction deleting its record) kept the record's
    lease: a worker took it up again each time that lease ran out, for ever, with no wait
    growing between tries."""
    await make_peers(services, workspace, "alice")
    await purges.begin_peer(services.db, workspace, "alice", lease=EXPIRED)
    record = await purges.claim_interrupted(services.db, LEASE, workspace=workspace)
    assert record is not None

    async def nothing() -> None:
        return None

    async def end_fails() -> None:
        raise Conflict("changed meanwhile")

    with pytest.raises(Conflict):
        await under_record(services.db, record.held, LEASE, nothing, end_fails,
                           retry_in=timedelta(hours=1))  # fmt: skip
    await asyncio.sleep(LEASE.total_seconds() + 0.3)
    assert await purges.claim_interrupted(services.db, LEASE, workspace=workspace) is None


@dataclass
class StopAt:
    """A checkpoint that interrupts the purge after its `batch`th committed batch."""

    batch: int

    async def committed(self) -> None:
        self.batch -= 1
        if self.batch == 0:
            raise Interrupted


async def test_a_purge_a_worker_finishes_schedules_the_dreams_of_the_cards_it_deletes(
    services: Services, workspace: str
) -> None:
    """The dream that writes a deleted card again was queued by the mutation after the purge
    returned: a purge a worker finished after a crash queued none."""
    c = await chain(services, workspace)
    s = c.services
    await card_on_paris(c, workspace)
    waiting = await dreams_queued(s, workspace)
    with pytest.raises(Interrupted):  # after its first tombstone, before the card goes
        await purge.purge_messages(
            s.db, batched(s, 1), workspace, [c.paris_message], StopAt(1), lease=EXPIRED
        )
    assert (await counts(s, workspace))["card"] == 1
    assert await purge_resume.resume_interrupted(s.db, batched(s, 1), workspace=workspace) == 1
    assert "card" not in await counts(s, workspace)
    assert await dreams_queued(s, workspace) == waiting + 1


async def test_a_workspace_deleted_takes_its_purge_records(
    services: Services, workspace: str
) -> None:
    await make_peers(services, workspace, "alice")
    await purges.begin_peer(services.db, workspace, "alice", lease=EXPIRED)
    await workspaces.delete(services.db, workspace)
    assert (
        await purge_resume.resume_interrupted(
            services.db, batched(services, 5), workspace=workspace
        )
        == 0
    )


async def test_a_peer_being_purged_cannot_be_renamed_merged_or_split(
    services: Services, workspace: str
) -> None:
    """Renamed half-purged, the peer's record found no peer of its name and was dropped: the
    rest of it escaped the purge."""
    await make_peers(services, workspace, "alice", "bob")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    await purges.begin_peer(services.db, workspace, "alice", lease=EXPIRED)
    s = services.settings
    for start in (
        merges.start(services.db, s, workspace, merges.Operation(["alice"], "alicia", False)),
        merges.start(services.db, s, workspace, merges.Operation(["alice"], "bob", True)),
        merges.start(services.db, s, workspace, merges.Operation(["bob"], "alice", True)),
        splits.start(services.db, s, workspace, splits.Split("alice", [Part("a2", ["s1"])])),
    ):
        with pytest.raises(Conflict, match="'alice' is being purged"):
            await start
    # Once the worker has finished the purge, the name is free.
    assert (
        await purge_resume.resume_interrupted(
            services.db, batched(services, 5), workspace=workspace
        )
        == 1
    )
    await make_peers(services, workspace, "alice")
    await merges.start(services.db, s, workspace, merges.Operation(["alice"], "alicia", False))


class SlowBatch:
    """A checkpoint whose first call takes `seconds` (a batch waiting long on locks)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.calls = 0

    async def committed(self) -> None:
        self.calls += 1
        if self.calls == 1:
            await asyncio.sleep(self.seconds)


async def test_a_running_purge_keeps_its_lease_however_long_a_batch_takes(
    services: Services, workspace: str
) -> None:
    """The lease was renewed only as batches committed: a batch longer than the lease let a
    worker take the purge up beside the one still running."""
    await make_peers(services, workspace, "alice")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    await post(services, workspace, "s1", ("alice", "I am here."))
    lease = timedelta(seconds=1)
    running = asyncio.ensure_future(
        purge.purge_peer(
            services.db,
            batched(services, 5),
            workspace,
            "alice",
            SlowBatch(3.0),
            lease=lease,
        )
    )
    await asyncio.sleep(2.0)
    assert not running.done()
    assert (
        await purge_resume.resume_interrupted(
            services.db, batched(services, 5), workspace=workspace, lease=lease
        )
        == 0
    )
    report = await running
    assert report.peers == 1 and "Purge" not in await counts(services, workspace)


class WritesOnce:
    """A checkpoint that posts a message as the purged peer after the first batch commits:
    a write arriving while the purge runs, after its last look."""

    def __init__(self, services: Services, workspace: str) -> None:
        self.services, self.workspace, self.done = services, workspace, False

    async def committed(self) -> None:
        if not self.done:
            self.done = True
            await post(self.services, self.workspace, "s1", ("alice", "Sent while purged."))


async def test_what_arrives_while_a_peer_is_purged_is_erased_too(
    services: Services, workspace: str
) -> None:
    """The purge deleted the peer once a round found nothing left: a message sent meanwhile
    stayed, readable, naming a peer that no longer existed."""
    await make_peers(services, workspace, "alice")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    writes = WritesOnce(services, workspace)
    report = await purge.purge_peer(services.db, batched(services, 5), workspace, "alice", writes)
    assert writes.done and report.peers == 1 and report.messages == 1
    assert "Message" not in await counts(services, workspace)


async def test_a_peer_a_queued_merge_changes_cannot_be_purged_meanwhile(
    services: Services, workspace: str
) -> None:
    """Accepted, the purge deleted the merge's next step: the source survived, half merged."""
    await make_peers(services, workspace, "a", "b")
    s = services.settings
    await merges.start(services.db, s, workspace, merges.Operation(["b"], "a", True))
    for peer in ("a", "b"):
        with pytest.raises(Conflict, match="already being renamed, merged or split"):
            await purge.purge_peer(services.db, batched(services, 5), workspace, peer)
    await run_all(services, workspace)
    assert (await purge.purge_peer(services.db, batched(services, 5), workspace, "a")).peers == 1


async def test_a_peer_with_sub_peers_is_purged_only_once_they_are_gone_or_unlinked(
    services: Services, workspace: str
) -> None:
    """A split's part kept what the peer said in its sessions, and a copy of its metadata,
    when the peer was purged (the review): erasing one peer left its words in another."""
    await make_peers(services, workspace, "alice", "bob")
    await make_session(services, workspace, "work", [MemberSettings("alice")])
    await post(services, workspace, "work", ("alice", "I work nights."))
    await splits.start(
        services.db,
        services.settings,
        workspace,
        splits.Split("alice", [Part("alice-work", ["work"])]),
    )
    await run_all(services, workspace)
    await members.add(services.db, workspace, "alice", "bob", max_depth=8)
    with pytest.raises(Conflict, match=r"sub-peers \('alice-work', 'bob'\)"):
        await purge.purge_peer(services.db, batched(services, 5), workspace, "alice")
    assert await peers.get(services.db, workspace, "alice")  # nothing erased
    await purge.purge_peer(services.db, batched(services, 5), workspace, "alice-work")
    assert await members.remove(services.db, workspace, "alice", "bob")
    report = await purge.purge_peer(services.db, batched(services, 5), workspace, "alice")
    assert report.peers == 1
    assert (await peers.get(services.db, workspace, "bob")).name == "bob"  # kept, unlinked
