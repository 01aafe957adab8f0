// The ids of a workspace's messages (tests only).
MATCH (m:Message {workspace: $workspace})
RETURN m.id AS id
ORDER BY m.seq
