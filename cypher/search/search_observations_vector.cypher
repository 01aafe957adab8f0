// Vector candidates of one or several representations (scope keys), in one round trip.
// Their size (the OBSERVES edges count the beliefs written into them) picks the path: up to
// $exact_scan_limit beliefs, an exact cosine over each; above, the observation_vectors index,
// filtered inside by workspace, scope keys and levels, asked for its $candidates nearest
// ($wide of them above $wide_from beliefs: a large representation needs more candidates for
// the same recall). The other filters apply after; `raw` (what the path gave before them)
// tells the caller whether asking for more could fill a short page. Scores are the index's,
// which without quantization equal vector.similarity.cosine.
UNWIND $scopes AS s
OPTIONAL MATCH (:Peer {workspace: $workspace, name: s.observer})
               -[r:OBSERVES]->(:Peer {workspace: $workspace, name: s.observed})
WITH sum(coalesce(r.observations, 0)) AS total
OPTIONAL CALL (total) {
  WITH total WHERE total <= $exact_scan_limit
  // In a subquery of its own, so the size test runs before the scan (in the same MATCH, the
  // planner seeks every belief first and tests after).
  CALL () {
    MATCH (o:Observation)
    USING INDEX o:Observation(scope_key)
    WHERE o.scope_key IN $keys AND o.workspace = $workspace AND o.level IN $levels
      AND o.embedding IS NOT NULL
    RETURN o, vector.similarity.cosine(o.embedding, $embedding) AS score
  }
  RETURN o, score
  UNION ALL
  WITH total WHERE $exact_scan_limit < total AND total <= $wide_from
  MATCH (o:Observation)
    SEARCH o IN (VECTOR INDEX observation_vectors FOR $embedding
                 WHERE o.workspace = $workspace AND o.scope_key IN $keys AND o.level IN $levels
                 LIMIT $candidates) SCORE AS score
  RETURN o, score
  UNION ALL
  WITH total WHERE total > $exact_scan_limit AND total > $wide_from
  MATCH (o:Observation)
    SEARCH o IN (VECTOR INDEX observation_vectors FOR $embedding
                 WHERE o.workspace = $workspace AND o.scope_key IN $keys AND o.level IN $levels
                 LIMIT $wide) SCORE AS score
  RETURN o, score
}
WITH total, collect(CASE WHEN o IS NOT NULL THEN {o: o, score: score} END) AS hits
// A belief is in its own session and in its live source messages' (list_observations.cypher).
CALL (hits) {
  UNWIND hits AS h
  WITH h.o AS o, h.score AS score
  WHERE o.deleted_at IS NULL
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
  WITH o, score
  ORDER BY score DESC
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
                  score: score}) AS found
}
RETURN total, size(hits) AS raw, found
