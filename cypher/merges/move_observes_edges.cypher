// The source peer's OBSERVES edges become the target's (a source-to-target edge becomes the
// target's view of itself), adding up their belief counts. Two source edges can become one
// (the source's view of itself and its view of the target both become the target's view of
// itself): their counts are summed first, so each target edge is written once. The beliefs
// were counted as writes of their new representations as they moved
// (count_merged_writes.cypher). Dream bookkeeping is not carried over: the merge schedules
// fresh dreams for the target's representations.
MATCH (s:Peer {workspace: $workspace, name: $source})
MATCH (t:Peer {workspace: $workspace, name: $target})
WITH s, t,
     COLLECT { MATCH (s)-[r:OBSERVES]->(:Peer) RETURN r }
     + COLLECT { MATCH (a:Peer)-[r:OBSERVES]->(s) WHERE a <> s RETURN r } AS edges
UNWIND edges AS r
WITH r,
     CASE WHEN startNode(r) = s THEN t ELSE startNode(r) END AS a,
     CASE WHEN endNode(r) = s THEN t ELSE endNode(r) END AS b,
     coalesce(r.observations, 0) AS count
DELETE r
WITH a, b, sum(count) AS count
ORDER BY a.name, b.name
MERGE (a)-[n:OBSERVES]->(b)
SET n.observations = coalesce(n.observations, 0) + count
RETURN count(*) AS moved
