// The most-derived and the most recent current beliefs of one or several representations
// (the context slice). Each is read in index order (observation_key_derived, _recent): the
// ORDER BY names the whole index key and the WHERE tests each part, so the read stops after
// the beliefs it keeps rather than sorting the representation. $as_of: as they stood then.
// Session filters: only $session_ids, none of $exclude_session_ids (beliefs with no session,
// the derived ones, stay unless $exclude_derived).
CALL () {
  UNWIND $keys AS key
  CALL (key) {
    MATCH (o:Observation)
    USING INDEX o:Observation(scope_key, times_derived, created_at)
    WHERE o.scope_key = key AND o.times_derived IS NOT NULL AND o.created_at IS NOT NULL
      AND o.workspace = $workspace AND o.deleted_at IS NULL
      AND NOT coalesce(o.stale, false)
      AND (o.superseded_at IS NULL OR o.superseded_at > $as_of)
      AND ($as_of IS NULL OR o.created_at <= $as_of)
      AND ($session_ids IS NULL OR o.session IN $session_ids)
      AND ($exclude_session_ids IS NULL OR o.session IS NULL
           OR NOT o.session IN $exclude_session_ids)
      AND (NOT $exclude_derived OR o.session IS NOT NULL)
    RETURN o
    ORDER BY o.scope_key DESC, o.times_derived DESC, o.created_at DESC
    LIMIT $most_derived
  }
  WITH o ORDER BY o.times_derived DESC, o.created_at DESC LIMIT $most_derived
  RETURN collect(o {.*, embedding: null}) AS most_derived
}
CALL () {
  UNWIND $keys AS key
  CALL (key) {
    MATCH (o:Observation)
    USING INDEX o:Observation(scope_key, valid_at)
    WHERE o.scope_key = key AND o.valid_at IS NOT NULL
      AND o.workspace = $workspace AND o.deleted_at IS NULL
      AND NOT coalesce(o.stale, false)
      AND (o.superseded_at IS NULL OR o.superseded_at > $as_of)
      AND ($as_of IS NULL OR o.created_at <= $as_of)
      AND ($session_ids IS NULL OR o.session IN $session_ids)
      AND ($exclude_session_ids IS NULL OR o.session IS NULL
           OR NOT o.session IN $exclude_session_ids)
      AND (NOT $exclude_derived OR o.session IS NOT NULL)
    RETURN o
    ORDER BY o.scope_key DESC, o.valid_at DESC
    LIMIT $most_recent
  }
  WITH o ORDER BY o.valid_at DESC LIMIT $most_recent
  RETURN collect(o {.*, embedding: null}) AS most_recent
}
RETURN most_derived, most_recent
