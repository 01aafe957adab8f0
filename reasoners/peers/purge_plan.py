"""What a purge has left to erase: the plan each of its rounds reads, in its transaction."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from graph.db import Tx

Row = dict[str, Any]


@dataclass(frozen=True)
class Plan:
    """What is left to erase: messages (id, session, seq), and the beliefs (id, level,
    observer, observed, premises) derived from them or held by or about the peer."""

    messages: list[Row]
    derived: list[Row]

    @property
    def empty(self) -> bool:
        return not self.messages and not self.derived


PlanLeft = Callable[[Tx], Awaitable[Plan]]


def messages_left(workspace: str, ids: list[str]) -> PlanLeft:
    async def left(tx: Tx) -> Plan:
        return Plan(
            await tx.rows("list_messages_to_purge", workspace=workspace, ids=ids),
            await tx.rows("find_message_derivations", workspace=workspace, ids=ids),
        )

    return left


def peer_left(workspace: str, peer: str) -> PlanLeft:
    async def left(tx: Tx) -> Plan:
        return Plan(
            await tx.rows("list_peer_messages", workspace=workspace, peer=peer),
            await tx.rows("find_peer_derivations", workspace=workspace, peer=peer),
        )

    return left
