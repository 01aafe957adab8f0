// The observed's messages in a time range, with the same visibility as
// dialectic_grep_messages; oldest first within the range.
OPTIONAL MATCH (:Peer {workspace: $workspace, name: $observer})
               -[:PARTICIPATES_IN]->(s:Session {workspace: $workspace})
WITH collect(DISTINCT s.name) AS seen
MATCH (m:Message {workspace: $workspace, peer: $observed})
WHERE m.deleted_at IS NULL
  AND ($observer = $observed OR m.session IN seen)
  AND ($session IS NULL OR m.session = $session)
  AND ($since IS NULL OR m.created_at >= $since)
  AND ($until IS NULL OR m.created_at < $until)
RETURN m {.*, embedding: null} AS message
ORDER BY m.created_at, m.seq
LIMIT $limit
