MATCH (m:Message {workspace: $workspace, session: $session})
WHERE m.deleted_at IS NULL
RETURN m {.*, embedding: null, passage_embeddings: null} AS message
ORDER BY m.seq DESC
LIMIT $limit
