// Fulltext hits of one or several representations: $query requires one of their scope keys
// (scope_key), so Lucene returns only their beliefs, best first; at most $candidates of them,
// then the filters. `raw` tells the caller whether Lucene had more (raw = $candidates) when
// the filters left too few.
// With $embedding, each hit also carries its similarity to it (as the vector index scores).
CALL db.index.fulltext.queryNodes('observation_text', $query, {limit: $candidates})
YIELD node, score
WITH collect({o: node, score: score}) AS hits
// A belief is in its own session and in its live source messages' (list_observations.cypher).
// Kept in Lucene's order (i).
CALL (hits) {
  UNWIND range(0, size(hits) - 1) AS i
  WITH i, hits[i].o AS o, hits[i].score AS score
  WHERE o.workspace = $workspace AND o.scope_key IN $keys AND o.level IN $levels
    AND o.deleted_at IS NULL
    AND ($include_stale OR NOT coalesce(o.stale, false))
    AND ($include_superseded OR o.superseded_at IS NULL OR o.superseded_at > $as_of)
    AND ($as_of IS NULL OR o.created_at <= $as_of)
    AND CASE WHEN $session_ids IS NULL OR o.session IN $session_ids THEN true
             ELSE EXISTS { MATCH (o)-[:DERIVED_FROM]->(m:Message)
                           WHERE m.deleted_at IS NULL
                             AND m.session IN $session_ids
                             AND coalesce(coalesce(m.received_at, m.created_at) <= $as_of, true)
                  } END
    AND CASE WHEN $exclude_session_ids IS NULL OR o.session IS NULL
                  OR NOT o.session IN $exclude_session_ids THEN true
             ELSE EXISTS { MATCH (o)-[:DERIVED_FROM]->(m:Message)
                           WHERE m.deleted_at IS NULL
                             AND NOT m.session IN $exclude_session_ids
                             AND coalesce(coalesce(m.received_at, m.created_at) <= $as_of, true) }
        END
    AND (NOT $exclude_derived OR o.session IS NOT NULL)
    AND ($since IS NULL OR coalesce(o.valid_at, o.created_at) >= $since)
    AND ($until IS NULL OR coalesce(o.valid_at, o.created_at) < $until)
  WITH i, o, score
  ORDER BY i
  LIMIT $limit
  RETURN collect({observation: o {.*, embedding: null,
                                   superseded_at: CASE WHEN o.superseded_at > $as_of THEN null
                                                  ELSE o.superseded_at END,
                                   // Its count then: an explicit belief's is its messages'.
                                   times_derived: CASE WHEN $as_of IS NULL OR o.level <> 'explicit'
                                                       THEN o.times_derived
                                                       ELSE COUNT { MATCH (o)-[:DERIVED_FROM]->(m:Message)
                                                                    WHERE m.deleted_at IS NULL
                                                                      AND coalesce(m.received_at, m.created_at)
                                                                          <= $as_of } END},
                  score: score,
                  similarity: CASE WHEN $embedding IS NULL OR o.embedding IS NULL THEN null
                      ELSE vector.similarity.cosine(o.embedding, $embedding) END}) AS found
}
RETURN size(hits) AS raw, found
