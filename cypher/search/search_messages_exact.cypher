// The exact cosine over every message in scope, with every filter: the fallback when the
// filters are so narrow that index rounds cannot fill the page. Each branch reads through the
// index that fits its scope. A message scores as the closer of itself and its best passage.
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
// A message is as close as the closer of itself and its best passage (passage_embeddings holds
// one vector after another; reasoners/embeddings/passages.py), each list read once.
WITH m, vector.similarity.cosine(m.embedding, $embedding) AS own,
     coalesce(m.passage_embeddings, []) AS flat
WITH m, reduce(best = own, s IN
       [i IN range(0, size(flat) / size($embedding) - 1)
          | vector.similarity.cosine(flat[i * size($embedding)..(i + 1) * size($embedding)],
                                     $embedding)]
       | CASE WHEN s > best THEN s ELSE best END) AS score
ORDER BY score DESC
LIMIT $limit
// Named properties only: `.*` would read the vectors too, only to drop them.
RETURN m {.id, .workspace, .session, .peer, .content, .context, .metadata, .created_at, .seq,
         .token_count, .client_id, .received_at, .edited_at} AS message, score
