// Case-insensitive substring search over what the observer could see of the observed: the
// observed's own messages in sessions the observer took part in (any window), or all of them
// when a peer asks about itself. Newest first, so a changed value shows its latest form.
OPTIONAL MATCH (:Peer {workspace: $workspace, name: $observer})
               -[:PARTICIPATES_IN]->(s:Session {workspace: $workspace})
WITH collect(DISTINCT s.name) AS seen
MATCH (m:Message {workspace: $workspace, peer: $observed})
WHERE m.deleted_at IS NULL
  AND ($observer = $observed OR m.session IN seen)
  AND ($session IS NULL OR m.session = $session)
  AND toLower(m.content) CONTAINS toLower($text)
RETURN m {.*, embedding: null} AS message
ORDER BY m.created_at DESC, m.seq DESC
LIMIT $limit
