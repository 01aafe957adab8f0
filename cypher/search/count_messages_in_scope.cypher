MATCH (m:Message {workspace: $workspace})
RETURN count(m) AS total
