// find_scope_duplicates for scopes with a vector index of their own: the same normalized text
// through the (scope, content_key) index, else the nearest beliefs from the scope's vector index
// rescored exactly, instead of a cosine over every belief of a large scope.
UNWIND $candidates AS c
CALL (c) {
  MATCH (o:Observation {workspace: $workspace, observer: c.observer, observed: c.observed, content_key: c.key})
  WHERE o.deleted_at IS NULL AND o.superseded_at IS NULL AND o.level = 'explicit'
  RETURN o.id AS id, 2.0 AS similarity
  LIMIT 1
  UNION ALL
  CALL db.index.vector.queryNodes(c.vector_index, $neighbours, c.embedding)
  YIELD node AS o
  WHERE o.deleted_at IS NULL AND o.superseded_at IS NULL AND o.level = 'explicit'
  WITH o, vector.similarity.cosine(o.embedding, c.embedding) AS similarity
  WHERE similarity >= $threshold
  RETURN o.id AS id, similarity
  ORDER BY similarity DESC
  LIMIT 1
}
WITH c, id, similarity
ORDER BY similarity DESC
RETURN c.index AS index, collect(id)[0] AS id
