// The sub-peer takes the peer's place in the given sessions: each of its windows, with their
// observation settings (where the sub-peer is in one already, its open window keeps its
// settings and opens when the earlier of the two did), and the
// peer's waiting derive jobs of those sessions now derive for the sub-peer, in its units.
MATCH (p:Peer {workspace: $workspace, name: $peer})
MATCH (c:Peer {workspace: $workspace, name: $child})
CALL (p, c) {
  MATCH (p)-[w:PARTICIPATES_IN]->(s:Session)
  WHERE s.name IN $sessions
  OPTIONAL MATCH (c)-[o:PARTICIPATES_IN]->(s) WHERE w.left_at IS NULL AND o.left_at IS NULL
  FOREACH (_ IN CASE WHEN o IS NULL THEN [1] ELSE [] END |
    CREATE (c)-[n:PARTICIPATES_IN]->(s)
    SET n = properties(w))
  FOREACH (_ IN CASE WHEN o IS NULL THEN [] ELSE [1] END |
    SET o.joined_at = CASE WHEN w.joined_at < o.joined_at THEN w.joined_at ELSE o.joined_at END)
  DELETE w
  RETURN count(*) AS sessions
}
CALL () {
  MATCH (j:Job {workspace: $workspace, peer: $peer})
  WHERE j.session IN $sessions AND j.status IN ['pending', 'dead']
  WITH j, CASE WHEN j.kind = 'derive'
               THEN 'derive/' + $workspace + '/' + j.session + '/' + $child
               ELSE j.work_unit END AS key
  ORDER BY j.seq
  WITH key, collect(j) AS moved
  MERGE (u:WorkUnit {key: key})
  ON CREATE SET u.workspace = $workspace, u.next_seq = 0
  SET u.next_seq = coalesce(u.next_seq, 0) + size(moved)
  WITH u, moved, u.next_seq - size(moved) AS base
  UNWIND range(0, size(moved) - 1) AS i
  WITH moved[i] AS j, u, base + i + 1 AS seq
  SET j.peer = $child, j.work_unit = u.key, j.seq = seq
  RETURN count(j) AS jobs
}
RETURN sessions, jobs
