"""Sub-peers on the real graph: MEMBER_OF adds checked for cycles and chain length inside the
Cypher write (racing adds included), many-to-many trees, listing by depth, and the GraphQL
surface."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from graph.errors import InvalidInput, NotFound
from graph.repo import job_admin, members, peer_cards, peers
from reasoners.peers import merges
from resolvers.services import Services
from tests.conftest import GraphQLClient
from tests.integration.derive_helpers import make_peers
from tests.integration.restructure_helpers import run_all

pytestmark = pytest.mark.integration

MAX = 10


async def add(services: Services, workspace: str, parent: str, child: str) -> bool:
    return await members.add(services.db, workspace, parent, child, max_depth=MAX)


async def names_below(services: Services, workspace: str, peer: str, depth: int) -> list[str]:
    found = (await members.below(services.db, workspace, peer, depth=depth, limit=100)).items
    return [f"{r.peer.name}@{r.distance}" for r in found]


async def test_cycles_are_refused_self_direct_and_indirect(
    services: Services, workspace: str
) -> None:
    await make_peers(services, workspace, "a", "b", "c")
    with pytest.raises(InvalidInput, match="its own sub-peer"):
        await add(services, workspace, "a", "a")
    assert await add(services, workspace, "a", "b")  # b under a
    with pytest.raises(InvalidInput, match="would make a cycle"):
        await add(services, workspace, "b", "a")
    assert await add(services, workspace, "b", "c")  # c under b
    with pytest.raises(InvalidInput, match="would make a cycle"):
        await add(services, workspace, "c", "a")
    assert await names_below(services, workspace, "a", members.ALL) == ["b@1", "c@2"]
    # Adding an edge that exists changes nothing; removing one that does not, neither.
    assert not await add(services, workspace, "a", "b")
    assert not await members.remove(services.db, workspace, "c", "a")
    assert await members.remove(services.db, workspace, "b", "c")
    assert await add(services, workspace, "c", "b") is True  # no longer a cycle
    with pytest.raises(NotFound, match="'nobody'"):
        await add(services, workspace, "a", "nobody")


async def test_of_two_racing_opposite_adds_exactly_one_wins(
    services: Services, workspace: str
) -> None:
    pairs = [(f"x{i}", f"y{i}") for i in range(8)]
    await make_peers(services, workspace, *[name for pair in pairs for name in pair])

    async def attempt(parent: str, child: str) -> bool:
        try:
            return await add(services, workspace, parent, child)
        except InvalidInput:
            return False

    for x, y in pairs:
        won = await asyncio.gather(attempt(x, y), attempt(y, x))
        assert sorted(won) == [False, True], (x, y, won)
        above_x = (
            await members.above(services.db, workspace, x, depth=members.ALL, limit=10)
        ).items
        above_y = (
            await members.above(services.db, workspace, y, depth=members.ALL, limit=10)
        ).items
        assert len(above_x) + len(above_y) == 1


async def test_a_chain_longer_than_the_limit_is_refused_where_two_chains_meet(
    services: Services, workspace: str
) -> None:
    await make_peers(services, workspace, *"abcdef")
    for parent, child in ("ab", "bc"):
        await members.add(services.db, workspace, parent, child, max_depth=4)
    await members.add(services.db, workspace, "d", "e", max_depth=4)
    # a-b-c above, d-e below: joining c over d makes a chain of 2 + 1 + 1 = 4 edges.
    await members.add(services.db, workspace, "c", "d", max_depth=4)
    with pytest.raises(InvalidInput, match="would be 5 long; the limit is 4"):
        await members.add(services.db, workspace, "e", "f", max_depth=4)


async def test_many_to_many_trees_list_by_depth(services: Services, workspace: str) -> None:
    await make_peers(services, workspace, "team", "alice", "bob", "alice-dm", "alice-group")
    for parent, child in [
        ("team", "alice"),
        ("team", "bob"),
        ("alice", "alice-dm"),
        ("alice", "alice-group"),
        ("bob", "alice-group"),  # two parents
    ]:
        await add(services, workspace, parent, child)
    assert await names_below(services, workspace, "team", 1) == ["alice@1", "bob@1"]
    assert await names_below(services, workspace, "team", members.ALL) == [
        "alice@1",
        "bob@1",
        "alice-dm@2",
        "alice-group@2",
    ]
    assert await names_below(services, workspace, "alice-dm", members.ALL) == []
    above = (await members.above(services.db, workspace, "alice-group", depth=1, limit=10)).items
    assert [(r.peer.name, r.distance) for r in above] == [("alice", 1), ("bob", 1)]
    above = (await members.above(services.db, workspace, "alice-group", depth=2, limit=10)).items
    assert [(r.peer.name, r.distance) for r in above] == [("alice", 1), ("bob", 1), ("team", 2)]


async def test_graphql_adds_lists_and_refuses_with_codes(
    gql: GraphQLClient, services: Services, workspace: str
) -> None:
    await make_peers(services, workspace, "alice", "alice-dm")
    add_doc = """mutation($w: String!, $p: String!, $c: String!) {
      addSubPeer(workspace: $w, parent: $p, child: $c) { parent child changed }
    }"""
    data = await gql.ok(add_doc, {"w": workspace, "p": "alice", "c": "alice-dm"})
    assert data["addSubPeer"] == {"parent": "alice", "child": "alice-dm", "changed": True}
    assert await gql.error_code(add_doc, {"w": workspace, "p": "alice-dm", "c": "alice"}) == (
        "INVALID_INPUT"
    )
    assert await gql.error_code(add_doc, {"w": workspace, "p": "alice", "c": "ghost"}) == (
        "NOT_FOUND"
    )
    list_doc = """query($w: String!, $d: Depth) {
      subPeers(workspace: $w, peer: "alice", depth: $d) { peer { name } distance }
      parentPeers(workspace: $w, peer: "alice-dm", depth: $d) { peer { name } distance }
    }"""
    for depth in (1, "ALL"):
        data = await gql.ok(list_doc, {"w": workspace, "d": depth})
        assert data["subPeers"] == [{"peer": {"name": "alice-dm"}, "distance": 1}]
        assert data["parentPeers"] == [{"peer": {"name": "alice"}, "distance": 1}]
    literal = """query($w: String!) {
      a: subPeers(workspace: $w, peer: "alice", depth: ALL) { distance }
      b: subPeers(workspace: $w, peer: "alice", depth: "ALL") { distance }
      c: subPeers(workspace: $w, peer: "alice", depth: 2) { distance }
    }"""
    assert await gql.ok(literal, {"w": workspace}) == {
        "a": [{"distance": 1}],
        "b": [{"distance": 1}],
        "c": [{"distance": 1}],
    }
    data = await gql.ok(list_doc, {"w": workspace, "d": 0})
    assert data == {"subPeers": [], "parentPeers": []}
    for bad in (-1, "some", 1.5, True):
        body = await gql.raw(list_doc, {"w": workspace, "d": bad})
        assert body["errors"][0]["extensions"]["code"] == "INVALID_INPUT", (bad, body)
    remove_doc = """mutation($w: String!) {
      removeSubPeer(workspace: $w, parent: "alice", child: "alice-dm") { changed }
    }"""
    assert (await gql.ok(remove_doc, {"w": workspace}))["removeSubPeer"] == {"changed": True}
    assert (await gql.ok(remove_doc, {"w": workspace}))["removeSubPeer"] == {"changed": False}


async def test_a_page_cursor_with_its_distance_survives_its_peer_leaving(
    gql: GraphQLClient, services: Services, workspace: str
) -> None:
    """`after` alone is refused once its peer has left the list; with `afterDistance` the list
    goes on from that peer's place, in both directions, at every distance."""
    await make_peers(services, workspace, "team", "a", "b", "c", "d", "x1", "x2")
    for child in ("a", "b", "c", "d"):
        await members.add(services.db, workspace, "team", child, max_depth=10)
    await members.add(services.db, workspace, "a", "x1", max_depth=10)
    await members.add(services.db, workspace, "b", "x2", max_depth=10)
    doc = """query($w: String!, $p: String!, $after: String, $d: Int) {
      subPeers(workspace: $w, peer: $p, depth: ALL, first: 2, after: $after,
               afterDistance: $d) { peer { name } distance }
    }"""
    first = (await gql.ok(doc, {"w": workspace, "p": "team"}))["subPeers"]
    assert [(r["peer"]["name"], r["distance"]) for r in first] == [("a", 1), ("b", 1)]
    await members.remove(services.db, workspace, "team", "b")  # b, and x2 below it, leave
    vars = {"w": workspace, "p": "team", "after": "b"}
    assert await gql.error_code(doc, vars) == "INVALID_INPUT"
    rest = (await gql.ok(doc, {**vars, "d": 1, "first": 10}))["subPeers"]
    assert [r["peer"]["name"] for r in rest] == ["c", "d"]
    deeper = (await gql.ok(doc, {**vars, "after": "c", "d": 1}))["subPeers"]
    assert [(r["peer"]["name"], r["distance"]) for r in deeper] == [("d", 1), ("x1", 2)]
    up = """query($w: String!, $p: String!, $after: String, $d: Int) {
      parentPeers(workspace: $w, peer: $p, depth: ALL, after: $after, afterDistance: $d) {
        peer { name } }
    }"""
    above = await gql.ok(up, {"w": workspace, "p": "x1", "after": "ghost", "d": 1})
    assert [r["peer"]["name"] for r in above["parentPeers"]] == ["team"]
    for bad in ({"d": 1}, {"after": "a", "d": 0}, {"after": "a", "d": 33}):
        assert await gql.error_code(doc, {"w": workspace, "p": "team", **bad}) == "INVALID_INPUT"


