// A batch of a session's live messages, for deleting the session's messages a batch at a time.
MATCH (m:Message {workspace: $workspace, session: $session})
WHERE m.deleted_at IS NULL
RETURN m.id AS id
LIMIT $limit
