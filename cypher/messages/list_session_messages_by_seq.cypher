MATCH (m:Message {workspace: $workspace, session: $session})
WHERE m.seq >= $from_seq AND m.seq <= $to_seq AND m.deleted_at IS NULL
RETURN m {.*, embedding: null, passage_embeddings: null} AS message
ORDER BY m.seq
