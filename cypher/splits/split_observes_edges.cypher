// The OBSERVES edges of the sub-peer's representations that received beliefs ($scopes: each
// {observer, observed, from_observer, from_observed, moved, ids}), with their belief counts
// moved over from the peer's; each receiving edge counts one more write
// (get_view_writes.cypher), which the moved beliefs (`ids`) keep as their view_write, so a
// concurrent derivation's duplicate check sees them. The peer's edges only lose beliefs, which
// no duplicate check needs to see.
UNWIND $scopes AS sc
MATCH (a:Peer {workspace: $workspace, name: sc.observer})
MATCH (b:Peer {workspace: $workspace, name: sc.observed})
MATCH (fa:Peer {workspace: $workspace, name: sc.from_observer})
MATCH (fb:Peer {workspace: $workspace, name: sc.from_observed})
MERGE (a)-[n:OBSERVES]->(b)
SET n.observations = coalesce(n.observations, 0) + sc.moved,
    n.writes = coalesce(n.writes, 0) + 1
WITH fa, fb, sc, n
CALL (sc, n) {
  UNWIND sc.ids AS id
  MATCH (o:Observation {id: id, workspace: $workspace})
  SET o.view_write = n.writes
  RETURN count(o) AS stamped
}
WITH fa, fb, sc
MATCH (fa)-[r:OBSERVES]->(fb)
SET r.observations = CASE WHEN coalesce(r.observations, 0) > sc.moved
                          THEN r.observations - sc.moved ELSE 0 END
RETURN count(*) AS edges
