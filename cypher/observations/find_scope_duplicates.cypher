// For each candidate, an existing belief of the same scope with the same normalized text or
// an embedding at least $threshold similar (the most similar one).
UNWIND $candidates AS c
CALL (c) {
  MATCH (o:Observation {workspace: $workspace, observer: c.observer, observed: c.observed})
  WHERE o.deleted_at IS NULL AND o.superseded_at IS NULL AND o.level = 'explicit'
  WITH o, CASE WHEN o.content_key = c.key THEN 2.0
               ELSE vector.similarity.cosine(o.embedding, c.embedding) END AS similarity
  WHERE similarity >= $threshold
  RETURN o.id AS id
  ORDER BY similarity DESC
  LIMIT 1
}
RETURN c.index AS index, id
