// The source peer's session memberships and materialized dreams become the target's. A session
// the target is already in keeps the target's settings. Dream runs follow the representations
// they record. Sub-peer links move in graph/repo/members.py, each checked as an add is.
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
RETURN sessions, dreams, runs
