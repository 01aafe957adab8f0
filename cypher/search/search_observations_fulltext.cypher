// Fulltext hits of one or several representations: $query requires one of their scope keys
// (scope_key), so Lucene returns only their beliefs, best first; at most $candidates of them,
// then the filters. `raw` tells the caller whether Lucene had more (raw = $candidates) when
// the filters left too few.
// With $embedding, each hit also carries its similarity to it (as the vector index scores).
CALL db.index.fulltext.queryNodes('observation_text', $query, {limit: $candidates})
YIELD node, score
WITH collect({o: node, score: score}) AS hits
WITH size(hits) AS raw,
     [h IN hits
        WHERE h.o.workspace = $workspace AND h.o.scope_key IN $keys AND h.o.level IN $levels
          AND h.o.deleted_at IS NULL
          AND ($include_stale OR NOT coalesce(h.o.stale, false))
          AND ($include_superseded OR h.o.superseded_at IS NULL OR h.o.superseded_at > $as_of)
          AND ($as_of IS NULL OR h.o.created_at <= $as_of)
          AND ($session_ids IS NULL OR h.o.session IN $session_ids)
          AND ($exclude_session_ids IS NULL OR h.o.session IS NULL
               OR NOT h.o.session IN $exclude_session_ids)
          AND (NOT $exclude_derived OR h.o.session IS NOT NULL)
          AND ($since IS NULL OR coalesce(h.o.valid_at, h.o.created_at) >= $since)
          AND ($until IS NULL OR coalesce(h.o.valid_at, h.o.created_at) < $until)
     ][0..$limit] AS kept
CALL (kept) {
  UNWIND kept AS k
  WITH k.o AS o, k.score AS score
  RETURN collect({observation: o {.*, embedding: null}, score: score,
                  similarity: CASE WHEN $embedding IS NULL OR o.embedding IS NULL THEN null
                      ELSE vector.similarity.cosine(o.embedding, $embedding) END}) AS found
}
RETURN raw, found
