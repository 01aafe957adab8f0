CALL db.index.fulltext.queryNodes('message_content', $query)
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
