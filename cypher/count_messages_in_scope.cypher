MATCH (m:Message {workspace: $workspace})
WHERE ($session IS NULL OR m.session = $session)
  AND ($peer IS NULL OR m.peer = $peer)
RETURN count(m) AS total
