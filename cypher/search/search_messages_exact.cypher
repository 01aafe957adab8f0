// Exact cosine over the scope: used when the scope is small enough to scan, which avoids the
// global top-k of the vector index returning too few hits from a small scope. The embedding is
// read only for messages in scope (checking it in the WHERE would load it for every message).
MATCH (m:Message {workspace: $workspace})
WHERE m.deleted_at IS NULL
  AND ($peer IS NULL OR m.peer = $peer)
  AND ($since IS NULL OR m.created_at >= $since)
  AND ($until IS NULL OR m.created_at < $until)
  AND all(kv IN $meta_kv WHERE kv IN m.meta_kv)
WITH m, vector.similarity.cosine(m.embedding, $embedding) AS score
WHERE score IS NOT NULL
ORDER BY score DESC
LIMIT $limit
RETURN m {.*, embedding: null} AS message, score
