"""`bench api --synthetic --reuse-workspace`: a kept corpus is searched again without a fill,
and only when it is the corpus the arguments generate."""

from __future__ import annotations

import argparse
import zlib
from typing import Any

import pytest

from resolvers.services import Services
from tests.bench.api_synthetic import run_synthetic

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


async def test_a_kept_corpus_is_searched_again_without_a_fill(
    services: Services, workspace: str
) -> None:
    db = services.db
    # Message ids follow from the seed and are unique in the database: a seed of this
    # workspace's own, so a second run of the suite on the same database fills anew.
    seed = zlib.crc32(workspace.encode()) % 1_000_000
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
