// The exact cosine over every message in scope, with every filter: the fallback when the
// filters are so narrow that index rounds cannot fill the page. Each branch reads through the
// index that fits its scope.
CALL () {
  WITH 1 AS scope WHERE $session IS NOT NULL
  MATCH (m:Message {workspace: $workspace, session: $session})
  RETURN m
  UNION ALL
  WITH 1 AS scope WHERE $session IS NULL AND $peers IS NOT NULL
  MATCH (m:Message {workspace: $workspace})
  WHERE m.peer IN $peers
  RETURN m
  UNION ALL
  WITH 1 AS scope WHERE $session IS NULL AND $peers IS NULL
  MATCH (m:Message {workspace: $workspace})
  RETURN m
}
WITH m
WHERE m.deleted_at IS NULL AND m.embedding IS NOT NULL
  AND ($peers IS NULL OR m.peer IN $peers)
  AND ($since IS NULL OR m.created_at >= $since)
  AND ($until IS NULL OR m.created_at < $until)
  AND all(kv IN $meta_kv WHERE kv IN m.meta_kv)
WITH m, vector.similarity.cosine(m.embedding, $embedding) AS score
ORDER BY score DESC
LIMIT $limit
RETURN m {.*, embedding: null} AS message, score
