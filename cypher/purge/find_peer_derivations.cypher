// Everything derived from a peer's data: the beliefs it holds (observer) and the beliefs held
// about it (observed), those taken from its messages, and every belief built on any of these,
// up to 64 derivation levels, breadth-first with a visited set. Each comes with its premises,
// so the purge can delete dependents before what they rest on.
CALL () {
  MATCH (o:Observation {workspace: $workspace, observer: $peer})
  RETURN o
  UNION
  MATCH (o:Observation {workspace: $workspace, observed: $peer})
  RETURN o
  UNION
  MATCH (:Message {workspace: $workspace, peer: $peer})<-[:DERIVED_FROM]-(o:Observation)
  RETURN o
}
MATCH (o)<-[:DERIVED_FROM*0..64]-(d:Observation)
WITH DISTINCT d
WHERE d.workspace = $workspace
RETURN d.id AS id, d.level AS level, d.observer AS observer, d.observed AS observed,
       [(d)-[:DERIVED_FROM]->(p:Observation) | p.id] AS premises
