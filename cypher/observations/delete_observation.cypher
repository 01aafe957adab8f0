// Tombstone one belief (it stays for provenance, reads skip it) and mark the beliefs derived
// from it, up to five DERIVED_FROM levels away, stale: a premise of theirs is gone.
MATCH (o:Observation {id: $id, workspace: $workspace})
WHERE o.deleted_at IS NULL
SET o.deleted_at = $now
WITH o
OPTIONAL MATCH (d:Observation)-[:DERIVED_FROM*1..5]->(o)
WHERE d.workspace = $workspace AND d.deleted_at IS NULL
WITH o, collect(DISTINCT d) AS dependents
FOREACH (d IN dependents |
  SET d.stale = true, d.stale_reason = coalesce(d.stale_reason, 'a premise was deleted'))
RETURN o.id AS id, size(dependents) AS stale
