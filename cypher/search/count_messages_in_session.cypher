MATCH (m:Message {workspace: $workspace, session: $session})
WHERE $peer IS NULL OR m.peer = $peer
RETURN count(m) AS total
