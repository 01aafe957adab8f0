// The current beliefs derived from one belief, latest first, all of them (REST lists them by
// source and pages them): not deleted, superseded or stale.
MATCH (:Observation {id: $id, workspace: $workspace})<-[:DERIVED_FROM]-(d:Observation)
WHERE d.workspace = $workspace AND d.deleted_at IS NULL AND d.superseded_at IS NULL
  AND NOT coalesce(d.stale, false)
RETURN d {.*, embedding: null} AS observation
ORDER BY d.created_at DESC, d.id
