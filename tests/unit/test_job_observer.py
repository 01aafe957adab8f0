"""Who a dream job's `observer` is shown to (pure)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graph.repo.jobs import JobRecord
from resolvers.auth import KeyScope, Principal
from resolvers.graphql.queue import _observer

pytestmark = pytest.mark.unit

STAMP = datetime(2026, 1, 2, tzinfo=UTC)


def job(kind: str, observer: str | None) -> JobRecord:
    payload = {} if observer is None else {"observer": observer, "observed": "alice"}
    return JobRecord(
        "j1", "w", kind, "dream/w/x", 1, "pending", 0, 5, payload, None, "alice", 0, None,
        STAMP, STAMP, STAMP,
    )  # fmt: skip


def test_a_dream_jobs_observer_is_named_to_keys_that_may_know_it() -> None:
    dream = job("dream", "bob")
    assert _observer(dream, Principal(KeyScope.ADMIN)) == "bob"
    assert _observer(dream, Principal(KeyScope.WORKSPACE, workspace="w")) == "bob"
    # alice's key lists her jobs; who else observes her is not its to learn.
    alice = Principal(KeyScope.PEER, workspace="w", peer="alice")
    assert _observer(dream, alice) is None
    assert _observer(job("dream", "alice"), alice) == "alice"
    assert _observer(dream, Principal(KeyScope.SESSION, workspace="w", session="s1")) is None
    assert _observer(job("derive", None), Principal(KeyScope.ADMIN)) is None
