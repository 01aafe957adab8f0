// The sub-peer takes the peer's place in the given sessions (same observation settings), and
// the peer's waiting derive jobs of those sessions now derive for the sub-peer.
MATCH (p:Peer {workspace: $workspace, name: $peer})
MATCH (c:Peer {workspace: $workspace, name: $child})
CALL (p, c) {
  MATCH (p)-[w:PARTICIPATES_IN]->(s:Session)
  WHERE s.name IN $sessions
  MERGE (c)-[n:PARTICIPATES_IN]->(s)
  ON CREATE SET n = properties(w)
  DELETE w
  RETURN count(*) AS sessions
}
CALL () {
  MATCH (j:Job {workspace: $workspace, peer: $peer})
  WHERE j.session IN $sessions AND j.status IN ['pending', 'dead']
  SET j.peer = $child
  RETURN count(j) AS jobs
}
RETURN sessions, jobs
