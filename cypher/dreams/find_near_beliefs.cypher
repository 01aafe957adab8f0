// For each probe (a new belief), the current explicit beliefs of its representation at least
// $threshold similar (vector.similarity.cosine's scale), among its $neighbours nearest through
// the observation_vectors index, filtered inside to the representation.
UNWIND $probes AS probe
CALL (probe) {
  MATCH (o:Observation)
    SEARCH o IN (VECTOR INDEX observation_vectors FOR probe.embedding
                 WHERE o.workspace = $workspace AND o.scope_key = $scope
                   AND o.level = 'explicit'
                 LIMIT $neighbours) SCORE AS similarity
  WITH o, similarity
  WHERE similarity >= $threshold AND o.id <> probe.id AND o.deleted_at IS NULL
    AND o.superseded_at IS NULL AND NOT coalesce(o.stale, false)
  RETURN collect({
    observation: o {.id, .content, .level, .valid_at, .created_at, .session},
    similarity: similarity
  }) AS near
}
RETURN probe.id AS id, near
