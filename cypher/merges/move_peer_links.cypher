// The source peer's session memberships and materialized dreams become the target's: every
// window of them (who was present when is read from the windows); where both are in a session
// now, the target's open window keeps its settings and opens when the earlier of the two did.
// Dream runs follow the representations they record. Sub-peer links move in
// graph/repo/members.py, each checked as an add is.
MATCH (s:Peer {workspace: $workspace, name: $source})
MATCH (t:Peer {workspace: $workspace, name: $target})
CALL (s, t) {
  MATCH (s)-[p:PARTICIPATES_IN]->(x:Session)
  OPTIONAL MATCH (t)-[q:PARTICIPATES_IN]->(x) WHERE p.left_at IS NULL AND q.left_at IS NULL
  FOREACH (_ IN CASE WHEN q IS NULL THEN [1] ELSE [] END |
    CREATE (t)-[n:PARTICIPATES_IN]->(x)
    SET n = properties(p))
  // Both present now: the target's window, with its settings, opens when the first did.
  FOREACH (_ IN CASE WHEN q IS NULL THEN [] ELSE [1] END |
    SET q.joined_at = CASE WHEN p.joined_at < q.joined_at THEN p.joined_at ELSE q.joined_at END)
  DELETE p
  RETURN count(*) AS sessions
}
CALL () {
  MATCH (d:Dream {workspace: $workspace, peer: $source})
  SET d.peer = $target
  RETURN count(d) AS dreams
}
// A moved run is numbered after the runs its new representation already has, in the order
// the moved ones finished, and the representation's count takes them in: run numbers stay
// unique, and a dreamEvents stream of the target reads them after its own.
CALL () {
  MATCH (r:DreamRun {workspace: $workspace})
  WHERE r.observer = $source OR r.observed = $source
  WITH r, CASE r.observer WHEN $source THEN $target ELSE r.observer END AS observer,
       CASE r.observed WHEN $source THEN $target ELSE r.observed END AS observed
  ORDER BY r.finished_at, r.seq
  WITH observer, observed, collect(r) AS moved
  OPTIONAL MATCH (:Peer {workspace: $workspace, name: observer})
                 -[e:OBSERVES]->(:Peer {workspace: $workspace, name: observed})
  WITH observer, observed, moved, e,
       coalesce(e.dream_runs, 0) AS counted,
       COLLECT { MATCH (k:DreamRun {workspace: $workspace, observer: observer,
                                    observed: observed})
                 RETURN max(k.seq) } [0] AS highest
  WITH observer, observed, moved, e,
       CASE WHEN coalesce(highest, 0) > counted THEN highest ELSE counted END AS base
  SET e.dream_runs = base + size(moved)
  WITH observer, observed, moved, base
  UNWIND range(0, size(moved) - 1) AS i
  WITH moved[i] AS r, observer, observed, base + i + 1 AS seq
  SET r.observer = observer, r.observed = observed, r.seq = seq
  RETURN count(r) AS runs
}
RETURN sessions, dreams, runs
