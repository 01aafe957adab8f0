// A workspace's messages with their content and stored passage vectors (null: none stored).
MATCH (m:Message {workspace: $workspace})
RETURN m.id AS id, m.content AS content, m.passage_embeddings AS passages
ORDER BY m.seq
