// The source peer's OBSERVES edges become the target's (a source-to-target edge becomes the
// target's view of itself), adding up their belief counts; each edge that receives beliefs
// counts one more write (get_view_writes.cypher), so a concurrent derivation's duplicate check
// sees them. Dream bookkeeping is not carried over: the merge schedules fresh dreams for the
// target's representations.
MATCH (s:Peer {workspace: $workspace, name: $source})
MATCH (t:Peer {workspace: $workspace, name: $target})
WITH s, t,
     COLLECT { MATCH (s)-[r:OBSERVES]->(:Peer) RETURN r }
     + COLLECT { MATCH (a:Peer)-[r:OBSERVES]->(s) WHERE a <> s RETURN r } AS edges
UNWIND edges AS r
WITH s, t, r,
     CASE WHEN startNode(r) = s THEN t ELSE startNode(r) END AS a,
     CASE WHEN endNode(r) = s THEN t ELSE endNode(r) END AS b,
     coalesce(r.observations, 0) AS count
DELETE r
MERGE (a)-[n:OBSERVES]->(b)
SET n.observations = coalesce(n.observations, 0) + count,
    n.writes = coalesce(n.writes, 0) + 1
RETURN count(*) AS moved
