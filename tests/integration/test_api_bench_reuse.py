"""`bench api --synthetic --reuse-workspace`: a kept corpus is searched again without a fill,
and only when it is the corpus the arguments generate."""

from __future__ import annotations

import argparse
import zlib
from typing import Any

import pytest

from resolvers.services import Services
from tests.bench.api_synthetic import run_synthetic
from tests.bench.message_corpus import PEER_SEED
from tests.bench.synthetic import scope_sizes

pytestmark = pytest.mark.integration


def _args(**overrides: Any) -> argparse.Namespace:
    values: dict[str, Any] = {
        "sessions": 6,
        "peers": 4,
        "size_list": [120, 240],
        "seed": 5,
        "warmup": 2,
        "fill_batch": 100,
        "rebuild_vector_index": False,
        "queries": 4,
        "workspace_queries": 2,
        "reuse_workspace": None,
    }
    return argparse.Namespace(**(values | overrides))


def _fits(seed: int) -> bool:
    """The corpus of `seed` can be made at the smallest size: a seed may give the dormant scopes
    more than 120 messages between them (about one seed in 600 does)."""
    args = _args()
    try:
        scope_sizes(args.size_list[0], args.sessions, seed)
        scope_sizes(args.size_list[0], args.peers, seed + PEER_SEED)
    except ValueError:
        return False
    return True


def _seed_of(workspace: str) -> int:
    """A seed of the workspace's own whose next seed fits too (the test refuses that one)."""
    seed = zlib.crc32(workspace.encode()) % 1_000_000
    while not (_fits(seed) and _fits(seed + 1)):
        seed += 1
    return seed


async def test_a_kept_corpus_is_searched_again_without_a_fill(
    services: Services, workspace: str
) -> None:
    db = services.db
    # Message ids follow from the seed and are unique in the database: a seed of this
    # workspace's own, so a second run of the suite on the same database fills anew.
    seed = _seed_of(workspace)
    first = await run_synthetic(db, _args(seed=seed), workspace, [])
    assert [m["size"] for m in first["measures"]] == [120, 240]
    assert first["measures"][-1]["fill"]["added"] == 120

    again = await run_synthetic(db, _args(seed=seed, reuse_workspace=workspace), workspace, [])
    [measure] = again["measures"]
    assert measure["size"] == 240
    assert measure["fill"]["reused"] and measure["fill"]["added"] == 0
    searched = measure["search"]["session"]
    assert searched and all(s["queries"] > 0 for s in searched.values())

    # Another corpus than the one stored: refused, not measured.
    with pytest.raises(SystemExit, match="is not the one this corpus generates"):
        await run_synthetic(db, _args(reuse_workspace=workspace, seed=seed + 1), workspace, [])
    with pytest.raises(SystemExit, match="holds 240 messages, not 300"):
        await run_synthetic(
            db, _args(seed=seed, reuse_workspace=workspace, size_list=[120, 300]), workspace, []
        )
