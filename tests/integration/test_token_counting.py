"""Token counting runs off the event loop, on threads of its own.

A batch of 100 messages of 25,000 characters took about 1.2 s to count; counted on the event
loop, addMessages stalled every other request of the server for that long. An edit counts its
new text, and `context` counts every belief and card line and message prefix it packs. In the
default thread pool, counting would queue behind embedding calls waiting for the model.
"""

from __future__ import annotations

import dataclasses
import threading

import pytest

from graph.repo import messages, peer_cards
from graph.repo.messages import MessageFilter
from graph.repo.sessions import MemberSettings
from reasoners.context.assemble import ContextRequest, get_context
from reasoners.embeddings.tokens import TokenCounter
from reasoners.peers.invalidation import edit_message
from resolvers.services import Services
from tests.integration.derive_helpers import make_peers, make_session, post

pytestmark = pytest.mark.integration


class ThreadRecordingCounter:
    """Counts as the real counter does, noting the thread of each call."""

    def __init__(self, inner: TokenCounter) -> None:
        self.inner = inner
        self.threads: list[int] = []
        self.names: set[str] = set()

    def count(self, text: str) -> int:
        self.threads.append(threading.get_ident())
        self.names.add(threading.current_thread().name.split("_")[0])
        return self.inner.count(text)

    def on_loop(self) -> int:
        """How many counts ran on the event loop's thread (this test's)."""
        loop = threading.get_ident()
        return sum(1 for t in self.threads if t == loop)


async def test_messages_edits_and_context_count_tokens_off_the_loop(
    services: Services, workspace: str
) -> None:
    counter = ThreadRecordingCounter(services.tokens)
    counted = dataclasses.replace(services, tokens=counter)
    await make_peers(services, workspace, "alice", "agent")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    await peer_cards.set_card(services.db, workspace, "agent", "alice", ["Lives in Lisbon"])

    await post(counted, workspace, "s1", ("alice", "I live in Lisbon."), ("alice", "I cook."))
    assert len(counter.threads) == 2 and counter.on_loop() == 0

    listed = await messages.list_page(
        services.db, workspace, MessageFilter(session="s1"), after=None, limit=1
    )
    await edit_message(
        services.db,
        services.embedder,
        counter,
        services.settings,
        workspace,
        listed.items[0].id,
        "I live in Porto.",
    )
    assert len(counter.threads) == 3 and counter.on_loop() == 0

    request = ContextRequest(
        workspace, 2000, session="s1", peer_target="alice", peer_perspective="agent"
    )
    found = await get_context(services.db, services.embedder, counter, request)
    assert "Lives in Lisbon" in found.text
    assert len(counter.threads) > 3 and counter.on_loop() == 0
    assert counter.names == {"tokens"}
