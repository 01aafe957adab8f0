MATCH (m:Message {workspace: $workspace, peer: $peer})
RETURN count(m) AS total
