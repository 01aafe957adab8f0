// Scopes of a workspace holding more than $minimum beliefs, with their index state.
MATCH (a:Peer {workspace: $workspace})-[r:OBSERVES]->(b:Peer {workspace: $workspace})
CALL (a, b) {
  MATCH (o:Observation {workspace: $workspace, observer: a.name, observed: b.name})
  RETURN count(o) AS total
}
WITH a, b, r, total
WHERE total > $minimum
RETURN a.name AS observer, b.name AS observed, total, r.vector_index AS index
ORDER BY total DESC
