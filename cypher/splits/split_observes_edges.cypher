// The OBSERVES edges a split step's moves touched ($edges: each {observer, observed, ids,
// left}), each written once, in (observer, observed) order as derivations write them. An edge
// of the sub-peer counts the beliefs that moved into it (`ids`) and one more write
// (get_view_writes.cypher), which those beliefs keep as their view_write, so a concurrent
// derivation's duplicate check sees them; an edge of the peer loses the `left` beliefs that
// moved out, which no duplicate check needs to see. Two of the peer's representations can
// feed one of the sub-peer's (its view of itself and of the sub-peer both become the
// sub-peer's view of itself), so the caller adds up per edge.
UNWIND $edges AS e
WITH e
ORDER BY e.observer, e.observed
MATCH (a:Peer {workspace: $workspace, name: e.observer})
MATCH (b:Peer {workspace: $workspace, name: e.observed})
MERGE (a)-[r:OBSERVES]->(b)
SET r.observations = CASE WHEN coalesce(r.observations, 0) + size(e.ids) > e.left
                          THEN coalesce(r.observations, 0) + size(e.ids) - e.left ELSE 0 END,
    r.writes = coalesce(r.writes, 0) + CASE WHEN size(e.ids) > 0 THEN 1 ELSE 0 END
WITH e, r
CALL (e, r) {
  UNWIND e.ids AS id
  MATCH (o:Observation {id: id, workspace: $workspace})
  SET o.view_write = r.writes
  RETURN count(o) AS stamped
}
RETURN count(*) AS edges
