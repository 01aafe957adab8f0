// The beliefs of one or several representations (scope keys: a peer and its sub-peers, as
// one observer sees them), oldest first. With $as_of, as they stood then: written by then and
// not yet superseded (a superseded belief is current until its superseded_at). Session
// filters: only $session_ids, none of $exclude_session_ids (beliefs with no session, the
// derived ones, stay unless $exclude_derived). A belief is in its own session and in each of
// its live source messages' (one fact stated in two sessions is one belief; with $as_of, the
// messages received by then): $session_ids keeps it if any of those is listed, and
// $exclude_session_ids leaves it out if all are.
MATCH (o:Observation)
WHERE o.scope_key IN $keys AND o.workspace = $workspace
  AND o.deleted_at IS NULL
  AND o.level IN $levels
  AND ($include_stale OR NOT coalesce(o.stale, false))
  AND ($include_superseded OR o.superseded_at IS NULL OR o.superseded_at > $as_of)
  AND ($as_of IS NULL OR o.created_at <= $as_of)
  AND CASE WHEN $session_ids IS NULL OR o.session IN $session_ids THEN true
           ELSE EXISTS { MATCH (o)-[:DERIVED_FROM]->(m:Message)
                         WHERE m.deleted_at IS NULL
                           AND m.session IN $session_ids
                           AND coalesce(coalesce(m.received_at, m.created_at) <= $as_of, true) } END
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
  AND ($after_time IS NULL OR o.created_at > $after_time
       OR (o.created_at = $after_time AND o.id > $after_id))
RETURN o {.*, embedding: null,
          superseded_at: CASE WHEN o.superseded_at > $as_of THEN null
                         ELSE o.superseded_at END,
          // Its count then: an explicit belief's is its messages'.
          times_derived: CASE WHEN $as_of IS NULL OR o.level <> 'explicit'
                              THEN o.times_derived
                              ELSE COUNT { MATCH (o)-[:DERIVED_FROM]->(m:Message)
                                           WHERE m.deleted_at IS NULL
                                             AND coalesce(m.received_at, m.created_at)
                                                 <= $as_of } END} AS observation
ORDER BY o.created_at, o.id
LIMIT $limit
