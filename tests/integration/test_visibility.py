"""An observer sees what arrived while it was present: joining a session does not open its
past, leaving closes what comes after (theory-of-mind scoping for raw messages)."""

from __future__ import annotations

import pytest

from graph.repo import sessions
from graph.repo.sessions import MemberSettings
from reasoners.dialectic.evidence import View
from reasoners.dialectic.tools import Toolbox
from resolvers.services import Services
from tests.integration.derive_helpers import make_peers, make_session, post

pytestmark = pytest.mark.integration


async def test_dialectic_tools_see_only_messages_sent_while_the_observer_was_present(
    services: Services, workspace: str
) -> None:
    await make_peers(services, workspace, "alice", "bob")
    await make_session(services, workspace, "s", [MemberSettings("bob")])
    await post(services, workspace, "s", ("bob", "Before alice came: my locker code is 4711."))
    await sessions.add_peers(services.db, workspace, "s", [MemberSettings("alice")])
    await post(services, workspace, "s", ("bob", "Now that alice is here: the locker is blue."))
    await sessions.remove_peers(services.db, workspace, "s", ["alice"])
    await post(services, workspace, "s", ("bob", "After alice left: the locker moved to B4."))

    alice = Toolbox(services.db, services.embedder, View(workspace, "alice", "bob"))
    grep = await alice.grep_messages("locker")
    assert [i.message.content for i in grep.items] == [
        "Now that alice is here: the locker is blue."
    ]
    dated = await alice.messages_by_date()
    assert [i.message.content for i in dated.items] == [
        "Now that alice is here: the locker is blue."
    ]
    # bob's own view of himself has everything.
    bob = Toolbox(services.db, services.embedder, View(workspace, "bob", "bob"))
    assert len((await bob.grep_messages("locker")).items) == 3
