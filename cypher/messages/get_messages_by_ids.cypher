MATCH (m:Message {workspace: $workspace})
WHERE m.id IN $ids AND m.deleted_at IS NULL
RETURN m {.*, embedding: null, passage_embeddings: null} AS message
ORDER BY m.seq