async def test_sub_peer_lists_page_past_any_cap_and_name_a_missing_peer(
    gql: GraphQLClient, services: Services, workspace: str
) -> None:
    """subPeers stopped at `first` (100 at most) with no way on, and a peer that does not
    exist listed nothing, as one with no sub-peers does."""
    children = [f"c{i:02}" for i in range(7)]
    await make_peers(services, workspace, "team", *children)
    for child in children:
        await members.add(services.db, workspace, "team", child, max_depth=10)
    doc = """query($w: String!, $p: String!, $after: String) {
      subPeers(workspace: $w, peer: $p, first: 3, after: $after) { peer { name } }
    }"""
    seen: list[str] = []
    after = None
    while True:
        page = (await gql.ok(doc, {"w": workspace, "p": "team", "after": after}))["subPeers"]
        if not page:
            break
        seen += [r["peer"]["name"] for r in page]
        after = seen[-1]
    assert seen == children
    code = await gql.error_code(doc, {"w": workspace, "p": "team", "after": "nobody"})
    assert code == "INVALID_INPUT"
    for missing in ("ghost",):
        assert await gql.error_code(doc, {"w": workspace, "p": missing}) == "NOT_FOUND"
        parents = """query($w: String!, $p: String!) {
          parentPeers(workspace: $w, peer: $p) { peer { name } }
        }"""
        assert await gql.error_code(parents, {"w": workspace, "p": missing}) == "NOT_FOUND"
    page = await members.above(services.db, workspace, "c03", depth=1, limit=10)
    assert ([r.peer.name for r in page.items], page.total) == (["team"], 1)


