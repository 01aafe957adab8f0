// The newest summaries of several sessions at once (one round trip for a page of sessions).
UNWIND $sessions AS name
CALL (name) {
  MATCH (s:Summary {workspace: $workspace, session: name})
  WHERE $kind IS NULL OR s.kind = $kind
  WITH s
  ORDER BY s.up_to_message DESC, s.kind
  LIMIT $limit
  RETURN collect(s {.*}) AS summaries
}
RETURN name AS session, summaries
