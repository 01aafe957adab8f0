MATCH (m:Message {workspace: $workspace, session: $session})
RETURN DISTINCT m.peer AS peer
