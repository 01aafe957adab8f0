// The exact scan of one session, through the (workspace, session) index.
MATCH (m:Message {workspace: $workspace, session: $session})
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
