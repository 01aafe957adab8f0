// Hard-deletes messages with their edges. A message some belief still cites stays: the purge
// deletes that belief first (found again on its next round), so no belief loses its source.
MATCH (m:Message {workspace: $workspace})
WHERE m.id IN $ids AND NOT EXISTS { (:Observation)-[:DERIVED_FROM]->(m) }
DETACH DELETE m
RETURN count(*) AS deleted