async def test_a_many_to_many_lattice_is_measured_by_its_longest_chain_and_shortest_distances(
    services: Services, workspace: str
) -> None:
    """Ten layers of three peers, each a sub-peer of every peer of the layer above: 3^9 paths
    from the bottom to the top. The chain checks walk it layer by layer and the reads measure
    each peer at its shortest distance (walking it path by path took tens of seconds at six
    peers a layer)."""
    layers = [[f"l{level}p{i}" for i in range(3)] for level in range(10)]
    await make_peers(services, workspace, *[p for layer in layers for p in layer], "x", "y")
    for upper, lower in itertools.pairwise(layers):
        for parent in upper:
            for child in lower:
                assert await add(services, workspace, parent, child)
    below = await names_below(services, workspace, "l0p0", 2)
    assert below == [*(f"{p}@1" for p in layers[1]), *(f"{p}@2" for p in layers[2])]
    assert len(await names_below(services, workspace, "l0p0", members.ALL)) == 27
    above = (await members.above(services.db, workspace, "l9p2", depth=3, limit=100)).items
    assert sorted(f"{r.peer.name}@{r.distance}" for r in above) == sorted(
        f"{p}@{9 - level}" for level in (6, 7, 8) for p in layers[level]
    )
    # The chain through a new edge counts the longest chain on each side: 9 above l9p0.
    with pytest.raises(InvalidInput, match="would be 10 long; the limit is 9"):
        await members.add(services.db, workspace, "l9p0", "x", max_depth=9)
    assert await members.add(services.db, workspace, "l9p0", "x", max_depth=10)
    # y above the lattice: a chain of 11 from y to x.
    assert await members.add(services.db, workspace, "y", "l0p1", max_depth=11)
    with pytest.raises(InvalidInput, match="would make a cycle"):
        await add(services, workspace, "x", "y")
    with pytest.raises(InvalidInput, match="would make a cycle"):
        await add(services, workspace, "l9p1", "l0p2")


