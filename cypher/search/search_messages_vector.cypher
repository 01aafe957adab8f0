// Vector candidates of a workspace, a session, or some peers' messages (a session and peers
// together: the session's, then the peers' among them), in one round trip. A session of at
// most $exact_scan_limit messages (its next_seq counts them) is scanned exactly; otherwise the
// message_vectors index, filtered inside by workspace and session or peers, gives its
// $candidates nearest ($wide for peers or a whole workspace, whose size is not counted and may
// be large); scores equal vector.similarity.cosine (the index is unquantized); the best
// $limit are raised to their best passage's score when that is closer. Time
// and metadata filters apply after; `raw` (what the path gave before them) tells the caller
// whether asking for more could fill a short page.
OPTIONAL MATCH (s:Session {workspace: $workspace, name: $session})
WITH CASE WHEN $session IS NULL THEN null ELSE coalesce(s.next_seq, 0) END AS total
OPTIONAL CALL (total) {
  WITH total WHERE total IS NOT NULL AND total <= $exact_scan_limit
  // In a subquery of its own, so the size test runs before the scan.
  CALL () {
    MATCH (m:Message {workspace: $workspace, session: $session})
    WHERE m.embedding IS NOT NULL
    RETURN m, vector.similarity.cosine(m.embedding, $embedding) AS score
  }
  RETURN m, score
  UNION ALL
  WITH total WHERE total > $exact_scan_limit
  MATCH (m:Message)
    SEARCH m IN (VECTOR INDEX message_vectors FOR $embedding
                 WHERE m.workspace = $workspace AND m.session = $session
                 LIMIT $candidates) SCORE AS score
  RETURN m, score
  UNION ALL
  WITH total WHERE total IS NULL AND $peers IS NOT NULL
  MATCH (m:Message)
    SEARCH m IN (VECTOR INDEX message_vectors FOR $embedding
                 WHERE m.workspace = $workspace AND m.peer IN $peers
                 LIMIT $wide) SCORE AS score
  RETURN m, score
  UNION ALL
  WITH total WHERE total IS NULL AND $peers IS NULL
  MATCH (m:Message)
    SEARCH m IN (VECTOR INDEX message_vectors FOR $embedding
                 WHERE m.workspace = $workspace
                 LIMIT $wide) SCORE AS score
  RETURN m, score
}
WITH total, collect(CASE WHEN m IS NOT NULL THEN {m: m, score: score} END) AS hits
WITH total, size(hits) AS raw,
     [h IN hits
        WHERE h.m.deleted_at IS NULL
          AND ($peers IS NULL OR h.m.peer IN $peers)
          AND ($since IS NULL OR h.m.created_at >= $since)
          AND ($until IS NULL OR h.m.created_at < $until)
          AND all(kv IN $meta_kv WHERE kv IN h.m.meta_kv)
     ] AS kept
CALL (kept) {
  UNWIND kept AS k
  WITH k.m AS m, k.score AS own
  // The pool is chosen by the message's own vector, then each is raised to its best passage
  // when that is closer (passage_embeddings holds one vector after another;
  // reasoners/embeddings/passages.py). The list is read once per message: every read of a
  // property copies it.
  ORDER BY own DESC
  LIMIT $limit
  WITH m, own, coalesce(m.passage_embeddings, []) AS flat
  WITH m, reduce(best = own, s IN
         [i IN range(0, size(flat) / size($embedding) - 1)
            | vector.similarity.cosine(flat[i * size($embedding)..(i + 1) * size($embedding)],
                                       $embedding)]
         | CASE WHEN s > best THEN s ELSE best END) AS score
  ORDER BY score DESC
  // Named properties only: `.*` would read the vectors too, only to drop them.
  RETURN collect({message: m {.id, .workspace, .session, .peer, .content, .context, .metadata,
                              .created_at, .seq, .token_count, .client_id, .received_at},
                  score: score}) AS found
}
RETURN total, raw, found
