// Sessions with messages from before messages carried their fulltext keys.
MATCH (s:Session)
WHERE EXISTS { MATCH (m:Message {workspace: s.workspace, session: s.name}) WHERE m.session_key IS NULL }
RETURN s.workspace AS workspace, s.name AS session
LIMIT $limit