async def test_a_merge_moves_sub_peer_links_only_where_an_add_could_make_them(
    services: Services, workspace: str
) -> None:
    """A merge moved the source's links with no chain-length check: four merges of chains made a
    chain of 37 edges under a limit of 10, and a fifth closed a cycle of 37, past the walks'
    32-edge bound."""
    limit = services.settings.max_peer_depth
    chain = [f"p{i}" for i in range(limit + 1)]  # `limit` edges, p0 at the top
    await make_peers(services, workspace, *chain, "q0", "q1", "x", "y", "z")
    for parent, child in itertools.pairwise(chain):
        await members.add(services.db, workspace, parent, child, max_depth=limit)
    for parent, child in ("q0", "q1"), ("x", "y"), ("y", "z"):
        await members.add(services.db, workspace, parent, child, max_depth=limit)
    # The chain's last peer into q0: q0 under the chain's next-to-last peer, with q1 below it,
    # would be a chain of limit + 1 edges.
    operation = merges.Operation([chain[-1]], "q0", True)
    await merges.start(services.db, services.settings, workspace, operation)
    # x into z: y, above z, would become z's sub-peer, a cycle.
    await merges.start(
        services.db, services.settings, workspace, merges.Operation(["x"], "z", True)
    )
    await run_all(services, workspace)
    assert await names_below(services, workspace, chain[-2], members.ALL) == []
    assert await names_below(services, workspace, "q0", members.ALL) == ["q1@1"]
    assert (
        await members.above(services.db, workspace, "q0", depth=members.ALL, limit=100)
    ).items == []
    assert await names_below(services, workspace, "y", members.ALL) == ["z@1"]
    assert await names_below(services, workspace, "z", members.ALL) == []
    # The app learns what was not moved from the operations' jobs (it was only logged).
    done = await job_admin.list_jobs(
        services.db, workspace, session=None, peer=None, statuses=None, with_errors=False, limit=100
    )
    notes = sorted(n for j in done for n in j.notes)
    assert len(notes) == 2 and all(n.startswith("sub-peer link not moved: ") for n in notes)
    assert any("cycle" in n for n in notes), notes
    # A chain of exactly the limit is still allowed.
    assert await members.add(services.db, workspace, chain[-3], "q0", max_depth=limit)


async def test_a_merge_of_a_peer_with_its_own_card_and_the_targets_card_of_it_finishes(
    services: Services, workspace: str
) -> None:
    """b's card of itself and a's card of b both became a's card of itself, in one batch: the
    unique path failed the step five times, and the merge died half done (dreams write both
    cards by themselves)."""
    await make_peers(services, workspace, "a", "b")
    await peer_cards.set_card(services.db, workspace, "b", "b", ["Name: b"])
    await peer_cards.set_card(services.db, workspace, "a", "b", ["b lives in Oslo"])
    await merges.start(
        services.db, services.settings, workspace, merges.Operation(["b"], "a", True)
    )
    await run_all(services, workspace)
    with pytest.raises(NotFound):
        await peers.get(services.db, workspace, "b")
    dead = await job_admin.list_jobs(
        services.db,
        workspace,
        session=None,
        peer=None,
        statuses=["dead"],
        with_errors=False,
        limit=10,
    )
    assert dead == []
    # The card the target wrote is the one kept.
    assert (await peer_cards.get(services.db, workspace, "a", "a")).entries == ["b lives in Oslo"]
