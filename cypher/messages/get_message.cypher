MATCH (m:Message {id: $id, workspace: $workspace})
WHERE m.deleted_at IS NULL
RETURN m {.*, embedding: null, passage_embeddings: null} AS message
