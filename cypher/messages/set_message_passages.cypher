// Stores the passages' vectors of messages listed without them, unless the message changed
// since it was listed (an edit stores its own): the content must still be the one embedded.
UNWIND $rows AS row
MATCH (m:Message {workspace: row.workspace, id: row.id})
WHERE m.passage_embeddings IS NULL AND m.content = row.content
SET m.passage_embeddings = row.passages
RETURN count(m) AS updated
