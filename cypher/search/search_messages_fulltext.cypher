// Fulltext hits of a workspace, a session or some peers' messages: $query requires their keys
// (workspace_key, session_key, peer_key), so Lucene returns only messages in scope, best
// first; at most $candidates of them, then the time and metadata filters. `raw` tells the
// caller whether Lucene had more (raw = $candidates) when the filters left too few.
// With $embedding, each hit also carries its similarity to it, as the vector search scores it
// (the closer of the message and its best passage).
CALL db.index.fulltext.queryNodes('message_text', $query, {limit: $candidates})
YIELD node, score
WITH collect({m: node, score: score}) AS hits
WITH size(hits) AS raw,
     [h IN hits
        WHERE h.m.workspace = $workspace AND h.m.deleted_at IS NULL
          AND ($session IS NULL OR h.m.session = $session)
          AND ($peers IS NULL OR h.m.peer IN $peers)
          AND ($since IS NULL OR h.m.created_at >= $since)
          AND ($until IS NULL OR h.m.created_at < $until)
          AND all(kv IN $meta_kv WHERE kv IN h.m.meta_kv)
     ][0..$limit] AS kept
CALL (kept) {
  UNWIND kept AS k
  WITH k.m AS m, k.score AS score
  // Each property is read once (every read copies it); passage_embeddings holds one vector
  // after another (reasoners/embeddings/passages.py).
  WITH m, score, m.embedding AS own, coalesce(m.passage_embeddings, []) AS flat
  WITH m, score, CASE WHEN $embedding IS NULL OR own IS NULL THEN null ELSE
         reduce(best = vector.similarity.cosine(own, $embedding), s IN
           [i IN range(0, size(flat) / size($embedding) - 1)
              | vector.similarity.cosine(flat[i * size($embedding)..(i + 1) * size($embedding)],
                                         $embedding)]
           | CASE WHEN s > best THEN s ELSE best END) END AS similarity
  // Named properties only: `.*` would read the vectors too, only to drop them.
  RETURN collect({message: m {.id, .workspace, .session, .peer, .content, .context, .metadata,
                              .created_at, .seq, .token_count, .client_id, .received_at, .edited_at},
                  score: score, similarity: similarity}) AS found
}
RETURN raw, found
