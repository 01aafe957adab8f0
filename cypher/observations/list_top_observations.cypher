// The most-derived and the most recent current beliefs of one or several representations
// (the context slice). Each is read in index order (observation_key_derived, _recent): the
// ORDER BY names the whole index key and the WHERE tests each part, so the read stops after
// the beliefs it keeps rather than sorting the representation. The tests have no OR in them:
// the planner would split an OR into a union of two seeks and lose the index order.
// $as_of: as they stood then (a null comparison means "no bound", hence the coalesces).
// Session filters: only $session_ids, none of $exclude_session_ids (beliefs with no session,
// the derived ones, stay unless $exclude_derived); a belief is in its own session and in its
// live source messages' (list_observations.cypher). The source messages are read only for a
// belief whose own session does not settle it. CASE, not OR: see above.
CALL () {
  UNWIND $keys AS key
  CALL (key) {
    MATCH (o:Observation)
    USING INDEX o:Observation(scope_key, times_derived, created_at)
    WHERE o.scope_key = key AND o.times_derived IS NOT NULL AND o.created_at IS NOT NULL
      AND o.workspace = $workspace AND o.deleted_at IS NULL
      AND NOT coalesce(o.stale, false)
      AND coalesce(o.superseded_at > $as_of, o.superseded_at IS NULL)
      AND coalesce(o.created_at <= $as_of, $as_of IS NULL)
      AND CASE WHEN coalesce(o.session IN $session_ids, $session_ids IS NULL) THEN true
               ELSE EXISTS { MATCH (o)-[:DERIVED_FROM]->(m:Message)
                             WHERE m.deleted_at IS NULL
                               AND m.session IN $session_ids
                               AND coalesce(coalesce(m.received_at, m.created_at) <= $as_of, true)
                    } END
      AND CASE WHEN NOT coalesce(o.session IN $exclude_session_ids, false) THEN true
               ELSE EXISTS { MATCH (o)-[:DERIVED_FROM]->(m:Message)
                             WHERE m.deleted_at IS NULL
                               AND coalesce(coalesce(m.received_at, m.created_at) <= $as_of, true)
                               AND NOT m.session IN $exclude_session_ids } END
      AND CASE WHEN $exclude_derived THEN o.session IS NOT NULL ELSE true END
    RETURN o
    ORDER BY o.scope_key DESC, o.times_derived DESC, o.created_at DESC
    LIMIT $derived_scan
  }
  // Ranked by its count then: an explicit belief's is its messages' received by $as_of (read
  // from the $derived_scan most derived today, a count then being at most today's).
  WITH o, CASE WHEN $as_of IS NULL OR o.level <> 'explicit' THEN o.times_derived
               ELSE COUNT { MATCH (o)-[:DERIVED_FROM]->(m:Message)
                            WHERE m.deleted_at IS NULL
                              AND coalesce(m.received_at, m.created_at) <= $as_of } END AS said
  ORDER BY said DESC, o.created_at DESC LIMIT $most_derived
  RETURN collect(o {.*, embedding: null,
                   superseded_at: CASE WHEN o.superseded_at > $as_of THEN null
                                  ELSE o.superseded_at END,
                   times_derived: said}) AS most_derived
}
CALL () {
  UNWIND $keys AS key
  CALL (key) {
    MATCH (o:Observation)
    USING INDEX o:Observation(scope_key, valid_at)
    WHERE o.scope_key = key AND o.valid_at IS NOT NULL
      AND o.workspace = $workspace AND o.deleted_at IS NULL
      AND NOT coalesce(o.stale, false)
      AND coalesce(o.superseded_at > $as_of, o.superseded_at IS NULL)
      AND coalesce(o.created_at <= $as_of, $as_of IS NULL)
      AND CASE WHEN coalesce(o.session IN $session_ids, $session_ids IS NULL) THEN true
               ELSE EXISTS { MATCH (o)-[:DERIVED_FROM]->(m:Message)
                             WHERE m.deleted_at IS NULL
                               AND m.session IN $session_ids
                               AND coalesce(coalesce(m.received_at, m.created_at) <= $as_of, true)
                    } END
      AND CASE WHEN NOT coalesce(o.session IN $exclude_session_ids, false) THEN true
               ELSE EXISTS { MATCH (o)-[:DERIVED_FROM]->(m:Message)
                             WHERE m.deleted_at IS NULL
                               AND coalesce(coalesce(m.received_at, m.created_at) <= $as_of, true)
                               AND NOT m.session IN $exclude_session_ids } END
      AND CASE WHEN $exclude_derived THEN o.session IS NOT NULL ELSE true END
    RETURN o
    ORDER BY o.scope_key DESC, o.valid_at DESC
    LIMIT $most_recent
  }
  WITH o ORDER BY o.valid_at DESC LIMIT $most_recent
  RETURN collect(o {.*, embedding: null,
                   superseded_at: CASE WHEN o.superseded_at > $as_of THEN null
                                  ELSE o.superseded_at END,
                   // Its count then: an explicit belief's is its messages'.
                   times_derived: CASE WHEN $as_of IS NULL OR o.level <> 'explicit'
                                       THEN o.times_derived
                                       ELSE COUNT { MATCH (o)-[:DERIVED_FROM]->(m:Message)
                                                    WHERE m.deleted_at IS NULL
                                                      AND coalesce(m.received_at, m.created_at)
                                                          <= $as_of } END}) AS most_recent
}
RETURN most_derived, most_recent
