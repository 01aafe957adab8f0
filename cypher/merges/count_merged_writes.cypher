// The target's representations that a merge step moved explicit beliefs into ($scopes: each
// {observer, observed, ids}, one per representation): each OBSERVES edge counts one more write
// (get_view_writes.cypher), which the moved beliefs keep as their view_write, so a derivation
// writing into the representation at the same time compares its new beliefs with them. Each
// edge is written once, in (observer, observed) order; the belief counts move over with the
// source's edges at the merge's end (move_observes_edges.cypher).
UNWIND $scopes AS sc
WITH sc
ORDER BY sc.observer, sc.observed
MATCH (a:Peer {workspace: $workspace, name: sc.observer})
MATCH (b:Peer {workspace: $workspace, name: sc.observed})
MERGE (a)-[n:OBSERVES]->(b)
SET n.writes = coalesce(n.writes, 0) + 1
WITH sc, n
CALL (sc, n) {
  UNWIND sc.ids AS id
  MATCH (o:Observation {id: id, workspace: $workspace})
  SET o.view_write = n.writes
  RETURN count(o) AS stamped
}
RETURN sum(stamped) AS stamped
