// Up to $batch beliefs a merge moved into the representations $scopes and has not yet checked
// against them by the dedup rule, oldest first, with what the duplicate probe needs. `live` is
// false for one deleted or superseded since (it needs no check) or, defensively, for one
// without an embedding to compare (every written belief has one).
UNWIND $scopes AS scope
MATCH (o:Observation)
USING INDEX o:Observation(scope_key, dedup_pending)
WHERE o.scope_key = scope AND o.dedup_pending = true AND o.workspace = $workspace
RETURN o.id AS id, o.observer AS observer, o.observed AS observed,
       coalesce(o.content_key, '') AS content_key, o.embedding AS embedding, o.content AS content,
       o.moved_by AS moved_by,
       o.level = 'explicit' AND o.deleted_at IS NULL AND o.superseded_at IS NULL
         AND o.embedding IS NOT NULL AS live
ORDER BY o.created_at, o.id
LIMIT $batch
