MATCH (m:Message {workspace: $workspace})
WHERE m.client_id IN $client_ids
RETURN m {.*, embedding: null, passage_embeddings: null} AS message
