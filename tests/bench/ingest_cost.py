"""What passages add to addMessages' wall time, both ways in the same run.

The same turns go through addMessages twice, each time into a scratch workspace of its own:
once through an app with passages on, once through one with them off
(BELIEFGRAPH_MESSAGE_PASSAGES). Batches alternate between the two, and which goes first
alternates too, so load that comes and goes falls on both alike. The vectors are ready in the
memo beforehand, so this is the store's cost (validation, the transaction, the passage lists
written); the model's cost is timed apart (memory_bench.time_embedder).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence

from tests.bench.ingest import (
    ADD_MESSAGES,
    CREATE_PEER,
    CREATE_SESSION,
    CREATE_WORKSPACE,
    Api,
    batches,
    delete_workspace,
)

SPEAKERS = ("user", "assistant")
SESSION = "ingest-cost"


async def _scratch(api: Api, workspace: str) -> None:
    await api.call(CREATE_WORKSPACE, {"name": workspace, "metadata": {"bench": "ingest cost"}})
    for peer in SPEAKERS:
        await api.call(CREATE_PEER, {"w": workspace, "name": peer})
    await api.call(
        CREATE_SESSION,
        {"w": workspace, "name": SESSION, "peers": [{"peer": p} for p in SPEAKERS]},
    )


async def time_ingest(
    with_passages: Api, without: Api, texts: Sequence[str], batch: int, prefix: str
) -> dict[str, float]:
    """addMessages wall time per message with and without passages, over the same ``texts``
    (turns alternate between the two speakers) sent in calls of ``batch``."""
    token = secrets.token_hex(4)
    apis = {"with": with_passages, "without": without}
    names = {mode: f"{prefix}-ingest-cost-{mode}-{token}" for mode in apis}
    seconds = dict.fromkeys(apis, 0.0)
    items = [
        {"peer": SPEAKERS[i % 2], "content": text, "clientId": f"cost:{i}"}
        for i, text in enumerate(texts)
    ]
    made: list[str] = []
    try:
        for mode, api in apis.items():
            made.append(mode)
            await _scratch(api, names[mode])
        for index, chunk in enumerate(batches(items, batch)):
            order = list(apis) if index % 2 == 0 else list(reversed(apis))
            for mode in order:
                variables = {"w": names[mode], "s": SESSION, "messages": chunk}
                start = time.perf_counter()
                await apis[mode].call(ADD_MESSAGES, variables)
                seconds[mode] += time.perf_counter() - start
    finally:
        for mode in made:
            await delete_workspace(apis[mode], names[mode])
    count = len(items) or 1
    return {
        "messages": float(len(items)),
        "batch": float(batch),
        "ms_per_message": 1000 * seconds["with"] / count,
        "ms_per_message_without_passages": 1000 * seconds["without"] / count,
    }
