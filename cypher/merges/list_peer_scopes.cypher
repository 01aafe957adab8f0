// The representations a peer takes part in (as observer, observed or both): the OBSERVES
// edges from and to it. Every belief lives in one of these (each write marks its edge).
MATCH (s:Peer {workspace: $workspace, name: $peer})
CALL (s) {
  MATCH (s)-[:OBSERVES]->(b:Peer)
  RETURN s.name AS observer, b.name AS observed
  UNION
  MATCH (a:Peer)-[:OBSERVES]->(s)
  RETURN a.name AS observer, s.name AS observed
}
RETURN observer, observed
