// Approximate search with over-fetch: the index returns the global top $candidates, of which
// only those in scope are kept. The caller grows $candidates until it has enough hits.
CALL db.index.vector.queryNodes('message_embedding', $candidates, $embedding)
YIELD node AS m, score
WHERE m.workspace = $workspace AND m.deleted_at IS NULL
  AND ($session IS NULL OR m.session = $session)
  AND ($peer IS NULL OR m.peer = $peer)
  AND ($since IS NULL OR m.created_at >= $since)
  AND ($until IS NULL OR m.created_at < $until)
  AND all(kv IN $meta_kv WHERE kv IN m.meta_kv)
RETURN m {.*, embedding: null} AS message, score
ORDER BY score DESC
LIMIT $limit
