// Vector candidates of a workspace, a session, or some peers' messages (a session and peers
// together: the session's, then the peers' among them), in one round trip. A session of at
// most $exact_scan_limit messages (its next_seq counts them) is scanned exactly; otherwise the
// message_vectors index, filtered inside by workspace and session or peers, gives its
// $candidates nearest ($wide for peers or a whole workspace, whose size is not counted and may
// be large); scores equal vector.similarity.cosine (the index is unquantized); the best
// $limit are raised to their best passage's score when that is closer. Time
// and metadata filters apply after; `raw` (what the path gave before them) tells the caller
// whether asking for more could fill a short page.
//
// Peers that sent a large share of the messages are searched as their whole workspace, theirs
// kept after (graph/repo/retrieval.py, Dominant): with $dominant_hits set, the first of the two
// $dominant_rounds expected to hold that many of theirs runs instead of the filtered search
// (`dominant` says which). Their share: SENT_BY degrees against the database's count store (at
// least the workspace's count, so the share is never overrated), read without touching a
// message.
OPTIONAL MATCH (s:Session {workspace: $workspace, name: $session})
WITH CASE WHEN $session IS NULL THEN null ELSE coalesce(s.next_seq, 0) END AS total
OPTIONAL CALL (total) {
  WITH total WHERE total IS NULL AND $peers IS NOT NULL AND $dominant_hits IS NOT NULL
  OPTIONAL MATCH (p:Peer {workspace: $workspace})
  WHERE p.name IN $peers
  WITH sum(COUNT { (p)<-[:SENT_BY]-() }) AS sent
  CALL () {
    MATCH (m:Message)
    RETURN count(m) AS stored
  }
  WITH sent, stored WHERE sent >= $dominant_min_size
  RETURN [k IN $dominant_rounds WHERE sent * k >= $dominant_hits * stored][0] AS dominant
}
OPTIONAL CALL (total, dominant) {
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
  WITH total WHERE total IS NULL AND $peers IS NOT NULL AND dominant IS NULL
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
  UNION ALL
  WITH dominant WHERE dominant = $dominant_rounds[0]
  MATCH (m:Message)
    SEARCH m IN (VECTOR INDEX message_vectors FOR $embedding
                 WHERE m.workspace = $workspace
                 LIMIT $dominant_rounds[0]) SCORE AS score
  RETURN m, score
  UNION ALL
  WITH dominant WHERE dominant = $dominant_rounds[1]
  MATCH (m:Message)
    SEARCH m IN (VECTOR INDEX message_vectors FOR $embedding
                 WHERE m.workspace = $workspace
                 LIMIT $dominant_rounds[1]) SCORE AS score
  RETURN m, score
}
WITH total, dominant, collect(CASE WHEN m IS NOT NULL THEN {m: m, score: score} END) AS hits
WITH total, dominant, size(hits) AS raw,
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
                              .created_at, .seq, .token_count, .client_id, .received_at, .edited_at},
                  score: score}) AS found
}
RETURN total, dominant, raw, found
