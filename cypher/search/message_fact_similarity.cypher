// Each message's closest derived belief: the current beliefs taken from it (DERIVED_FROM, any
// observer's view; not stale: an edit leaves one taken from the old text stale, and its words
// must not lift the message), scored against the query on the vector index's 0-1 scale.
// Messages with no such belief are absent.
UNWIND $ids AS id
MATCH (o:Observation)-[:DERIVED_FROM]->(m:Message {id: id})
WHERE m.workspace = $workspace
  AND o.workspace = $workspace
  AND o.superseded_at IS NULL AND NOT coalesce(o.stale, false)
  AND o.deleted_at IS NULL
  AND o.embedding IS NOT NULL
RETURN id, max(vector.similarity.cosine(o.embedding, $embedding)) AS score
