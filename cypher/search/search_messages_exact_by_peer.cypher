// The exact scan of one peer's messages, through the (workspace, peer) index.
MATCH (m:Message {workspace: $workspace, peer: $peer})
WHERE m.deleted_at IS NULL
  AND ($since IS NULL OR m.created_at >= $since)
  AND ($until IS NULL OR m.created_at < $until)
  AND all(kv IN $meta_kv WHERE kv IN m.meta_kv)
WITH m, vector.similarity.cosine(m.embedding, $embedding) AS score
WHERE score IS NOT NULL
ORDER BY score DESC
LIMIT $limit
RETURN m {.*, embedding: null} AS message, score
