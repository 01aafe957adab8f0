// The source peer's session memberships, sub-peer links and materialized dreams become the
// target's. A session the target is already in keeps the target's settings; a MEMBER_OF link
// that would be a self-link or close a cycle (walks bounded by 32 edges, the depth cap) is
// dropped. Dream runs follow the representations they record.
MATCH (s:Peer {workspace: $workspace, name: $source})
MATCH (t:Peer {workspace: $workspace, name: $target})
CALL (s, t) {
  MATCH (s)-[p:PARTICIPATES_IN]->(x:Session)
  OPTIONAL MATCH (t)-[q:PARTICIPATES_IN]->(x)
  FOREACH (_ IN CASE WHEN q IS NULL THEN [1] ELSE [] END |
    CREATE (t)-[n:PARTICIPATES_IN]->(x)
    SET n = properties(p))
  DELETE p
  RETURN count(*) AS sessions
}
CALL (s, t) {
  // A child that is the target or above it would close a cycle. The peers above the target
  // are walked once, each peer once (a pruning expand): a path-by-path EXISTS costs the
  // number of paths, exponential in the width of a many-to-many tree.
  WITH s, t, COLLECT { MATCH (t)-[:MEMBER_OF]->{1,32}(x:Peer) RETURN DISTINCT x } AS above
  MATCH (c:Peer)-[m:MEMBER_OF]->(s)
  WITH c, m, c <> t AND NOT c IN above AS keep
  DELETE m
  WITH c, keep WHERE keep
  MERGE (c)-[e:MEMBER_OF]->(t)
  ON CREATE SET e.created_at = $now
  RETURN count(*) AS children
}
CALL (s, t) {
  // A parent that is the target or below it would close a cycle (walked as above).
  WITH s, t, COLLECT { MATCH (x:Peer)-[:MEMBER_OF]->{1,32}(t) RETURN DISTINCT x } AS below
  MATCH (s)-[m:MEMBER_OF]->(p:Peer)
  WITH p, m, p <> t AND NOT p IN below AS keep
  DELETE m
  WITH p, keep WHERE keep
  MERGE (t)-[e:MEMBER_OF]->(p)
  ON CREATE SET e.created_at = $now
  RETURN count(*) AS parents
}
CALL () {
  MATCH (d:Dream {workspace: $workspace, peer: $source})
  SET d.peer = $target
  RETURN count(d) AS dreams
}
CALL () {
  MATCH (r:DreamRun {workspace: $workspace})
  WHERE r.observer = $source OR r.observed = $source
  SET r.observer = CASE r.observer WHEN $source THEN $target ELSE r.observer END,
      r.observed = CASE r.observed WHEN $source THEN $target ELSE r.observed END
  RETURN count(r) AS runs
}
RETURN sessions, children, parents, dreams, runs
