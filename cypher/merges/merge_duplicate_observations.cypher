// The dedup rule after a merge: in each target representation ($scopes), current explicit
// beliefs with the same normalized text (content_key) become one, the oldest. It takes the
// others' source spans, their dependents' DERIVED_FROM edges and their derivation counts; the
// others are tombstoned. Up to $batch groups per run (each run rescans the representations).
UNWIND $scopes AS scope
MATCH (o:Observation)
USING INDEX o:Observation(scope_key)
WHERE o.scope_key = scope AND o.workspace = $workspace AND o.level = 'explicit'
  AND o.deleted_at IS NULL AND o.superseded_at IS NULL AND o.content_key IS NOT NULL
WITH scope, o
ORDER BY o.created_at, o.id
WITH scope, o.content_key AS key, collect(o) AS same
WHERE size(same) > 1
WITH head(same) AS kept, tail(same) AS extra
LIMIT $batch
UNWIND extra AS dup
CALL (kept, dup) {
  MATCH (dup)-[d:DERIVED_FROM]->(m:Message)
  MERGE (kept)-[k:DERIVED_FROM]->(m)
  ON CREATE SET k.span = d.span
  DELETE d
}
CALL (kept, dup) {
  MATCH (child:Observation)-[d:DERIVED_FROM]->(dup)
  MERGE (child)-[:DERIVED_FROM]->(kept)
  DELETE d
}
SET kept.times_derived = coalesce(kept.times_derived, 1) + coalesce(dup.times_derived, 1),
    dup.deleted_at = $now
RETURN count(dup) AS merged
