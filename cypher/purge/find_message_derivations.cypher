// Everything derived from the given messages (tombstoned ones included): the explicit beliefs
// taken from any of them and, through incoming DERIVED_FROM, every belief built on those, up to
// 64 derivation levels (the bound of staleness propagation). Breadth-first with a visited set
// (`WITH DISTINCT d`), so the cost follows what is found. Each comes with its premises, so the
// purge can delete dependents before what they rest on.
MATCH (m:Message {workspace: $workspace})
WHERE m.id IN $ids
MATCH (root:Observation)-[:DERIVED_FROM]->(m)
WITH DISTINCT root
MATCH (root)<-[:DERIVED_FROM*0..64]-(d:Observation)
WITH DISTINCT d
WHERE d.workspace = $workspace
RETURN d.id AS id, d.level AS level, d.observer AS observer, d.observed AS observed,
       [(d)-[:DERIVED_FROM]->(p:Observation) | p.id] AS premises
